import type * as Hapi from '@hapi/hapi';
import type { Knex } from 'knex';

import { requireRight } from '../../src/auth/access';
import { maximoError } from '../../src/errors/maximo-error';
import { structureOf } from '../../src/http/structure';
import { parseOrderBy } from '../../src/query/order';
import { QueryError } from '../../src/query/query-error';
import type { Row } from '../../src/records/find';
import { memberId, serializeRows } from '../../src/records/serialize';
import type { Structure } from '../../src/structures/registry';
import { filtered } from './filter';
import { distinctValues, groups } from './groups';
import { collectionHref, flag, readSelect, serializeOptions, text } from './request';


// oslc.orderBy on attributes of the root object, then the unique id so that pages never overlap.
const ordered = (query: Knex.QueryBuilder, request: Hapi.Request, structure: Structure) => {

    const root = structure.root;
    const orderBy = text(request.query['oslc.orderBy']);
    for (const term of orderBy?.trim() ? parseOrderBy(orderBy) : []) {
        const attr = term.path.length === 1 ? root.attributes.get(term.path[0]!) : undefined;
        if (!attr?.persistent || attr.secret) {
            throw new QueryError('oslc.orderBy', term.position, `${term.path.join('.')} is not an attribute of ${root.name}`);
        }

        query.orderBy(`q0.${attr.name}`, term.direction);
    }

    return query.orderBy(`q0.${root.uniqueColumn}`);
};

// GET {home}/os/{os}: a page of records (CONTRACT §3).
export const readCollection: Hapi.Lifecycle.Method = async (request) => {

    const osprey = request.server.app.osprey;
    const structure = structureOf(request);
    requireRight(request, structure, 'read');
    const root = structure.root;
    const query = request.query as { 'oslc.pageSize'?: number; pageno: number; collectioncount?: string; count?: string };
    const pageSize = query['oslc.pageSize'] ?? structure.def.pageSize ?? 100;
    if (pageSize > osprey.options.maxPageSize) {
        throw maximoError('badRequest', `oslc.pageSize ${pageSize} is above the maximum of ${osprey.options.maxPageSize}.`);
    }

    const distinct = text(request.query.distinct);
    if (distinct !== undefined) {
        return await distinctValues(request, structure, distinct);
    }

    const gbcols = text(request.query.gbcols);
    if (gbcols !== undefined) {
        return await groups(request, structure, gbcols);
    }

    const hasSelect = text(request.query['oslc.select']) ?? text(request.query['oslc.properties']);
    const plan = hasSelect?.trim() ? readSelect(request, root) : undefined;
    const counting = flag(query.collectioncount) || flag(query.count);
    // The where is parsed and compiled once; the count and the page are clones of it.
    const rowsWhere = filtered(request, structure);
    const total = counting ? Number((await rowsWhere.clone().count({ n: '*' }))[0]!.n) : undefined;
    if (flag(query.count)) {
        return { totalCount: total };
    }

    const rows = await ordered(rowsWhere, request, structure).select('q0.*').limit(pageSize + 1).offset((query.pageno - 1) * pageSize) as Row[];
    const page = rows.slice(0, pageSize);
    const base = collectionHref(request, structure);
    const hrefs = page.map((row) => `${base}/${memberId(root, row)}`);
    // Without a select, members carry only their href (Maximo's rule).
    const member = plan ? await serializeRows(osprey.knex, plan, page, hrefs, serializeOptions(request)) : hrefs.map((href) => ({ href }));
    const url = new URL(request.url.href);
    const pageHref = (pageno: number) => {

        url.searchParams.set('pageno', String(pageno));
        return { href: `${base}?${url.searchParams.toString()}` };
    };

    const responseInfo: Row = { href: `${base}${request.url.search}`, pagenum: query.pageno };
    if (rows.length > pageSize) {
        responseInfo.nextPage = pageHref(query.pageno + 1);
    }

    if (query.pageno > 1) {
        responseInfo.previousPage = pageHref(query.pageno - 1);
    }

    if (total !== undefined) {
        responseInfo.totalCount = total;
        responseInfo.totalPages = Math.ceil(total / pageSize);
    }

    return { href: base, member, responseInfo };
};
