import type * as Hapi from '@hapi/hapi';

import { decodeId } from '../src/structures/resource-id';
import { BaselineInputError, pageSize, type BaselineData, type Transitions } from './baseline-data';
import { csv, type Renderer, type Row } from './baseline-json';
import { openStatuses, querySelect, reportColumns } from './scenarios';


export interface Renderers {
    workorder: Renderer;
    asset: Renderer;
    task: Renderer;
}

const userid = 'MAXADMIN';
// Osprey's report batch (src/read/reports.ts batchSize): (b) runs the statements Osprey runs.
const reportPage = 1000;

// One plain hapi route per scenario under /b/{scenario}/…, answering the JSON Osprey answers for it.
export const baselineRoutes = (data: BaselineData, render: Renderers, transitions: Transitions): Hapi.ServerRoute[] => {

    const home = (request: Hapi.Request) => `http://${request.info.host}/maximo/oslc`;
    const collectionHref = (request: Hapi.Request) => `${home(request)}/os/mxapiwodetail`;
    const keysOf = (id: string | undefined) => {

        const decoded = id ? decodeId(id, ['siteid', 'wonum']) : undefined;
        return decoded?.kind === 'keys' ? decoded.values as [string, string] : undefined;
    };

    const segments = (request: Hapi.Request) => String(request.params.rest).split('/');
    const pageno = (request: Hapi.Request) => Number(request.query.pageno ?? 1);
    const notFound = (h: Hapi.ResponseToolkit) => h.response({ Error: { message: 'BMXAA8727E - The record does not exist.', reasonCode: 'BMXAA8727E', statusCode: '404' } }).code(404);

    const collection = (request: Hapi.Request, members: Row[], rows: Row[], total?: number) => {

        const href = `${home(request)}${request.url.pathname.replace(/^\/b\/[^/]+\/maximo\/oslc/, '')}`;
        const responseInfo: Row = { href: href + request.url.search, pagenum: pageno(request) };
        if (rows.length > pageSize) {
            responseInfo.nextPage = { href: `${href}?${new URLSearchParams({ ...request.query, pageno: String(pageno(request) + 1) })}` };
        }

        if (total !== undefined) {
            Object.assign(responseInfo, { totalCount: total, totalPages: Math.ceil(total / pageSize) });
        }

        return { href, member: members, responseInfo };
    };

    const createOne = async (request: Hapi.Request, values: Row) => {

        const { siteid, wonum } = await data.create(values, userid);
        return `${collectionHref(request)}/${render.workorder.id({ siteid, wonum })}`;
    };

    return [
        {
            method: 'GET', path: '/b/member/{rest*}', handler: async (request, h) => {

                const keys = keysOf(segments(request).pop());
                const row = keys && await data.member(...keys);
                return row ? render.workorder.render(row, `${collectionHref(request)}/${render.workorder.id(row)}`) : notFound(h);
            }
        },
        ...['query', 'query-count'].map((name): Hapi.ServerRoute => ({
            method: 'GET', path: `/b/${name}/{rest*}`, handler: async (request) => {

                const { rows, total } = await data.page('BEDFORD', openStatuses, (pageno(request) - 1) * pageSize, name === 'query-count');
                const members = rows.slice(0, pageSize).map((row) => render.workorder.render(row, `${collectionHref(request)}/${render.workorder.id(row)}`, querySelect));
                return collection(request, members, rows, total);
            }
        })),
        { method: 'GET', path: '/b/count/{rest*}', handler: async () => ({ totalCount: await data.countAll() }) },
        {
            method: 'GET', path: '/b/children/{rest*}', handler: async (request) => {

                const { rows, assets, tasks } = await data.childrenPage('NASHUA', (pageno(request) - 1) * pageSize);
                const assetByKey = new Map(assets.map((asset) => [`${String(asset.assetnum)}/${String(asset.siteid)}`, asset]));
                const tasksByParent = new Map<string, Row[]>();
                for (const task of tasks) {
                    const key = `${String(task.parent)}/${String(task.siteid)}`;
                    const list = tasksByParent.get(key) ?? [];
                    list.push(task);
                    tasksByParent.set(key, list);
                }

                const members = rows.slice(0, pageSize).map((row) => {

                    const href = `${collectionHref(request)}/${render.workorder.id(row)}`;
                    const record = render.workorder.render(row, href, ['wonum', 'description']);
                    const asset = assetByKey.get(`${String(row.assetnum)}/${String(row.siteid)}`);
                    if (asset) {
                        record.asset = render.asset.render(asset, `${home(request)}/os/mxapiasset/${render.asset.id(asset)}`, ['description']);
                    }

                    record.woactivity = (tasksByParent.get(`${String(row.wonum)}/${String(row.siteid)}`) ?? []).map((task) => {

                        const taskHref = `${href}/woactivity/${render.task.id(task)}`;
                        return { ...render.task.render(task, taskHref, ['taskid', 'description']), localref: taskHref };
                    });
                    return record;
                });
                return collection(request, members, rows);
            }
        },
        {
            method: 'GET', path: '/b/lookup/{rest*}', handler: async (request, h) => {

                const parts = segments(request);
                const keys = keysOf(parts[parts.length - 2]);
                const assets = keys && await data.lookup(...keys);
                if (!assets) {
                    return notFound(h);
                }

                const members = assets.slice(0, pageSize).map((asset) => render.asset.render(asset, `${home(request)}/os/mxapiasset/${render.asset.id(asset)}`, ['assetnum', 'description']));
                return collection(request, members, assets);
            }
        },
        {
            method: 'GET', path: '/b/report/{rest*}', handler: async (request, h) => {

                // Osprey's statements: keyset pages of 1,000 work orders by id.
                const maxId = Number(/workorderid<=(\d+)/.exec(String(request.query['oslc.where']))?.[1] ?? 0);
                const rows: Row[] = [];
                let page = await data.reportPage(maxId, undefined, reportPage);
                rows.push(...page);
                while (page.length === reportPage) {
                    page = await data.reportPage(maxId, Number(page[page.length - 1]!.workorderid), reportPage);
                    rows.push(...page);
                }

                return h.response(csv(reportColumns, rows)).type('text/csv; charset=utf-8').header('content-disposition', 'inline; filename="woprint.csv"');
            }
        },
        {
            method: 'POST', path: '/b/create/{rest*}', handler: async (request, h) => {

                try {
                    return h.response().code(201).header('location', await createOne(request, request.payload as Row));
                }
                catch (err) {
                    if (err instanceof BaselineInputError) {
                        return h.response({ Error: { message: err.message, statusCode: '400' } }).code(400);
                    }

                    throw err;
                }
            }
        },
        {
            method: 'POST', path: '/b/update/{rest*}', handler: async (request, h) => {

                const keys = keysOf(segments(request).pop());
                const row = keys && await data.update(...keys, String((request.payload as Row).description), userid);
                return row ? render.workorder.render(row, `${collectionHref(request)}/${render.workorder.id(row)}`, ['wonum', 'description', 'status']) : notFound(h);
            }
        },
        // A PATCH of status and wsmethod:changeStatus write the same: Osprey's action is a PATCH of status.
        ...['status-patch', 'status-action'].map((name): Hapi.ServerRoute => ({
            method: 'POST', path: `/b/${name}/{rest*}`, handler: async (request, h) => {

                const keys = keysOf(segments(request).pop());
                const status = String((request.payload as Row).status);
                const outcome = keys ? await data.changeStatus(...keys, status, userid, transitions) : 'missing';
                if (outcome === 'refused') {
                    return h.response({ Error: { message: `The status cannot change to ${status}.`, statusCode: '400' } }).code(400);
                }

                return outcome === 'changed' ? h.response().code(204) : notFound(h);
            }
        })),
        {
            method: 'POST', path: '/b/bulk/{rest*}', handler: async (request) => {

                // Each item commits on its own, as the contract says of a bulk without allornothing.
                const results: Row[] = [];
                for (const item of request.payload as Row[]) {
                    try {
                        results.push({ _responsemeta: { status: '201', Location: await createOne(request, item) } });
                    }
                    catch (err) {
                        results.push({ _responsemeta: { status: '400' }, _responsedata: { Error: { message: (err as Error).message, statusCode: '400' } } });
                    }
                }

                return results;
            }
        }
    ];
};
