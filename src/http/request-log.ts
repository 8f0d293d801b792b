import * as Crypto from 'node:crypto';

import type * as Hapi from '@hapi/hapi';

import { header } from './headers';


const levels = { silent: 0, error: 1, info: 2, debug: 3 } as const;

export type Logger = (level: 'error' | 'info' | 'debug', event: Record<string, unknown>) => void;

// One JSON line per event on stdout, so log shippers can parse it.
export const createLogger = (level: keyof typeof levels, write: (line: string) => void = (line) => process.stdout.write(line + '\n')): Logger => {

    return (eventLevel, event) => {

        if (levels[eventLevel] <= levels[level]) {
            write(JSON.stringify({ time: new Date().toISOString(), level: eventLevel, ...event }));
        }
    };
};

const validRequestId = /^[\w.:-]{1,100}$/;

// Every request gets an id: the caller's x-request-id when it is sane, else a new one; it is echoed back and
// written in the request's log line, so a client's report can be matched to the server log.
export const requestLogging = (server: Hapi.Server, log: Logger): void => {

    server.ext('onRequest', (request, h) => {

        const incoming = header(request, 'x-request-id');
        request.app.requestId = incoming && validRequestId.test(incoming) ? incoming : Crypto.randomUUID();
        return h.continue;
    });

    server.ext('onPreResponse', (request, h) => {

        const response = request.response;
        if ('isBoom' in response && response.isBoom) {
            response.output.headers['x-request-id'] = request.app.requestId!;
        }
        else {
            (response as Hapi.ResponseObject).header('x-request-id', request.app.requestId!);
        }

        return h.continue;
    });

    server.events.on('response', (request) => {

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
    });

    server.events.on({ name: 'request', channels: 'app' }, (request, event) => {

        if (event.tags.includes('error')) {
            log('error', { msg: 'internal error', requestId: request.app.requestId, error: event.data });
        }
    });
};
