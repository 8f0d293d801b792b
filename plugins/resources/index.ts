import type * as Hapi from '@hapi/hapi';
import Joi from 'joi';

import { maximoError } from '../../src/errors/maximo-error';
import { homeHref } from '../../src/http/hrefs';
import { homeRoutes } from '../../src/http/homes';
import { memberId, serializeRow } from '../../src/records/serialize';
import type { Structure } from '../../src/structures/registry';
import { decodeId } from '../../src/structures/resource-id';


const structureOf = (request: Hapi.Request): Structure => {

    const structure = request.server.app.osprey.registry.get(String(request.params.os));
    if (!structure) {
        throw maximoError('unknownStructure', `The object structure ${String(request.params.os).toUpperCase()} does not exist.`);
    }

    return structure;
};

const flag = (value: unknown) => value === '1' || value === 'true';

const collectionHref = (request: Hapi.Request, structure: Structure) => `${homeHref(request, request.server.app.osprey.options.contextRoot)}/os/${structure.id}`;

// Reads of records: the collection (paged, members as hrefs) and one member by any of its three id forms.
export const resources: Hapi.Plugin<unknown> = {
    name: 'resources',
    register: (server) => {

        const osprey = server.app.osprey;

        const readMember: Hapi.Lifecycle.Method = async (request, h) => {

            const structure = structureOf(request);
            const root = structure.root;
            const decoded = decodeId(String(request.params.id), root.primaryKey);
            const where = decoded?.kind === 'unique' ? { [root.uniqueColumn]: decoded.value } : Object.fromEntries(root.primaryKey.map((key, i) => [key, decoded?.kind === 'keys' ? decoded.values[i] : undefined]));
            const row = decoded && Object.values(where).every((value) => value !== null && value !== undefined) ? await osprey.knex(root.table).where(where).first() : undefined;
            if (!row) {
                throw maximoError('notFound', `The record ${request.params.id} of ${structure.name} was not found as it does not exist in the system.`);
            }

            const base = collectionHref(request, structure);
            const record = serializeRow(root, row, `${base}/${memberId(root, row)}`, {
                dropNulls: request.query._dropnulls !== '0',
                collectionRefs: !flag(request.query.ignorecollectionref),
                domains: osprey.registry.domains()
            });
            return h.response(record).etag(String(record._rowstamp));
        };

        const readCollection: Hapi.Lifecycle.Method = async (request) => {

            const structure = structureOf(request);
            const root = structure.root;
            const query = request.query as { 'oslc.pageSize'?: number; pageno: number; collectioncount?: string; count?: string };
            const pageSize = query['oslc.pageSize'] ?? structure.def.pageSize ?? 100;
            if (pageSize > osprey.options.maxPageSize) {
                throw maximoError('badRequest', `oslc.pageSize ${pageSize} is above the maximum of ${osprey.options.maxPageSize}.`);
            }

            const counting = flag(query.collectioncount) || flag(query.count);
            const total = counting ? Number((await osprey.knex(root.table).count({ n: '*' }))[0]!.n) : undefined;
            if (flag(query.count)) {
                return { totalCount: total };
            }

            const rows = await osprey.knex(root.table).select(root.primaryKey).orderBy(root.uniqueColumn).limit(pageSize + 1).offset((query.pageno - 1) * pageSize);
            const base = collectionHref(request, structure);
            const url = new URL(request.url.href);
            const page = (pageno: number) => {

                url.searchParams.set('pageno', String(pageno));
                return { href: `${base}?${url.searchParams.toString()}` };
            };

            const responseInfo: Record<string, unknown> = { href: `${base}${request.url.search}`, pagenum: query.pageno };
            if (rows.length > pageSize) {
                responseInfo.nextPage = page(query.pageno + 1);
            }

            if (query.pageno > 1) {
                responseInfo.previousPage = page(query.pageno - 1);
            }

            if (total !== undefined) {
                responseInfo.totalCount = total;
                responseInfo.totalPages = Math.ceil(total / pageSize);
            }

            return { href: base, member: rows.slice(0, pageSize).map((row) => ({ href: `${base}/${memberId(root, row)}` })), responseInfo };
        };

        server.route(homeRoutes(osprey.options.contextRoot, [
            {
                method: 'GET', path: '/os/{os}', options: {
                    id: 'resources.query',
                    handler: readCollection,
                    validate: {
                        query: Joi.object({
                            'oslc.pageSize': Joi.number().integer().min(1),
                            pageno: Joi.number().integer().min(1).default(1)
                        }).unknown(true)
                    }
                }
            },
            { method: 'GET', path: '/os/{os}/{id}', options: { id: 'resources.read', handler: readMember } }
        ]));
    }
};
