import type * as Hapi from '@hapi/hapi';
import type { Knex } from 'knex';

import { requireRight } from '../../src/auth/access';
import { maximoError } from '../../src/errors/maximo-error';
import { structureOf } from '../../src/http/structure';
import type { Row } from '../../src/read/execute/find';
import { applyAfter, applyOrder } from '../../src/read/compile/compile-order';
import { orderColumns } from '../../src/read/plan/ordering';
import type { SelectPlan } from '../../src/read/plan/select-plan';
import { memberId, serializeRows } from '../../src/read/serialize/serialize';
import { decodeCursor, encodeCursor, queryDigest } from '../../src/read/plan/stable-cursor';
import type { BusinessObject, Structure } from '../../src/structures/registry';
import { filtered } from './filter';
import { distinctValues, groups } from './groups';
import { generateReport, listReports } from './reports';
import { selectionSchema } from '../info/json-schema';
import { collectionHref, flag, readSelect, serializeOptions, text } from './request';
import { userOf } from '../../src/http/caller';


// GET {home}/os/{os}: a page of records (CONTRACT §3); the same paging serves lookups and child collections.
// Offset paging (pageno), or with stablepaging=1 a keyset cursor: the next page starts after the last row
// served, whatever was inserted or deleted before it meanwhile. A cursor only moves forward.
const pager = (request: Hapi.Request, object: BusinessObject, base: string, url: URL, pageSize: number, defaultOrder?: string) => {

    const osprey = request.server.app.osprey;
    const kind = osprey.kind;
    const columns = orderColumns(object, text(request.query['oslc.orderBy']) ?? defaultOrder);
    const stable = flag(text(request.query.stablepaging));
    // Only a stable page needs the query's digest: it binds the cursor to this query.
    const digest = stable ? queryDigest(url.pathname, url.searchParams) : '';
    const token = stable ? text(request.query.stableId ?? request.query.stableid) : undefined;
    const cursor = token ? decodeCursor(osprey.secret, digest, token) : undefined;
    const pageno = (request.query as { pageno: number }).pageno;
    const page = cursor ? cursor.page + 1 : pageno;
    const href = (n: number, stableId?: string) => {

        url.searchParams.set('pageno', String(n));
        if (stableId) {
            url.searchParams.set('stableId', stableId);
        }

        return `${base}?${url.searchParams.toString()}`;
    };

    return {
        page,
        stable,
        href,
        query: (builder: Knex.QueryBuilder) => {

            applyOrder(builder, kind, 'q0', columns);
            return cursor ? applyAfter(builder, kind, 'q0', columns, cursor.values) : builder.offset((pageno - 1) * pageSize);
        },
        next: (last: Row) => (stable ? href(page + 1, encodeCursor(osprey.secret, digest, { page, values: columns.map(({ attr }) => last[attr.name] ?? null) })) : href(page + 1))
    };
};

// The page size a request asks for (oslc.pageSize, else the given default, else 100), within the server's limit.
export const pageSizeOf = (request: Hapi.Request, defaultSize?: number): number => {

    const max = request.server.app.osprey.options.maxPageSize;
    const pageSize = (request.query as { 'oslc.pageSize'?: number })['oslc.pageSize'] ?? defaultSize ?? 100;
    if (pageSize > max) {
        throw maximoError('badRequest', `oslc.pageSize ${pageSize} is above the maximum of ${max}.`);
    }

    return pageSize;
};

// What a page lists: rows of an object's table (aliased q0, already filtered) — a structure's records, a lookup's
// or a record's child rows — under a collection href, with members rendered by the request's select (or by
// `plan`, or by `render` for rows that are not records).
export interface PageSource {
    /** The structure the members belong to (a child collection's is its record's): the schema of addschema=1. */
    readonly structure: Structure;
    readonly object: BusinessObject;
    /** The page size when the request sends no oslc.pageSize (100 when undefined). */
    readonly pageSize: number | undefined;
    readonly rows: Knex.QueryBuilder;
    /** The href of the collection, and of its pages with their query. */
    readonly href: string;
    /** Members' hrefs are `${memberBase}/${id}`. */
    readonly memberBase: string;
    /** The ordering when the request sends no oslc.orderBy (the unique id always ends it). */
    readonly defaultOrder?: string;
    /** Members are rendered with this plan whatever the request selects; without one and without a select, they
     * carry only their href (Maximo's rule for collections). */
    readonly plan?: SelectPlan;
    /** The members are child rows of a record (they carry localref). */
    readonly child?: boolean;
    /** Rows that are not records (a domain's values), rendered as `plan` selects them, without href or rowstamp. */
    readonly render?: (rows: Row[]) => Row[];
}

