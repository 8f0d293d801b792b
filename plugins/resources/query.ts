import type * as Hapi from '@hapi/hapi';
import type { Knex } from 'knex';

import { requireRight } from '../../src/auth/access';
import { maximoError } from '../../src/errors/maximo-error';
import { structureOf } from '../../src/http/structure';
import { applyWhere } from '../../src/query/compile-where';
import { parseOrderBy } from '../../src/query/order';
import { QueryError } from '../../src/query/query-error';
import { parseWhere, withOperatorMode } from '../../src/query/where';
import type { Row } from '../../src/records/find';
import { memberId, serializeRows } from '../../src/records/serialize';
import type { Structure } from '../../src/structures/registry';
import { collectionHref, flag, readSelect, serializeOptions } from './request';


const text = (value: unknown) => (value === undefined ? undefined : String(Array.isArray(value) ? value[value.length - 1] : value));

// The rows a collection request names: oslc.where (opmodeor=1 turns and into or), on the root table as q0.
const filtered = (request: Hapi.Request, structure: Structure): Knex.QueryBuilder => {

    const osprey = request.server.app.osprey;
    const query = osprey.knex({ q0: structure.root.table });
    const where = text(request.query['oslc.where']);
    if (where?.trim()) {
        const parsed = parseWhere(where);
        applyWhere(query, {
            registry: osprey.registry,
            kind: osprey.kind,
            parameter: 'oslc.where',
            params: {},
            structure,
            object: structure.root,
            alias: 'q0',
            aliases: { next: 0 }
        }, flag(request.query.opmodeor) ? withOperatorMode(parsed, 'or') : parsed);
    }

    return query;
};

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

    const hasSelect = text(request.query['oslc.select']) ?? text(request.query['oslc.properties']);
    const plan = hasSelect?.trim() ? readSelect(request, root) : undefined;
    const counting = flag(query.collectioncount) || flag(query.count);
    const total = counting ? Number((await filtered(request, structure).count({ n: '*' }))[0]!.n) : undefined;
    if (flag(query.count)) {
        return { totalCount: total };
    }

    const rows = await ordered(filtered(request, structure), request, structure).select('q0.*').limit(pageSize + 1).offset((query.pageno - 1) * pageSize) as Row[];
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
