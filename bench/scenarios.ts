import { encodeBase64Id } from '../src/structures/resource-id';
import { fileSize, fileText, UploadedFile, uploadHeaders } from './attachment-files';
import type { Target } from './load';
import { StatusPool } from './status-pool';


// What every scenario may draw on: ids and assets that exist in the generated data set.
export interface ScenarioData {
    workorders: number;
    memberIds: string[];
    updateIds: string[];
    assets: string[];
    queryPages: number;
    reportRows: number;
}

export interface ScenarioRequest {
    method: 'GET' | 'POST';
    path: string;
    headers?: Record<string, string>;
    body?: string;
}

export interface Expected {
    status: number;
    type?: RegExp;
    // Answers why the body is not what the scenario asks for, or undefined when it is.
    check?: (body: string) => string | undefined;
}

export interface Scenario {
    name: string;
    title: string;
    connections?: number;
    // Requests per measurement instead of a duration, for requests that take seconds.
    amount?: (bulkRequests: number) => number;
    // Rounds for requests so long that a short round would end with a large share of them cut off unanswered
    // (run.ts measures in --rounds alternating rounds).
    rounds?: number;
    timeoutSeconds?: number;
    // The issue sets a latency goal: measure Osprey's p50 at one connection too, where queueing behind the
    // other connections' requests does not multiply it.
    latencyGoal?: boolean;
    request: (data: ScenarioData, i: number) => ScenarioRequest;
    // Run (run.ts) before the scenario's first request, on the run's database: what its requests need to find there.
    // `osprey`: the server under test, for what is made through its API (an attachment to download).
    prepare?: (databaseUrl: string, osprey: Target) => Promise<void>;
    // A request of the scenario's shape that moves none of its state, for baseline (a): it answers a constant and
    // writes nothing, so it must not use up what `request` hands out (the status pools' turns).
    constantRequest?: (data: ScenarioData) => ScenarioRequest;
}

const collection = '/maximo/oslc/os/mxapiwodetail';
const json = /^application\/json/;

const query = (params: Record<string, string | number>) => Object.entries(params).map(([key, value]) => `${key}=${encodeURIComponent(String(value))}`).join('&');

const parsed = (body: string): any => {

    try {
        return JSON.parse(body);
    }
    catch {
        return undefined;
    }
};

const pageOf = (body: string, size = 100) => (parsed(body)?.member?.length === size ? undefined : `expected a page of ${size} members`);

// A spread of records over the whole data set, the same on every run.
export const scenarioData = (workorders: number, assets: string[]): ScenarioData => {

    const ids = (offset: number) => {

        return Array.from({ length: Math.min(1000, workorders) }, (_, i) => {

            const index = (i * 7919 + offset) % workorders;
            return encodeBase64Id([index % 2 ? 'NASHUA' : 'BEDFORD', String(1000 + index)]);
        });
    };

    return {
        workorders,
        memberIds: ids(0),
        updateIds: ids(1),
        assets,
        // About half the work orders of a site match the query's statuses; stay within the full pages.
        queryPages: Math.max(1, Math.min(10, Math.floor(workorders / 400))),
        reportRows: Math.min(10_000, workorders)
    };
};

// Shared with the hand-coded baseline, which answers the same page.
export const openStatuses = ['WAPPR', 'APPR', 'INPRG', 'WSCH', 'WMATL', 'COMP'];
export const querySelect = ['wonum', 'siteid', 'description', 'status', 'worktype', 'wopriority', 'reportdate', 'assetnum'];
export const reportColumns = ['wonum', 'siteid', 'description', 'status', 'worktype', 'assetnum', 'location'];

const pageQuery = (data: ScenarioData, i: number) => ({
    'oslc.where': `siteid="BEDFORD" and status in [${openStatuses.map((status) => `"${status}"`).join(',')}]`,
    'oslc.select': querySelect.join(','),
    'oslc.orderBy': '-wonum',
    'oslc.pageSize': 100,
    pageno: 1 + i % data.queryPages
});

const createBody = (data: ScenarioData, i: number) => ({ siteid: 'BEDFORD', description: `Bench create ${i}`, worktype: 'CM', wopriority: 1 + i % 5, assetnum: data.assets[i % data.assets.length] });

export const expectations: Record<string, Expected> = {
    member: { status: 200, type: json, check: (body) => (parsed(body)?.wonum ? undefined : 'expected a work order') },
    query: { status: 200, type: json, check: (body) => pageOf(body) },
    'query-count': { status: 200, type: json, check: (body) => (typeof parsed(body)?.responseInfo?.totalCount === 'number' ? pageOf(body) : 'expected responseInfo.totalCount') },
    count: { status: 200, type: json, check: (body) => (typeof parsed(body)?.totalCount === 'number' ? undefined : 'expected {"totalCount": N}') },
    children: { status: 200, type: json, check: (body) => (parsed(body)?.member?.some((member: any) => member.asset?.description && Array.isArray(member.woactivity)) ? pageOf(body) : 'expected members with asset.description and woactivity') },
    lookup: { status: 200, type: json, check: (body) => (parsed(body)?.member?.length ? undefined : 'expected a collection of assets') },
    report: { status: 200, type: /^text\/csv/ },
    create: { status: 201 },
    update: { status: 200, type: json, check: (body) => (parsed(body)?.description?.startsWith('Bench update') ? undefined : 'expected the updated record') },
    'status-patch': { status: 204 },
    'status-action': { status: 204 },
    bulk: { status: 200, type: json, check: (body) => (parsed(body)?.length === 1000 ? undefined : 'expected 1,000 results') },
    'attach-upload': { status: 201, type: json, check: (body) => (parsed(body)?.attachmentSize === fileSize ? undefined : `expected the meta of a document of ${fileSize} bytes`) },
    'attach-download': { status: 200, type: /^application\/octet-stream/, check: (body) => (body === fileText(fileSize) ? undefined : `expected the ${fileSize} bytes uploaded`) }
};

