import * as Fs from 'node:fs';
import { performance } from 'node:perf_hooks';
import * as V8 from 'node:v8';

import type * as Hapi from '@hapi/hapi';

import { homeHref, maximoError, notProvided, unservedMetric, type UserProfile } from '../../src';


// The Maximo Management Interface (MMI) of a node: GET {home}/mmi lists the metrics this node measures, and
// GET {home}/members/{id}/{metric} answers one of them for the node that answers the request (its member id, or
// `thisserver`). Maximo guards these APIs with signature options of its Logging application; Osprey keeps them to
// administrators, and answers no connection string, host, file path or credential in them.

interface Metric {
    readonly description: string;
    readonly measure: (request: Hapi.Request) => Promise<Record<string, unknown>> | Record<string, unknown>;
}

const megabytes = (bytes: number) => Math.round(bytes / 104857.6) / 10;

// As Maximo's pingdb runs recent queries and averages them, this runs a statement that reads nothing ten times.
const pings = 10;

const pingDb = async (request: Hapi.Request): Promise<Record<string, unknown>> => {

    const knex = request.server.app.osprey.knex;
    const times: number[] = [];
    try {
        for (let i = 0; i < pings; ++i) {
            const start = performance.now();
            await knex.raw('select 1');
            times.push(performance.now() - start);
        }
    }
    catch (error) {
        // The cause (a host, a user name) is the log's, not the answer's.
        request.log(['error'], { message: `pingdb: ${(error as Error).message}` });
        return { status: 'DOWN', statement: 'select 1', runs: times.length };
    }

    const round = (ms: number) => Math.round(ms * 1000) / 1000;
    return { status: 'OK', statement: 'select 1', runs: pings, averageResponseTimeMs: round(times.reduce((sum, ms) => sum + ms, 0) / pings), maxResponseTimeMs: round(Math.max(...times)) };
};

interface Pool {
    min: number;
    max: number;
    numUsed(): number;
    numFree(): number;
    numPendingAcquires(): number;
}

const driverVersion = (name: string): string => (JSON.parse(Fs.readFileSync(require.resolve(`${name}/package.json`), 'utf8')) as { version: string }).version;

const dbInfo = (request: Hapi.Request): Record<string, unknown> => {

    const osprey = request.server.app.osprey;
    const driver = osprey.kind === 'postgresql' ? 'pg' : osprey.options.sqliteDriver;
    const pool = (osprey.knex.client as { pool: Pool }).pool;
    return {
        databaseKind: osprey.kind,
        databaseProductName: osprey.kind === 'sqlite' ? 'SQLite' : 'PostgreSQL',
        databaseProductVersion: osprey.databaseVersion,
        driverName: driver,
        driverVersion: driverVersion(driver),
        connectionPool: { min: pool.min, max: pool.max, inUse: pool.numUsed(), free: pool.numFree(), waiting: pool.numPendingAcquires() }
    };
};

// Java's heap is V8's; Node has no non-heap pool of the JVM's kind, so the rest is named as Node counts it.
const memory = (): Record<string, unknown> => {

    const usage = process.memoryUsage();
    return {
        unit: 'MB',
        heapMemoryUsage: { used: megabytes(usage.heapUsed), committed: megabytes(usage.heapTotal), max: megabytes(V8.getHeapStatistics().heap_size_limit) },
        external: megabytes(usage.external),
        arrayBuffers: megabytes(usage.arrayBuffers),
        residentSetSize: megabytes(usage.rss)
    };
};

// The operating system's count of the process's threads (Linux); undefined where /proc does not say.
const osThreads = (): number | undefined => {

    const status = Fs.existsSync('/proc/self/status') ? Fs.readFileSync('/proc/self/status', 'utf8') : '';
    const match = /^Threads:\s+(\d+)$/m.exec(status);
    return match ? Number(match[1]) : undefined;
};

const threads = (): Record<string, unknown> => {

    const count = osThreads();
    return {
        model: 'Node.js runs every request on one JavaScript thread (an event loop) and waits for I/O without blocking it; libuv runs file, DNS and some crypto work on a thread pool, and V8 compiles and collects garbage on threads of its own. Osprey starts no worker threads, so no request waits on a lock of another',
        javascriptThreads: 1,
        threadPoolSize: Number(process.env.UV_THREADPOOL_SIZE) || 4,
        ...(count === undefined ? {} : { threadCount: count }),
        eventLoopUtilization: Math.round(performance.eventLoopUtilization().utilization * 1000) / 1000,
        deadlockedThreadCount: 0
    };
};

const metrics: Readonly<Record<string, Metric>> = {
    pingdb: { description: 'Runs a statement that reads nothing ten times and answers the average and longest response time', measure: pingDb },
    dbinfo: { description: 'The database kind and version, the driver, and the connection pool', measure: dbInfo },
    memory: { description: 'The V8 heap and the process\'s other memory, in MB', measure: memory },
    threads: { description: 'How Node.js runs the server on threads, and how busy its event loop has been', measure: threads }
};

const requireAdmin = (request: Hapi.Request): void => {

    const user = request.auth.credentials.user as UserProfile;
    if (!user.isAdmin) {
        throw maximoError('forbidden', `User ${user.userid} is not authorized to use the Maximo Management Interface: it is kept to administrators.`);
    }
};

const home = (request: Hapi.Request) => homeHref(request, request.server.app.osprey.options.contextRoot);

// GET {home}/mmi: what this node measures, with the href of each metric for it.
export const mmi = (request: Hapi.Request) => {

    requireAdmin(request);
    const base = home(request);
    const id = request.server.app.osprey.members.id;
    return {
        href: `${base}/mmi`,
        members: { href: `${base}/members` },
        thisserver: { href: `${base}/members/${id}` },
        member: Object.entries(metrics).map(([name, metric]) => ({ name, description: metric.description, href: `${base}/members/${id}/${name}` }))
    };
};

// GET {home}/members/{id}/{metric}: a metric of the node that answers. Another live node is measured where it runs.
export const memberMetric = async (request: Hapi.Request): Promise<Record<string, unknown>> => {

    requireAdmin(request);
    const osprey = request.server.app.osprey;
    const name = String(request.params.metric).toLowerCase();
    const metric = Object.hasOwn(metrics, name) ? metrics[name] : undefined;
    if (!metric) {
        const unserved = unservedMetric(name);
        throw unserved ? notProvided(unserved) : maximoError('routeNotFound', `${name} is not a metric of the Maximo Management Interface; ${Object.keys(metrics).join(', ')} are measured (GET {home}/mmi lists them).`);
    }

    const asked = String(request.params.id);
    const id = asked.toLowerCase() === 'thisserver' ? osprey.members.id : asked;
    if (id !== osprey.members.id) {
        const live = (await osprey.members.list()).some((item) => item.id === id);
        if (!live) {
            throw maximoError('notFound', `The server member ${asked} is not live.`);
        }

        throw notProvided({ service: `the ${name} metric of another node (member ${id})`, why: `a node measures itself only: ask that node for members/thisserver/${name}` });
    }

    const href = `${home(request)}/members/${id}/${name}`;
    return { href, member: id, ...await metric.measure(request) };
};
