import * as Http from 'node:http';

import type { Goal } from './report';
import { reportColumns } from './scenarios';


// How long a health check waits while one long request runs (issue 18: SQLite runs statements on the event
// loop, so long work must give it turns). One long request — a bulk of 50,000 creates, a 50,000-row PDF
// report — runs on its own connection while another connection sends GET /maximo/health, one after the
// other, until it ends; the latencies of those checks are the measurement. Its goal is absolute
// (p99 < 100 ms), not a ratio: a baseline that blocks would only hide the problem.

export interface ResponsivenessResult {
    name: string;
    title: string;
    /** The long request: its status and how long it took. */
    work: { status: number; seconds: number };
    /** The health checks answered while it ran. */
    health: { requests: number; p50: number; p99: number; max: number; errors: number };
}

interface Long {
    name: string;
    title: string;
    method: 'GET' | 'POST';
    path: string;
    headers?: Record<string, string>;
    body?: string;
}

const collection = '/maximo/oslc/os/mxapiwodetail';

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
    }
];

const percentile = (sorted: number[], p: number) => (sorted.length ? sorted[Math.min(sorted.length - 1, Math.ceil(p / 100 * sorted.length) - 1)]! : 0);
const round = (value: number) => Math.round(value * 100) / 100;

// One request on a connection of its own, its body read to the end.
const send = (url: string, long: Long, headers: Record<string, string>, agent: Http.Agent) => {

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

export const measureResponsiveness = async (url: string, headers: Record<string, string>, long: Long): Promise<ResponsivenessResult> => {

    const agents = [new Http.Agent({ keepAlive: true, maxSockets: 1 }), new Http.Agent({ keepAlive: true, maxSockets: 1 })] as const;
    try {
        const health = { path: '/maximo/health', method: 'GET' as const, name: 'health', title: '' };
        await send(url, health, {}, agents[1]);         // the health connection opened before the work starts
        const started = performance.now();
        let done = false;
        const work = send(url, long, headers, agents[0]).finally(() => {

            done = true;
        });
        const latencies: number[] = [];
        let errors = 0;
        while (!done) {
            const from = performance.now();
            const status = await send(url, health, {}, agents[1]).catch(() => 0);
            latencies.push(performance.now() - from);
            errors += status === 200 ? 0 : 1;
        }

        const status = await work;
        const sorted = latencies.sort((a, b) => a - b);
        return {
            name: long.name,
            title: long.title,
            work: { status, seconds: round((performance.now() - started) / 1000) },
            health: { requests: sorted.length, p50: round(percentile(sorted, 50)), p99: round(percentile(sorted, 99)), max: round(sorted.at(-1) ?? 0), errors }
        };
    }
    finally {
        agents.forEach((agent) => agent.destroy());
    }
};

export const responsivenessGoals = (results: readonly ResponsivenessResult[]): Goal[] => {

    return results.map((result) => {

        const ok = result.work.status === 200 && result.health.errors === 0;
        return {
            goal: `${result.title}: health p99 < 100 ms`,
            value: `p99 ${result.health.p99} ms, max ${result.health.max} ms over ${result.health.requests} checks; the work answered ${result.work.status} in ${result.work.seconds} s`,
            met: ok && result.health.p99 < 100
        };
    });
};

export const responsivenessTable = (results: readonly ResponsivenessResult[]): string => {

    return [
        '| while | health checks | p50 ms | p99 ms | max ms | the long request |',
        '|---|--:|--:|--:|--:|--:|',
        ...results.map((result) => `| ${result.title} | ${result.health.requests} | ${result.health.p50} | ${result.health.p99} | ${result.health.max} | ${result.work.status} in ${result.work.seconds} s |`)
    ].join('\n');
};
