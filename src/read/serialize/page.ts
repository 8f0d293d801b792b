import type { ResourceRequest } from '../../request';
import type { Structure } from '../../structures/registry';
import type { SelectPlan } from '../plan/select-plan';
import { readSelect, selects } from '../plan/select-settings';
import { renderColumns } from '../plan/render-columns';
import type { Row } from '../execute/find';
import { preparePage, runPage, type PageQuery, type PreparedPage } from '../execute/page';
import { selectionSchema } from './json-schema';
import { serializeOptions } from './options';
import { remember } from '../../db/remember';
import { memberId, serializeRows } from './serialize';


// A page of a collection as answered (CONTRACT §3): members rendered by the request's select (or by `plan`, or
// by `render` for rows that are not records), page links, counts, and with addschema=1 the members' schema.
export interface PageSource extends PageQuery {
    /** The href of the collection: its pages' links are this with their query. */
    readonly href: string;
    /** The structure the members belong to (a child collection's is its record's): the schema of addschema=1. */
    readonly structure: Structure;
    /** Members' hrefs are `${memberBase}/${id}`. */
    readonly memberBase: string;
    /** Members are rendered with this plan whatever the request selects; without one and without a select, they
     * carry only their href (Maximo's rule for collections). */
    readonly plan?: SelectPlan;
    /** The members are child rows of a record (they carry localref). */
    readonly child?: boolean;
    /** Rows that are not records (a domain's values), rendered as `plan` selects them, without href or rowstamp. */
    readonly render?: (rows: readonly Row[]) => Row[];
}

// A page source checked and compiled: a bad query has failed before anything is read (a child collection's
// where is a 400 whether or not its record exists).
export interface PreparedSource {
    readonly source: PageSource;
    readonly plan: SelectPlan | undefined;
    readonly prepared: PreparedPage;
    /** The request's URL with its query as sent (responseInfo.href), and as the page links carry it. */
    readonly search: string;
}

// The query of a page's URL (without credentials) as responseInfo.href carries it, and as its page links carry it
// on (without addschema: as in Maximo, the schema comes with the page that asks for it). Made once per URL.
export interface PageLinks {
    readonly search: string;
    readonly pathname: string;
    readonly params: string;
}

const linksByHref = new Map<string, PageLinks>();

const pageLinks = (href: string): PageLinks => {

    const known = linksByHref.get(href);
    if (known) {
        return known;
    }

    const url = new URL(href);
    const search = url.search;
    url.searchParams.delete('addschema');
    return remember(linksByHref, href, { search, pathname: url.pathname, params: url.searchParams.toString() }, 1000);
};

export const prepareSource = (req: ResourceRequest, source: PageSource): PreparedSource => {

    // count=1 answers a number: no URL is worked on, but for the query a stable cursor beside it was made for.
    const links = req.read.count && !(req.read.stablePaging && req.read.stableId) ? { search: '', pathname: '', params: '' } : pageLinks(req.linkHref);
    // The select is planned first, for the columns the page reads (rows that are not records are rendered by
    // `render` from whatever they hold; members without a plan carry only their href), but a request with a bad
    // page (its size, cursor, where or order) and a bad select is answered about its page, as it always was.
    let plan: SelectPlan | undefined;
    let planned: unknown;
    try {
        plan = source.plan ?? (selects(req) && !source.render ? readSelect(req, source.object) : undefined);
    }
    catch (error) {
        planned = error;
    }

    const prepared = preparePage(req, source, links, source.render || planned ? undefined : renderColumns(source.object, plan));
    if (planned) {
        throw planned;
    }

    return { source, plan, prepared, search: links.search };
};

// Runs a prepared page (`slots`: the values its SQL binds afresh) and renders the answer.
export const answerPage = async (req: ResourceRequest, { source, plan, prepared, search }: PreparedSource, slots: Readonly<Record<string, unknown>> = {}): Promise<Row> => {

    const { osprey } = req;
    const { object, href: base } = source;
    const { total, rows } = await runPage(req, prepared, slots);
    if (prepared.countOnly) {
        return { totalCount: total };
    }

    const { pageSize } = prepared;
    const page = rows.slice(0, pageSize);
    const hrefs = page.map((row) => `${source.memberBase}/${memberId(object, row)}`);
    // Without a select, members carry only their href (Maximo's rule).
    const addSchema = req.read.addSchema;
    const options = (plan && !source.render) || addSchema ? serializeOptions(req) : undefined;
    const member = source.render ? source.render(page) : plan ? await serializeRows(osprey.db, plan, page, hrefs, options!, source.child) : hrefs.map((href) => ({ href }));
    const responseInfo: Row = { href: `${base}${search}`, pagenum: prepared.page };
    if (rows.length > pageSize) {
        responseInfo.nextPage = { href: prepared.next(base, page[page.length - 1]!) };
    }

    if (prepared.page > 1 && !prepared.stable) {
        responseInfo.previousPage = { href: prepared.href(base, prepared.page - 1) };
    }

    if (total !== undefined) {
        responseInfo.totalCount = total;
        responseInfo.totalPages = Math.ceil(total / pageSize);
    }

    // addschema=1 (IBM's guide, "JSON Schema"): the schema of the members as selected, inline in responseInfo.
    if (addSchema) {
        const { structure } = source;
        const { domains, rowstamps, internalValues, collectionRefs, home } = options!;
        const shape = { domains, records: !source.render, rowstamps, internalValues: internalValues === true, collectionRefs, inlineDocuments: options!.documents?.inline === true };
        const href = osprey.registry.get(structure.name) === structure ? `${home}/jsonschemas/${structure.id}` : undefined;
        responseInfo.schema = selectionSchema(structure, object, plan, shape, { href, child: source.child });
    }

    return { href: base, member, responseInfo };
};

// One page, prepared and answered at once.
export const readPage = async (req: ResourceRequest, source: PageSource, slots?: Readonly<Record<string, unknown>>): Promise<Row> => await answerPage(req, prepareSource(req, source), slots);
