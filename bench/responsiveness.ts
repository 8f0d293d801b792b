import * as Http from 'node:http';

import { encodeBase64Id } from '../src/structures/resource-id';
import { attachmentWork } from './attachment-work';
import type { Goal } from './report';
import { watchRssSpan } from './rss';
import { reportColumns } from './scenarios';


// How long a health check waits while one long request runs (issue 18: SQLite runs statements on the event
// loop, so long work must give it turns). One long request — a bulk of 50,000 creates, a 50,000-row PDF
// report — runs on its own connection while another connection sends GET /maximo/health, one after the
// other, until it ends; the latencies of those checks are the measurement. Its goal is absolute
// (p99 < 100 ms), not a ratio: a baseline that blocks would only hide the problem.
//
// Issue 34 added the reads the default limits allow that cost the most (src/read/plan/cost.ts, README "Limits":
// 100 OR-ed LIKE terms, 32 OR-ed child terms, 50 search words over 2 attributes, a group-by of every row), each
// alone and the four at once, and a merge of 32,000 children into one work order. Those have a goal on the
// health checks' max too (< 250 ms), and the merge one on its time (< 3 s).
//
// Issue 36 added 50 MB transfers of an attachment (attachment-work.ts): the checks there start every 10 ms
// (sooner would measure the checks' own load on a server moving 50 MB), the server's resident memory is sampled
// every 20 ms before, during and after the transfer (goal: it grows by less than 64 MB), and one of them repeats a
// small write (a PATCH of a work order) instead of /health.

export interface ResponsivenessResult {
    name: string;
    title: string;
    /** The long request: its status and how long it took. */
    work: { status: number; seconds: number };
    /** The health checks answered while it ran. */
    health: { requests: number; p50: number; p99: number; max: number; errors: number };
    /** What was repeated beside the work, when it is not GET /maximo/health. */
    check?: string;
    /** The server's RSS in MB before, at the peak during, and right after the work, where it was watched. */
    rss?: { before: number; peak: number; after: number };
    /** MB the work moved, and MB/s. */
    transfer?: { mb: number; mbPerSecond: number };
}

export interface Request {
    method: 'GET' | 'POST';
    path: string;
    headers?: Record<string, string>;
    // A large body is a Buffer: a string of 50 MB is encoded on the harness's event loop as the request starts,
    // which held up its first health check by a second on the loaded 2-core machine.
    body?: string | Buffer;
}

export interface Long extends Request {
    name: string;
    title: string;
    /** Sent at the same time as the first, each on a connection of its own. */
    also?: readonly Request[];
    /** Goals beyond health p99 < 100 ms: health max below this, the work's time below this. */
    maxMs?: number;
    workSeconds?: number;
    /** Repeated beside the work instead of GET /maximo/health (sent with the run's authentication). */
    check?: Request & { label: string };
    /** A check starts at most this often (ms); by default each as soon as the one before answered. */
    everyMs?: number;
    /** Run before the work, out of its time: what it needs first (a document to download), or a body too large
     * to build whenever the list is read. Answers what to change in the request. */
    prepare?: (url: string, headers: Record<string, string>) => Promise<Partial<Request>>;
    /** Goal: the server's RSS grows by less than this (MB) from before the work to its peak; watched every 20 ms. */
    rssGrowthMb?: number;
    /** MB the work moves, for its throughput. */
    mb?: number;
}

const collection = '/maximo/oslc/os/mxapiwodetail';

const words = (n: number, from: number) => Array.from({ length: n }, (_, i) => `zq${from + i}`);

// `count=1` of work orders with a where of `n` OR-ed terms, each a LIKE on a word no row holds (every row read).
const likeTerms = (n: number, path: string) => words(n, 0).map((word) => `${path}="%${word}%"`).join(' or ');

const counted = (params: Record<string, string>): Request => ({ method: 'GET', path: `${collection}?count=1&${Object.entries(params).map(([key, value]) => `${key}=${encodeURIComponent(value)}`).join('&')}` });

