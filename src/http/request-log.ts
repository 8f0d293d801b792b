import * as Crypto from 'node:crypto';

import type * as Hapi from '@hapi/hapi';

import type { MaximoErrorBody } from '../errors/edge';
import { logs, type Logger } from '../log/logger';
import type { Registry } from '../structures/registry';
import { clientAddress } from './client-address';
import { header } from './headers';
import { queryRedactor } from './redact-query';


export { createLogger, type Logger } from '../log/logger';

const validRequestId = /^[\w.:-]{1,100}$/;

// Every request gets an id: the caller's x-request-id when it is sane, else a new one; it is echoed back and
// written in the request's log line, so a client's report can be matched to the server log. Called by the first
// step of every request (request-edge.ts); the header goes on the raw response at once, as the security headers
// do, so that every answer carries it, errors included. It had an onRequest and an onPreResponse step of its own,
// the second setting it through hapi's response.header: 4.0–5.6 µs of a count's 80–89 µs of CPU, most of it that
// work rather than the steps themselves (merging two other pairs of steps measured no difference).
export const assignRequestId = (request: Hapi.Request): void => {

    const incoming = header(request, 'x-request-id');
    const id = incoming && validRequestId.test(incoming) ? incoming : Crypto.randomUUID();
    request.app.requestId = id;
    request.raw.res.setHeader('x-request-id', id);
};

// The Maximo reason code an error was answered with (errors/edge.ts made its body), e.g. BMXAA7901E.
const reasonOf = (response: Hapi.ResponseObject): string | undefined => {

    const source = response.source as MaximoErrorBody | null;
    return source !== null && typeof source === 'object' ? source.Error?.reasonCode : undefined;
};

// The request's log line when it is answered, and the errors hapi reports of it and of the server. The line reads
// only what the request already holds (its raw URL, not the URL object hapi would build for it) and skips the
// query's redaction for a query that names no secret.
export const requestLogging = (server: Hapi.Server, log: Logger, registry: Registry): void => {

    const redact = queryRedactor(registry);
    const trustProxy = server.app.osprey.options.trustProxy;
    const debug = logs(log, 'debug');
    server.events.on('response', (request) => {

        const response = request.response as Hapi.ResponseObject | null;
        const status = response?.statusCode;
        const raw = request.raw.req.url!;                 // a server's request always has its target
        const mark = raw.indexOf('?');
        const line: Record<string, unknown> = {
            msg: 'request',
            requestId: request.app.requestId,
            method: request.method.toUpperCase(),
            path: mark < 0 ? request.path : `${request.path}?${redact(raw.slice(mark + 1))}`,
            status,
            ms: Date.now() - request.info.received,
            user: request.auth.credentials?.user?.userid,
            client: clientAddress(request, trustProxy)
        };
        // No status: the client left before its answer.
        if (status! >= 400) {
            line.reasonCode = reasonOf(response!);
        }

        log(status! >= 500 ? 'error' : 'info', line);
        if (debug) {
            const statements = request.app.statements!;         // every request's, at debug (src/log/statements.ts)
            log('debug', { msg: 'request statements', requestId: request.app.requestId, statements: statements.count, sqlMs: Math.round(statements.ms * 10) / 10 });
        }
    });

    server.events.on({ name: 'request', channels: 'app' }, (request, event) => {

        if (event.tags.includes('error')) {
            log('error', { msg: 'internal error', requestId: request.app.requestId, error: event.data });
        }
    });

    // What the server's own work reports (checkpoints, statistics, after-commit subscribers, the sweeper). A client's
    // connection error (hapi tags it `client`: a reset, a socket closed mid-request, bytes that are not HTTP) is the
    // client's doing, not the server's: a debug line, not an error.
    server.events.on('log', (event) => {

        if (event.tags.includes('client')) {
            const error = event.error ?? event.data;
            log('debug', { msg: 'client connection error', error: error instanceof Error ? { message: error.message, code: (error as NodeJS.ErrnoException).code } : error });
            return;
        }

        if (event.tags.includes('error')) {
            const error = event.error ?? event.data;
            log('error', { msg: 'server error', tags: event.tags.filter((tag) => tag !== 'error'), error: error instanceof Error ? { message: error.message, stack: error.stack } : error });
        }
    });
};
