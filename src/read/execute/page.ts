import type { Knex } from 'knex';

import { Together } from '../../db/read-workers';
import { maximoError } from '../../errors/maximo-error';
import type { ResourceRequest } from '../../request';
import type { BusinessObject } from '../../structures/registry';
import { QueryError } from '../parse/query-error';
import { beyond, costLimits } from '../plan/cost';
import { orderColumns, orderedColumnNames, type OrderColumn } from '../plan/ordering';
import { decodeCursor, encodeCursor, queryDigest, type Cursor } from '../plan/stable-cursor';
import { applyAfter, applyOrder, selectOrderValues } from '../compile/compile-order';
import { bindingsOf, compiledOnce, compileSql, slotBinding, type CompiledSql } from '../compile/compiled-sql';
import type { Row } from './find';


// One page of a collection's rows (CONTRACT §3) — a structure's records, a lookup's, a record's child rows —
// with its count: offset paging (pageno), or with stablepaging=1 a keyset cursor: the next page starts after
// the last row served, whatever was inserted or deleted before it meanwhile. A cursor only moves forward.
//
// The count and the page run as SQL compiled once per shape (../compile/compiled-sql.ts): a request whose
// shape was seen before neither parses its where nor builds a query; only its slots (the owner's userid, the
// parent's key, the offset) are bound afresh.

// The page size a request asks for (oslc.pageSize, else the given default, else 100), within the server's limit.
export const pageSizeOf = (req: ResourceRequest, defaultSize?: number): number => {

    const { maxPageSize, maxAnswerRows } = req.osprey.options;
    const pageSize = req.read.pageSize ?? defaultSize ?? 100;
    if (pageSize > maxPageSize) {
        throw maximoError('badRequest', `oslc.pageSize ${pageSize} is above the maximum of ${maxPageSize} (OSPREY_MAX_PAGE_SIZE).`);
    }

    // A page of bare hrefs renders no row through the answer's budget, yet it is an answer of that many rows. A
    // structure's default page is cut to the limit; a page size the client asks for beyond it is refused.
    if (pageSize > maxAnswerRows && req.read.pageSize === undefined) {
        return maxAnswerRows;
    }

    if (pageSize > maxAnswerRows) {
        throw new QueryError('oslc.pageSize', 1, `a page of ${pageSize} records is more rows than an answer may hold; ${beyond(costLimits(req.osprey.options), 'answerRows')}`);
    }

    return pageSize;
};

// What a page reads: the filtered rows of an object (aliased q0), its default page size and order.
export interface PageQuery {
    readonly object: BusinessObject;
    /** The page size when the request sends no oslc.pageSize (100 when undefined). */
    readonly pageSize: number | undefined;
    /** The ordering when the request sends no oslc.orderBy (the unique id always ends it). */
    readonly defaultOrder?: string;
    /** The filtered rows, with slots (../compile/compiled-sql.ts) for the values that vary within a shape. */
    readonly rows: () => Knex.QueryBuilder;
    /** The text of everything `rows` compiles from but the slots; undefined: never kept (built every time). */
    readonly shape: string | undefined;
}

interface CompiledPage {
    readonly columns: readonly OrderColumn[];
    readonly count?: CompiledSql;
    readonly page?: CompiledSql;
}

// A page ready to run: compiled (so a bad query has failed already), its slots still to bind.
export interface PreparedPage {
    readonly pageSize: number;
    /** The page's number: pageno, or the cursor's page after the last one served. */
    readonly page: number;
    readonly stable: boolean;
    /** count=1: the total only. */
    readonly countOnly: boolean;
    readonly compiled: CompiledPage;
    readonly offset: number;
    /** The link of page n (with a stable page's cursor) of the collection at `base`, with the request's query. */
    readonly href: (base: string, n: number, stableId?: string) => string;
    /** The link of the page after the one that ends with this row. */
    readonly next: (base: string, last: Row) => string;
}

// `selected`: the columns of q0 the page's rows carry (../plan/render-columns.ts), with the order's for the next
// page's cursor; undefined: all of them.
const compilePage = (req: ResourceRequest, query: PageQuery, pageSize: number, counting: boolean, countOnly: boolean, selected: readonly string[] | undefined, cursor?: Cursor): CompiledPage => {

    const { kind } = req.osprey;
    const rows = query.rows();
    const count = counting ? compileSql(rows.clone().count({ n: '*' })) : undefined;
    if (countOnly) {
        return { columns: [], count };
    }

    const columns = orderColumns(query.object, req.read.orderBy ?? query.defaultOrder);

    const named = selected ? [...new Set([...selected, ...orderedColumnNames(columns)])].map((column) => `q0.${column}`) : 'q0.*';
    const ordered = applyOrder(selectOrderValues(rows.select(named), kind, 'q0', columns), kind, 'q0', columns);
    const { sql, bindings } = compileSql(cursor ? applyAfter(ordered, kind, 'q0', columns, cursor.values) : ordered);
    // The limit is the shape's (the page size); the offset is a slot's, bound on each run.
    return { columns, count, page: { sql: `${sql} limit ? offset ?`, bindings: [...bindings, pageSize + 1, slotBinding('offset')] } };
};

