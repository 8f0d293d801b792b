import * as Path from 'node:path';

import type * as Hapi from '@hapi/hapi';

import { requestLogging } from '../src/http/request-log';
import { loadRegistry } from '../src/load-registry';
import { createLogger, type Logger } from '../src/log/logger';


// The cost of one request's log line, before and after the pino logger (issue 37): the 'response' handler of
// each, called many times in one process on the same request, alternately, median of several runs. Usage:
//   npx tsc -p . && node dist/bench/log-line.js [calls per run] [runs] > /dev/null
// (results go to stderr). "sink": lines handed to a writer that keeps nothing (the formatting alone); "stdout":
// written to standard output (redirected to /dev/null: the write itself too).

type Handler = (request: Hapi.Request) => void;

// The handler as it was (src/http/request-log.ts before the change): JSON.stringify of fewer fields.
const oldLogger = (write: (line: string) => void) => {

    return (level: string, event: Record<string, unknown>) => {

        if (level !== 'debug') {
            write(JSON.stringify({ time: new Date().toISOString(), level, ...event }));
        }
    };
};

const oldHandler = (log: (level: string, event: Record<string, unknown>) => void): Handler => {

    return (request) => {

        const response = request.response as Hapi.ResponseObject | null;
        const status = response?.statusCode;
        log(status && status >= 500 ? 'error' : 'info', {
            msg: 'request',
            requestId: request.app.requestId,
            method: request.method.toUpperCase(),
            path: request.path,
            status,
            ms: Date.now() - request.info.received,
            user: request.auth.credentials?.user?.userid
        });
    };
};

// The handler as it is: registered on a stand-in server that only keeps it.
const newHandler = (log: Logger): Handler => {

    let handler: Handler | undefined;
    const server = {
        app: { osprey: { options: { trustProxy: 0 } } },
        events: {
            on: (name: unknown, listener: Handler) => {

                handler = name === 'response' ? listener : handler;
            }
        }
    };
    requestLogging(server as unknown as Hapi.Server, log, loadRegistry(Path.join(__dirname, '..', '..', 'structures')));
    return handler!;
};

const url = '/maximo/oslc/os/mxapiwodetail?oslc.select=wonum,description,status&oslc.where=status%3D%22WAPPR%22&lean=1';
const request = {
    app: { requestId: 'f3b0c442-98fc-4c1c-b9a1-2d7e3b5c6a10' },
    method: 'get',
    path: '/maximo/oslc/os/mxapiwodetail',
    raw: { req: { url } },
    headers: {},
    response: { statusCode: 200, source: null },
    info: { received: Date.now(), remoteAddress: '127.0.0.1' },
    auth: { credentials: { user: { userid: 'WILSON' } } }
} as unknown as Hapi.Request;

const calls = Number(process.argv[2] ?? 200_000);
const runs = Number(process.argv[3] ?? 7);

// CPU time of this process (user and system), not wall time: on a shared machine other processes' load moves
// the wall time far more than the work measured.
const nsPerCall = (handler: Handler) => {

    const start = process.cpuUsage();
    for (let i = 0; i < calls; ++i) {
        handler(request);
    }

    const used = process.cpuUsage(start);
    return (used.user + used.system) * 1000 / calls;
};

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

const sink = { write: (_line: string) => undefined };
const handlers: Record<string, Handler> = {
    'old, sink': oldHandler(oldLogger(sink.write)),
    'new, sink': newHandler(createLogger('info', { format: 'json', destination: sink })),
    'old, stdout': oldHandler(oldLogger((line) => process.stdout.write(line + '\n'))),
    'new, stdout': newHandler(createLogger('info', { format: 'json' }))
};

const times: Record<string, number[]> = Object.fromEntries(Object.keys(handlers).map((name) => [name, []]));
for (const handler of Object.values(handlers)) {
    nsPerCall(handler);                         // warm up
}

for (let i = 0; i < runs; ++i) {
    for (const [name, handler] of Object.entries(handlers)) {
        times[name]!.push(nsPerCall(handler));
    }
}

for (const [name, list] of Object.entries(times)) {
    process.stderr.write(`${name.padEnd(12)} median ${median(list).toFixed(0)} ns per line (runs: ${list.map((value) => value.toFixed(0)).join(', ')})\n`);
}