// The worst reads the default limits allow (OSPREY_MAX_WHERE_TERMS 100, OSPREY_MAX_WHERE_JOINS 32).
const worstReads: (Request & { name: string; title: string })[] = [
    { name: 'health-like', title: '/health during count=1 of 100 OR-ed LIKE terms', ...counted({ 'oslc.where': likeTerms(100, 'description') }) },
    { name: 'health-child', title: '/health during count=1 of 32 OR-ed child LIKE terms', ...counted({ 'oslc.where': likeTerms(32, 'woactivity.description') }) },
    { name: 'health-search', title: '/health during count=1 of 50 search words over 2 attributes', ...counted({ 'oslc.searchTerms': words(50, 100).join(' '), searchAttributes: 'description,wonum' }) },
    {
        name: 'health-group',
        title: '/health during a group-by of every work order (gbcols=description,wonum, gbfilter count>1)',
        method: 'GET',
        path: `${collection}?gbcols=description,wonum,count.*&gbfilter=${encodeURIComponent('count>1')}`
    }
];

// A merge of `children` tasks into the first work order of the data set (BEDFORD 1000), with task ids no generated
// task has; the data set's reset deletes them after the run.
const merge = (children: number): Request => ({
    method: 'POST',
    path: `${collection}/${encodeBase64Id(['BEDFORD', '1000'])}`,
    headers: { 'content-type': 'application/json', 'x-method-override': 'PATCH', patchtype: 'MERGE' },
    body: JSON.stringify({ woactivity: Array.from({ length: children }, (_, i) => ({ taskid: 1_000_000 + i, description: `Bench merged task ${i}` })) })
});

export const longWork = (rows: number): Long[] => [
    {
        name: 'health-bulk',
        title: `/health during a bulk of ${rows.toLocaleString('en-US')} creates`,
        method: 'POST',
        path: collection,
        headers: { 'content-type': 'application/json', 'x-method-override': 'BULK' },
        body: JSON.stringify(Array.from({ length: rows }, (_, i) => ({ siteid: 'BEDFORD', description: `Bench long bulk ${i}`, worktype: 'CM' })))
    },
    {
        name: 'health-report',
        title: `/health during a ${rows.toLocaleString('en-US')}-row PDF report (${reportColumns.length} columns)`,
        method: 'GET',
        path: `${collection}?action=genreport&reportname=woprint.rptdesign&reportformat=pdf&oslc.where=${encodeURIComponent(`workorderid<=${rows}`)}`
    },
    ...worstReads.map((read) => ({ ...read, maxMs: 250 })),
    {
        ...worstReads[0]!,
        name: 'health-reads',
        title: '/health during the four reads above at once',
        also: worstReads.slice(1),
        maxMs: 250
    },
    {
        name: 'health-merge',
        title: `/health during a merge of ${Math.min(32_000, rows).toLocaleString('en-US')} children into one work order`,
        ...merge(Math.min(32_000, rows)),
        maxMs: 250,
        workSeconds: 3
    },
    ...attachmentWork
];

const percentile = (sorted: number[], p: number) => (sorted.length ? sorted[Math.min(sorted.length - 1, Math.ceil(p / 100 * sorted.length) - 1)]! : 0);
const round = (value: number) => Math.round(value * 100) / 100;

// One request on a connection of its own, its body read to the end.
const send = (url: string, long: Request, headers: Record<string, string>, agent: Http.Agent) => {

    return new Promise<number>((resolve, reject) => {

        const req = Http.request(url + long.path, { method: long.method, headers: { ...headers, ...long.headers }, agent }, (res) => {

            res.on('data', () => undefined);
            res.on('end', () => resolve(res.statusCode!));
            res.on('error', reject);
        });
        req.on('error', reject);
        req.end(long.body);
    });
};

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