// count=1 (IBM's Java client appends it to the whole query it pages with) answers a number, but what the query
// names is checked as a page's would be: an order by no attribute, a forged cursor, a schema it cannot carry are a
// 400, not a count that ignored them.
const checkCountOnly = (req: ResourceRequest, query: PageQuery, links: { readonly pathname: string; readonly params: string }): void => {

    orderColumns(query.object, req.read.orderBy ?? query.defaultOrder);
    if (req.read.stablePaging && req.read.stableId) {
        // The cursor is checked against the query it was made for; count=1 is not part of that query.
        const params = new URLSearchParams(links.params);
        params.delete('count');
        decodeCursor(req.osprey.secret, queryDigest(links.pathname, params), req.read.stableId);
    }

    if (req.read.addSchema) {
        throw maximoError('badRequest', 'count=1 answers totalCount only, with no members for addschema to describe: send addschema=1 with a page (collectioncount=1 counts too).');
    }
};

export const preparePage = (req: ResourceRequest, query: PageQuery, links: { readonly pathname: string; readonly params: string }, selected?: readonly string[]): PreparedPage => {

    const { osprey, read } = req;
    const pageSize = pageSizeOf(req, query.pageSize);
    // Only a stable page needs the query's digest: it binds the cursor to this query.
    const stable = read.stablePaging;
    const digest = stable ? queryDigest(links.pathname, new URLSearchParams(links.params)) : '';
    const countOnly = read.count;
    if (countOnly) {
        checkCountOnly(req, query, links);
    }

    // count=1 answers before any page is read: neither its order, its cursor nor its columns matter (each is
    // still checked: checkCountOnly).
    const cursor = stable && read.stableId && !countOnly ? decodeCursor(osprey.secret, digest, read.stableId) : undefined;
    // A cursor names its page: a pageno that names another is not carried out, so it is refused.
    const pageno = read.parameters.pageno;
    if (cursor && pageno !== undefined && Number(pageno) !== cursor.page + 1) {
        throw maximoError('badRequest', `pageno=${pageno} names another page than the stableId, which continues at page ${cursor.page + 1}: a stable page only moves forward, by its nextPage href. Page again from the first page to reach another one.`);
    }

    const page = cursor ? cursor.page + 1 : read.pageno;
    const counting = read.collectionCount || read.count;
    // A cursor's values decide the SQL (a null is `is null`), so a stable page after the first is never kept.
    const key = query.shape === undefined || cursor ? undefined : JSON.stringify([query.shape, read.orderBy ?? query.defaultOrder, pageSize, counting, countOnly, countOnly ? '' : selected ?? '*']);
    const compile = () => compilePage(req, query, pageSize, counting, countOnly, selected, cursor);
    const compiled = key === undefined ? compile() : compiledOnce(osprey, key, compile, (made) => (made.page?.sql.length ?? 0) + (made.count?.sql.length ?? 0));
    const href = (base: string, n: number, stableId?: string) => {

        const params = new URLSearchParams(links.params);
        params.set('pageno', String(n));
        if (stableId) {
            params.set('stableId', stableId);
        }

        return `${base}?${params.toString()}`;
    };

    return {
        pageSize,
        page,
        stable,
        countOnly,
        compiled,
        offset: cursor ? 0 : (read.pageno - 1) * pageSize,
        href,
        next: (base, last) => (stable ? href(base, page + 1, encodeCursor(osprey.secret, digest, { page, values: compiled.columns.map((column) => last[column.key] ?? null) })) : href(base, page + 1))
    };
};

export interface PageRows {
    /** count=1 or collectioncount=1: the number of rows the query names. */
    readonly total?: number;
    /** The page's rows, one more than the page size when another page follows. */
    readonly rows: readonly Row[];
}

// Runs a prepared page: its count, then its rows, with the slots' values.
export const runPage = async (req: ResourceRequest, prepared: PreparedPage, slots: Readonly<Record<string, unknown>> = {}): Promise<PageRows> => {

    const { db } = req.osprey;
    const { count, page } = prepared.compiled;
    const values = { ...slots, offset: prepared.offset };
    // The shapes follow what clients send: not kept as named statements on PostgreSQL (Db.rows).
    // On SQLite both see one committed state, so the total is that of the rows: on the read workers they run in
    // one read transaction (db/read-workers.ts `Together`), elsewhere both are asked for in one turn and run one
    // right after the other at its end (db/turns.ts), no COMMIT between them. On PostgreSQL they run one after
    // the other, each in a snapshot of its own, as they always have.
    const options = { shapes: 'client' as const, ...(count && page && db.kind === 'sqlite' ? { together: new Together(2) } : {}) };
    const counted = () => (count ? db.rows(count.sql, bindingsOf(count, values), options) : undefined);
    const paged = () => (page ? db.rows(page.sql, bindingsOf(page, values), options) : undefined);
    const [totalRows, rows] = db.kind === 'sqlite' ? await Promise.all([counted(), paged()]) : [await counted(), await paged()];
    return { total: totalRows ? Number(totalRows[0]!.n) : undefined, rows: rows ?? [] };
};