const patchHeaders = { 'content-type': 'application/json', 'x-method-override': 'PATCH' };

// A status change of the next work order of `pool` (status-pool.ts): every request a valid transition, whatever
// the run and however many requests came before. `action`: by wsmethod:changeStatus rather than a PATCH of status.
const statusChange = (name: string, title: string, pool: StatusPool, action: boolean): Scenario => {

    const request = ({ id, status }: { id: string; status: string }): ScenarioRequest => ({ method: 'POST', path: `${collection}/${id}${action ? '?action=wsmethod:changeStatus' : ''}`, headers: patchHeaders, body: JSON.stringify({ status }) });
    return { name, title, prepare: (databaseUrl) => pool.load(databaseUrl), request: () => request(pool.next()), constantRequest: () => request(pool.peek()) };
};

// The 1 MB file both attachment scenarios move: made once, the same bytes for every request and target.
let file: string | undefined;
const oneMegabyte = () => (file ??= fileText(fileSize));
const downloaded = new UploadedFile(fileSize, 'bench-download.bin');

// Reads first, writes last, so the reads see the generated data set as it is.
export const scenarios: Scenario[] = [
    {
        name: 'member',
        title: 'GET one work order by id',
        request: (data, i) => ({ method: 'GET', path: `${collection}/${data.memberIds[i % data.memberIds.length]}` })
    },
    {
        name: 'query',
        title: 'page of 100: oslc.where + oslc.select + oslc.orderBy',
        request: (data, i) => ({ method: 'GET', path: `${collection}?${query(pageQuery(data, i))}` })
    },
    {
        name: 'query-count',
        title: 'the same page with collectioncount=1',
        latencyGoal: true,
        request: (data, i) => ({ method: 'GET', path: `${collection}?${query({ ...pageQuery(data, i), collectioncount: 1 })}` })
    },
    {
        name: 'count',
        title: 'count=1 over all work orders',
        latencyGoal: true,
        request: () => ({ method: 'GET', path: `${collection}?count=1` })
    },
    {
        name: 'children',
        title: 'page of 100 with tasks and the asset\'s description',
        request: (data, i) => ({ method: 'GET', path: `${collection}?${query({ 'oslc.where': 'siteid="NASHUA"', 'oslc.select': 'wonum,description,asset.description,woactivity{taskid,description}', 'oslc.orderBy': '-wonum', 'oslc.pageSize': 100, pageno: 1 + i % data.queryPages })}` })
    },
    {
        name: 'lookup',
        title: 'lookup page: getlist~assetnum of a work order',
        request: (data, i) => ({ method: 'GET', path: `${collection}/${data.memberIds[i % data.memberIds.length]}/getlist~assetnum?${query({ 'oslc.select': 'assetnum,description', 'oslc.pageSize': 100 })}` })
    },
    {
        name: 'report',
        title: 'CSV report of 10,000 work orders',
        connections: 2,
        timeoutSeconds: 60,
        rounds: 1,
        request: (data) => ({ method: 'GET', path: `${collection}?${query({ action: 'genreport', reportname: 'woprint.rptdesign', reportformat: 'csv', 'oslc.where': `workorderid<=${data.reportRows}` })}` })
    },
    {
        name: 'create',
        title: 'create a work order (POST)',
        request: (data, i) => ({ method: 'POST', path: collection, headers: { 'content-type': 'application/json' }, body: JSON.stringify(createBody(data, i)) })
    },
    {
        name: 'update',
        title: 'update with a properties header (POST + x-method-override: PATCH)',
        request: (data, i) => ({ method: 'POST', path: `${collection}/${data.updateIds[i % data.updateIds.length]}`, headers: { 'content-type': 'application/json', 'x-method-override': 'PATCH', properties: 'wonum,description,status' }, body: JSON.stringify({ description: `Bench update ${i}` }) })
    },
    {
        name: 'attach-download',
        title: 'download of a 1 MB attachment (GET …/doclinks/{id})',
        prepare: async (_databaseUrl, osprey) => void await downloaded.upload(osprey, `${collection}/${encodeBase64Id(['BEDFORD', '1000'])}`),
        request: () => ({ method: 'GET', path: downloaded.path() })
    },
    {
        name: 'attach-upload',
        title: 'upload of a 1 MB attachment (POST …/doclinks, the file as the body)',
        request: (data, i) => ({ method: 'POST', path: `${collection}/${data.updateIds[i % data.updateIds.length]}/doclinks`, headers: uploadHeaders(`bench-${i}.bin`), body: oneMegabyte() })
    },
    statusChange('status-patch', 'status change by PATCH of status (POST + x-method-override: PATCH)', new StatusPool(0), false),
    statusChange('status-action', 'status change by ?action=wsmethod:changeStatus (POST + PATCH)', new StatusPool(1), true),
    {
        name: 'bulk',
        title: 'bulk of 1,000 creates (x-method-override: BULK)',
        connections: 2,
        timeoutSeconds: 120,
        rounds: 2,
        amount: (bulkRequests) => bulkRequests,
        request: (data, i) => ({ method: 'POST', path: collection, headers: { 'content-type': 'application/json', 'x-method-override': 'BULK' }, body: JSON.stringify(Array.from({ length: 1000 }, (_, j) => createBody(data, i * 1000 + j))) })
    }
];