// `pid`: the server's process, whose memory is watched during the work of a long request with an RSS goal.
export const measureResponsiveness = async (url: string, headers: Record<string, string>, long: Long, pid?: number): Promise<ResponsivenessResult> => {

    const requests = [{ ...long, ...await long.prepare?.(url, headers) }, ...long.also ?? []];
    const agents = [new Http.Agent({ keepAlive: true, maxSockets: 1 }), ...requests.map(() => new Http.Agent({ keepAlive: true, maxSockets: 1 }))] as const;
    try {
        const health: Request = long.check ?? { path: '/maximo/health', method: 'GET' };
        const checkHeaders = long.check ? headers : {};
        await send(url, health, checkHeaders, agents[0]);         // the health connection opened before the work starts
        const rss = pid !== undefined && long.rssGrowthMb !== undefined ? watchRssSpan(pid, 20) : undefined;
        const started = performance.now();
        let done = false;
        // The work's status: the first that is not a success, if any.
        const work = Promise.all(requests.map((request, i) => send(url, request, headers, agents[i + 1]!))).then((statuses) => statuses.find((status) => status < 200 || status > 299) ?? statuses[0]!).finally(() => {

            done = true;
        });
        const workDone = work.then(() => undefined, () => undefined);
        const latencies: number[] = [];
        let errors = 0;
        while (!done) {
            const from = performance.now();
            const status = await send(url, health, checkHeaders, agents[0]).catch(() => 0);
            latencies.push(performance.now() - from);
            errors += status >= 200 && status < 300 ? 0 : 1;
            if (long.everyMs !== undefined) {
                await Promise.race([pause(from + long.everyMs - performance.now()), workDone]);
            }
        }

        const status = await work;
        const seconds = (performance.now() - started) / 1000;
        const sorted = latencies.sort((a, b) => a - b);
        return {
            name: long.name,
            title: long.title,
            work: { status, seconds: round(seconds) },
            health: { requests: sorted.length, p50: round(percentile(sorted, 50)), p99: round(percentile(sorted, 99)), max: round(sorted.at(-1) ?? 0), errors },
            ...long.check ? { check: long.check.label } : {},
            ...rss ? { rss: rss.stop() } : {},
            ...long.mb ? { transfer: { mb: long.mb, mbPerSecond: round(long.mb / seconds) } } : {}
        };
    }
    finally {
        agents.forEach((agent) => agent.destroy());
    }
};

/** The long work was answered as asked: a merge answers 204 (no properties asked back). */
export const answered = (result: ResponsivenessResult): boolean => result.work.status >= 200 && result.work.status < 300;

const goalOf = (result: ResponsivenessResult): Goal => {

    const ok = answered(result) && result.health.errors === 0;
    const long = longWork(0).find((candidate) => candidate.name === result.name);
    const maxMs = long?.maxMs;
    const workSeconds = long?.workSeconds;
    const checks = result.check ?? 'health';
    return {
        goal: `${result.title}: ${checks} p99 < 100 ms${maxMs ? ` and max < ${maxMs} ms` : ''}${workSeconds ? `, the work < ${workSeconds} s` : ''}`,
        value: `p99 ${result.health.p99} ms, max ${result.health.max} ms over ${result.health.requests} ${result.check ? 'requests' : 'checks'}; the work answered ${result.work.status} in ${result.work.seconds} s`,
        met: ok && result.health.p99 < 100 && (!maxMs || result.health.max < maxMs) && (!workSeconds || result.work.seconds < workSeconds)
    };
};

const rssGoal = (result: ResponsivenessResult): Goal[] => {

    const limit = longWork(0).find((candidate) => candidate.name === result.name)?.rssGrowthMb;
    if (limit === undefined) {
        return [];
    }

    const rss = result.rss;
    return [{
        goal: `${result.title}: server RSS grows < ${limit} MB`,
        value: rss ? `+${rss.peak - rss.before} MB (${rss.before} MB before, peak ${rss.peak}, ${rss.after} after)` : 'not watched',
        met: rss ? answered(result) && rss.peak - rss.before < limit : null
    }];
};

export const responsivenessGoals = (results: readonly ResponsivenessResult[]): Goal[] => results.flatMap((result) => [goalOf(result), ...rssGoal(result)]);

const extra = (result: ResponsivenessResult) => {

    const notes = [...result.transfer ? [`${result.transfer.mbPerSecond} MB/s`] : [], ...result.rss ? [`RSS ${result.rss.before} → peak ${result.rss.peak} → ${result.rss.after} MB`] : []];
    return notes.map((text) => `; ${text}`).join('');
};

const tableRow = (result: ResponsivenessResult) => `| ${result.title} | ${result.health.requests}${result.check ? ` (${result.check})` : ''} | ${result.health.p50} | ${result.health.p99} | ${result.health.max} | ${result.work.status} in ${result.work.seconds} s${extra(result)} |`;

export const responsivenessTable = (results: readonly ResponsivenessResult[]): string => ['| while | health checks | p50 ms | p99 ms | max ms | the long request |', '|---|--:|--:|--:|--:|--:|', ...results.map(tableRow)].join('\n');