// One page of a collection (CONTRACT §3): select, order, offset or stable paging, counts, page links.
export const readPage = async (request: Hapi.Request, source: PageSource): Promise<Row> => {

    const osprey = request.server.app.osprey;
    const { object, rows: rowsWhere, href: base } = source;
    const query = request.query as { collectioncount?: string; count?: string };
    const pageSize = pageSizeOf(request, source.pageSize);
    const hasSelect = text(request.query['oslc.select']) ?? text(request.query['oslc.properties']);
    const plan = source.plan ?? (hasSelect?.trim() && !source.render ? readSelect(request, object) : undefined);
    const counting = flag(query.collectioncount) || flag(query.count);
    // The where is parsed and compiled once; the count and the page are clones of it.
    const total = counting ? Number((await rowsWhere.clone().count({ n: '*' }))[0]!.n) : undefined;
    if (flag(query.count)) {
        return { totalCount: total };
    }

    const url = new URL(request.url.href);
    // Credentials sent as query parameters never travel on in the hrefs of the answer.
    for (const name of ['apikey', '_lid', '_lpwd']) {
        url.searchParams.delete(name);
    }

    const search = url.search;
    // As in Maximo, the schema comes with the page that asks for it: the page links leave addschema out.
    url.searchParams.delete('addschema');
    const paging = pager(request, object, base, url, pageSize, source.defaultOrder);
    const rows = await paging.query(rowsWhere).select('q0.*').limit(pageSize + 1) as Row[];
    const page = rows.slice(0, pageSize);
    const hrefs = page.map((row) => `${source.memberBase}/${memberId(object, row)}`);
    // Without a select, members carry only their href (Maximo's rule).
    const addSchema = flag(request.query.addschema);
    const options = (plan && !source.render) || addSchema ? serializeOptions(request) : undefined;
    const member = source.render ? source.render(page) : plan ? await serializeRows(osprey.db, plan, page, hrefs, options!, source.child) : hrefs.map((href) => ({ href }));
    const responseInfo: Row = { href: `${base}${search}`, pagenum: paging.page };
    if (rows.length > pageSize) {
        responseInfo.nextPage = { href: paging.next(page[page.length - 1]!) };
    }

    if (paging.page > 1 && !paging.stable) {
        responseInfo.previousPage = { href: paging.href(paging.page - 1) };
    }

    if (total !== undefined) {
        responseInfo.totalCount = total;
        responseInfo.totalPages = Math.ceil(total / pageSize);
    }

    // addschema=1 (IBM's guide, "JSON Schema"): the schema of the members as selected, inline in responseInfo.
    if (addSchema) {
        const { structure } = source;
        const { domains, rowstamps, internalValues, collectionRefs, home } = options!;
        const shape = { domains, records: !source.render, rowstamps, internalValues: internalValues === true, collectionRefs };
        const href = osprey.registry.get(structure.name) === structure ? `${home}/jsonschemas/${structure.id}` : undefined;
        responseInfo.schema = selectionSchema(structure, object, plan, shape, { href, child: source.child });
    }

    return { href: base, member, responseInfo };
};

// The global actions a GET runs on a collection: the built-in report actions.
const globalAction = async (request: Hapi.Request, h: Hapi.ResponseToolkit, structure: Structure, action: string) => {

    // The parameter gate (src/http/parameters.ts) lets only these two through on a collection GET.
    return action.toLowerCase() === 'listreports' ? listReports(request, structure) : await generateReport(request, h, structure);
};

export const readCollection: Hapi.Lifecycle.Method = async (request, h) => {

    const structure = structureOf(request);
    requireRight(userOf(request), structure, 'read');
    const action = text(request.query.action);
    if (action !== undefined) {
        return await globalAction(request, h, structure, action);
    }

    pageSizeOf(request, structure.def.pageSize);
    const distinct = text(request.query.distinct);
    if (distinct !== undefined) {
        return await distinctValues(request, structure, distinct);
    }

    const gbcols = text(request.query.gbcols);
    if (gbcols !== undefined) {
        return await groups(request, structure, gbcols);
    }

    // gbrange without gbcols never gets here: the parameter gate (src/http/parameters.ts) refuses it on a page.
    const base = collectionHref(request, structure);
    return await readPage(request, { structure, object: structure.root, pageSize: structure.def.pageSize, rows: filtered(request, structure), href: base, memberBase: base });
};
