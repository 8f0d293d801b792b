import { AsyncLocalStorage } from 'node:async_hooks';
import { performance } from 'node:perf_hooks';

import type * as Hapi from '@hapi/hapi';
import type { Knex } from 'knex';

import type { DriverClient } from '../db/db';
import type { Logger } from './logger';


interface Counting {
    requestId?: string | undefined;
    readonly statements: { count: number; ms: number };
}

const longest = 300;

// The listener's events hapi dispatches as requests.
const dispatched = new Set<string | symbol>(['request', 'checkContinue']);

// With OSPREY_LOG=debug only: every statement a request runs is a debug line (its SQL, never its values, which
// may be a password's digest or a key), and its request's count and time are on request.app.statements for the
// request's own debug line (request-log.ts). Statements go through the knex clients' _query (db.ts runRows, and
// knex's builders outside a knex transaction), wrapped here on the server's own clients; the request they belong
// to is followed through its asynchronous work. Off debug nothing is wrapped: no cost on the requests' path.
export const countStatements = (server: Hapi.Server, log: Logger, knexes: readonly Knex[]): void => {

    const storage = new AsyncLocalStorage<Counting>();
    for (const knex of new Set(knexes)) {
        const client = knex.client as DriverClient;
        const original = client._query.bind(client);
        client._query = async (connection, obj) => {

            const counting = storage.getStore();
            if (!counting) {
                return await original(connection, obj);
            }

            const start = performance.now();
            try {
                return await original(connection, obj);
            }
            finally {
                const ms = performance.now() - start;
                counting.statements.count++;
                counting.statements.ms += ms;
                log('debug', { msg: 'statement', requestId: counting.requestId, sqlMs: Math.round(ms * 100) / 100, sql: obj.sql.length > longest ? `${obj.sql.slice(0, longest)}…` : obj.sql });
            }
        };
    }

    // Each request runs in a context of its own from the moment it arrives: the listener's 'request' events (a
    // connection's request; hapi made its handler when the server was made) and the handlers hapi's core makes
    // for injected requests (server.inject, which plugins' server objects do not share) are wrapped. The
    // request's first step then names the context after it.
    const fresh = (): Counting => ({ statements: { count: 0, ms: 0 } });
    const listener = server.listener as unknown as { emit: (event: string | symbol, ...args: unknown[]) => boolean };
    const emit = listener.emit.bind(listener);
    listener.emit = (event, ...args) => (dispatched.has(event) ? storage.run(fresh(), () => emit(event, ...args)) : emit(event, ...args));
    type Dispatch = (options?: object) => (req: unknown, res: unknown) => void;
    const core = (server as unknown as { _core: { _dispatch: Dispatch } })._core;
    const dispatch = core._dispatch.bind(core);
    core._dispatch = (options) => {

        const handle = dispatch(options);
        return (req, res) => storage.run(fresh(), () => handle(req, res));
    };

    server.ext('onRequest', (request, h) => {

        const counting = storage.getStore()!;
        counting.requestId = request.app.requestId;
        request.app.statements = counting.statements;
        return h.continue;
    });
};
