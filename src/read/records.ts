import { requireRight } from '../auth/access';
import { rowstampColumn } from '../db/migrate';
import { maximoError } from '../errors/maximo-error';
import type { ResourceRequest } from '../request';
import type { Structure } from '../structures/registry';
import { readSelect } from './plan/select-settings';
import { slot } from './compile/compiled-sql';
import { filtered, filterKey } from './execute/filter';
import { findChild, type Row } from './execute/find';
import { distinctValues, groups } from './execute/groups';
import { requestedRow } from './execute/member';
import { pageSizeOf } from './execute/page';
import { serializeOptions } from './serialize/options';
import { answerPage, prepareSource, readPage } from './serialize/page';
import { childHref, memberId, serializeRows } from './serialize/serialize';
import { generateReport, listReports, type ReportDocument } from './reports';


// The read pipeline's entry points for records (issue 17): each takes the request value (src/request.ts) and
// answers plain data; the resources plugin adds only what is HTTP's (status, ETag, content type). Each checks
// the read right once.

// The href of a structure's collection on the request's home.
export const collectionHref = (req: ResourceRequest, structure: Structure): string => `${req.home}/os/${structure.id}`;

// The owner rule's userid, bound into SQL kept by shape (./compile/compiled-sql.ts).
const ownerSlots = (req: ResourceRequest): Record<string, unknown> => ({ owner: req.user.userid });

// What a GET of a collection answers: JSON (a page, a count, groups, distinct values, the list of reports), or
// a report's document.
export type CollectionAnswer = { readonly json: unknown } | { readonly report: ReportDocument };

// GET {home}/os/{os}: a page of records (CONTRACT §3), or what distinct, gbcols or a report action asks.
export const readCollection = async (req: ResourceRequest): Promise<CollectionAnswer> => {

    const { structure, read } = req;
    requireRight(req.user, structure, 'read');
    if (read.action !== undefined) {
        // The parameter gate (src/http/parameters.ts) lets only these two actions through on a collection GET.
        return read.action.toLowerCase() === 'listreports' ? { json: listReports(req, collectionHref(req, structure)) } : { report: await generateReport(req, collectionHref(req, structure)) };
    }

    pageSizeOf(req, structure.def.pageSize);
    if (read.distinct !== undefined) {
        return { json: await distinctValues(req, read.distinct) };
    }

    if (read.gbcols !== undefined) {
        return { json: await groups(req, read.gbcols, collectionHref(req, structure)) };
    }

    // gbrange without gbcols never gets here: the parameter gate (src/http/parameters.ts) refuses it on a page.
    const base = collectionHref(req, structure);
    const rows = () => filtered(req, structure, { ownerSlot: true });
    return { json: await readPage(req, { structure, object: structure.root, pageSize: structure.def.pageSize, rows, shape: filterKey(req, structure), href: base, memberBase: base }, ownerSlots(req)) };
};

// GET {home}/os/{os}/{id}: the bare record, with its rowstamp (the answer's ETag).
export const readMember = async (req: ResourceRequest): Promise<{ readonly record: Row; readonly rowstamp: string }> => {

    const { structure } = req;
    requireRight(req.user, structure, 'read');
    const plan = readSelect(req, structure.root);
    const row = await requestedRow(req, structure);
    const href = `${collectionHref(req, structure)}/${memberId(structure.root, row)}`;
    const [record] = await serializeRows(req.osprey.db, plan, [row], [href], serializeOptions(req));
    return { record: record!, rowstamp: String(row[rowstampColumn]) };
};

// GET {home}/os/{os}/{id}/{child}: one child collection of a record, paged, filtered, ordered and counted like a
// collection, with names resolved against the child object; its members are whole child rows unless selected.
// With /{childid}, one child row.
export const readChildren = async (req: ResourceRequest): Promise<Row> => {

    const { structure } = req;
    requireRight(req.user, structure, 'read');
    const child = structure.root.children.get(String(req.child).toLowerCase());
    if (!child) {
        throw maximoError('routeNotFound', `${structure.name} has no child object ${req.child}.`);
    }

    const plan = readSelect(req, child.object);
    const childId = req.childId;
    const collection = childId === undefined;
    // The rows of the record's children: `=` never holds for a null, so a record without a join value has none.
    const joins = Object.entries(child.join);
    const rows = () => {

        const query = filtered(req, structure, { child });
        for (const [attr, column] of joins) {
            query.whereRaw('?? = ?', [`q0.${column}`, slot(`join:${attr}`)]);
        }

        return query;
    };

    const parentBase = collectionHref(req, structure);
    // The query is checked before the record is read: a bad where is a 400 whether or not the record exists. Its
    // hrefs are the record's, known once it is read; the shape is the same for every record.
    const prepared = collection ? prepareSource(req, { structure, object: child.object, pageSize: structure.def.pageSize, rows, shape: filterKey(req, structure, { child }), href: '', memberBase: '', plan, child: true }) : undefined;
    const row = await requestedRow(req, structure);
    const parentHref = `${parentBase}/${memberId(structure.root, row)}`;
    if (prepared) {
        const href = `${parentHref}/${child.name}`;
        const slots = Object.fromEntries(joins.map(([attr]) => [`join:${attr}`, row[attr] ?? null]));
        return await answerPage(req, { ...prepared, source: { ...prepared.source, href, memberBase: href } }, slots);
    }

    const db = req.osprey.db;
    const found = await findChild(db, child, row, childId!);
    if (!found) {
        throw maximoError('notFound', `${structure.name} ${req.id} has no ${child.object.name} ${childId}.`);
    }

    const [member] = await serializeRows(db, plan, [found], [childHref(parentHref, child, found)], serializeOptions(req), true);
    return member!;
};
