import type { Knex } from 'knex';

import { ReadWorkers, type Ran, type Statement as WorkerStatement, type Together } from './read-workers';
import { allWithin } from './sqlite-deadline';
import { endOfTurn } from './turns';


// knex's better-sqlite3 client prepares every statement anew; preparing (parsing and planning the SQL) cost more
// than running it on a point read (18 % of a member GET's CPU in the benchmark profile). Osprey's statements
// repeat by shape — the same SQL text with other bindings — so each connection keeps its prepared statements by
// SQL text, least recently used dropped first. SQLite re-prepares a cached statement by itself when the schema
// changes under it, so a cached statement never runs a stale plan.

interface Statement {
    readonly reader: boolean;
    readonly readonly: boolean;
    get: () => unknown;
    all: (bindings: unknown[]) => unknown[];
    run: (bindings: unknown[]) => { lastInsertRowid: number | bigint; changes: number };
}

interface Connection {
    readonly inTransaction: boolean;
    prepare: (sql: string) => Statement;
}

interface QueryObject {
    sql?: string;
    bindings?: unknown[];
    options?: { safeIntegers?: unknown };
    response?: unknown;
    context?: { lastID: number | bigint; changes: number };
    /** A statement Osprey made for a point read (db.ts runRows): it stays on the event loop. */
    point?: boolean;
    /** Statements that must see one committed state with this one (read-workers.ts). */
    together?: Together;
}

interface BaseClient {
    connectionSettings: { filename: string };
    destroy(callback?: unknown): Promise<void>;
    acquireConnection(): Promise<Connection>;
    releaseConnection(connection: Connection): Promise<void>;
    acquireRawConnection(): Promise<Connection>;
    destroyRawConnection(connection: Connection): Promise<void>;
    _formatBindings(bindings: unknown[] | undefined): unknown[];
    _query(connection: Connection, obj: QueryObject): Promise<QueryObject>;
}

export const statementCacheSize = 500;

// Reads the workers found cheap (see `#single` below): how many runs in a row, under how long, and how many
// statements are remembered.
export const cheapRuns = 3;
export const cheapMs = 1;
const cheapKept = 1000;
const longestCheapKey = 2000;

// A statement with its bindings, or undefined for one too long to remember (or bindings JSON cannot spell).
const cheapKey = (statement: { readonly sql: string; readonly bindings: readonly unknown[] }): string | undefined => {

    let bindings: string;
    try {
        bindings = JSON.stringify(statement.bindings);
    }
    catch {
        return undefined;
    }

    const key = `${statement.sql}\u0000${bindings}`;
    return key.length > longestCheapKey ? undefined : key;
};

// Statements that begin or end a transaction: never sent to the read workers.
const transactionControl = /^\s*(?:begin|commit|end|rollback|savepoint|release)\b/i;

interface Cached {
    readonly statement: Statement;
}

const caches = new WeakMap<Connection, Map<string, Cached>>();

const cachedStatement = (connection: Connection, sql: string): Cached => {

    let cache = caches.get(connection);
    if (!cache) {
        cache = new Map();
        caches.set(connection, cache);
    }

    let cached = cache.get(sql);
    if (cached) {
        cache.delete(sql);                                  // re-inserted below: the Map's order is recency
    }
    else {
        cached = { statement: connection.prepare(sql) };
        if (cache.size >= statementCacheSize) {
            cache.delete(cache.keys().next().value!);
        }
    }

    cache.set(sql, cached);
    return cached;
};

export const preparedStatement = (connection: Connection, sql: string): Statement => cachedStatement(connection, sql).statement;

// The knex client class: knex's own, with `_query` running cached statements. Statements that set per-query
// options (safeIntegers) are left to knex, because those options change the statement object.
//
// A read outside a transaction runs under the statement timeout, `timeoutMs` (sqlite-deadline.ts).
//
// On the read-only client every statement outside a transaction runs on a worker thread (read-workers.ts), save
// the point reads Osprey makes itself (a record by its key, the rows linked to a page's records: db.ts runRows
// marks them), which cost less than the trip to a worker and back: a statement whose cost follows what a client
// sends — a page, a count, a group-by, a report's batch, whatever a plugin builds — never holds the event loop.
//
// A read-only client (`readOnly`, the readers beside the writer: knex.ts) also lends its connection for reads
// without the pool (`directConnection`): better-sqlite3 runs a statement from start to end on the event loop,
// and a read-only connection never holds a transaction open between them, so statements that take turns on it
// cannot see one another. Taking a connection from the pool and giving it back cost more CPU than a point read.
export const cachingSqliteClient = (timeoutMs = 0, readOnly = false): typeof Knex.Client => {

    const Base = require('knex/lib/dialects/better-sqlite3') as new (...args: unknown[]) => BaseClient;

    const Client = class extends Base {

        readonly connections = new Set<Connection>();

        // Started with the first read that needs them, ended with the knex (destroy).
        #workers: ReadWorkers | undefined;
        #destroyed = false;

        readonly offLoop = readOnly;

        runOffLoop(statements: readonly WorkerStatement[]): Promise<Ran> {

            if (this.#destroyed) {
                return Promise.reject(new Error('The SQLite readers are destroyed.'));
            }

            this.#workers ??= new ReadWorkers({ filename: this.connectionSettings.filename, timeoutMs, cacheSize: statementCacheSize });
            return this.#workers.run(statements);
        }

        /** The read workers, once started (for the tests). */
        get workers(): ReadWorkers | undefined {

            return this.#workers;
        }

        // A statement the workers ran `cheapRuns` times in a row, with the same bindings, in under `cheapMs`
        // each, runs on the event loop from then on, timed there too, and goes back to the workers the first
        // time it takes longer: a read that repeats and costs less than the trip to a worker (count=1 of all
        // work orders took 28 µs, the trip 40–65 µs of CPU and a wake-up of two threads) does not pay for the
        // trip, and one that becomes costly holds the loop once, for one statement that was cheap.
        readonly #cheap = new Map<string, number>();

        async #single(statement: WorkerStatement): Promise<unknown> {

            const key = cheapKey(statement);
            if (key !== undefined && this.#cheap.get(key)! >= cheapRuns) {
                // At the end of the turn, with the other reads of the turn (turns.ts), on the connection lent to
                // reads, or one of the pool's until one is lent.
                await endOfTurn();
                const direct = this.directConnection();
                if (direct) {
                    return this.#onLoop(direct, statement, key);
                }

                const pooled = await this.acquireConnection();
                try {
                    return this.#onLoop(pooled, statement, key);
                }
                finally {
                    await this.releaseConnection(pooled);
                }
            }

            const { results, ms } = await this.runOffLoop([statement]);
            if (key !== undefined) {
                if (ms < cheapMs) {
                    if (this.#cheap.size >= cheapKept) {
                        this.#cheap.clear();
                    }

                    this.#cheap.set(key, (this.#cheap.get(key) ?? 0) + 1);
                }
                else {
                    this.#cheap.delete(key);
                }
            }

            return results[0];
        }

        #onLoop(connection: Connection, statement: WorkerStatement, key: string): unknown {

            const { statement: prepared } = cachedStatement(connection, statement.sql);
            const started = performance.now();
            try {
                return prepared.reader ? allWithin(timeoutMs, prepared, statement.bindings as unknown[]) : prepared.run(statement.bindings as unknown[]);
            }
            finally {
                if (performance.now() - started >= cheapMs) {
                    this.#cheap.delete(key);
                }
            }
        }

        override async destroy(callback?: unknown): Promise<void> {

            this.#destroyed = true;
            const workers = this.#workers;
            this.#workers = undefined;
            await workers?.stop();
            return await super.destroy(callback);
        }

        override async acquireRawConnection(): Promise<Connection> {

            const connection = await super.acquireRawConnection();
            this.connections.add(connection);
            return connection;
        }

        override async destroyRawConnection(connection: Connection): Promise<void> {

            this.connections.delete(connection);
            await super.destroyRawConnection(connection);
        }

        // Lent only once the pool has handed it out (so knex's afterCreate has set its pragmas and functions),
        // and never while a transaction is open on it (a plugin's, through the readers' knex).
        readonly #ready = new WeakSet<Connection>();

        override async acquireConnection(): Promise<Connection> {

            const connection = await super.acquireConnection();
            this.#ready.add(connection);
            return connection;
        }

        directConnection(): Connection | undefined {

            if (!readOnly) {
                return undefined;
            }

            for (const connection of this.connections) {
                if (this.#ready.has(connection) && !connection.inTransaction) {
                    return connection;
                }
            }

            return undefined;
        }

        override async _query(connection: Connection, obj: QueryObject): Promise<QueryObject> {

            if (!obj.sql || obj.options?.safeIntegers !== undefined) {
                return await super._query(connection, obj);
            }

            if (readOnly && !obj.point && !connection.inTransaction && !transactionControl.test(obj.sql)) {
                const statement = { sql: obj.sql, bindings: this._formatBindings(obj.bindings) };
                const response = obj.together ? await obj.together.join(statement, (statements) => this.runOffLoop(statements)) : await this.#single(statement);
                obj.response = response;
                if (!Array.isArray(response)) {
                    const { lastInsertRowid, changes } = response as { lastInsertRowid: number | bigint; changes: number };
                    obj.context = { lastID: lastInsertRowid, changes };
                }

                return obj;
            }

            const { statement } = cachedStatement(connection, obj.sql);
            const bindings = this._formatBindings(obj.bindings);

            if (statement.reader) {
                obj.response = allWithin(connection.inTransaction ? 0 : timeoutMs, statement, bindings);
                return obj;
            }

            const response = statement.run(bindings);
            obj.response = response;
            obj.context = { lastID: response.lastInsertRowid, changes: response.changes };
            return obj;
        }
    };

    return Client as unknown as typeof Knex.Client;
};

// A connection that reads may use without taking it from the pool, where there is one (see above).
export const directConnection = (client: object): object | undefined => (client as { directConnection?: () => object | undefined }).directConnection?.();

// Whether the client runs reads on worker threads (the readers of a SQLite file: see above).
export const runsOffLoop = (client: object): boolean => (client as { offLoop?: boolean }).offLoop === true;

// What a read run off the event loop is handed as its connection: it touches none of the pool's.
export const offLoopConnection: object = Object.freeze({ inTransaction: false });

// The read workers of a client, once started (for the tests).
export const readWorkersOf = (client: object): ReadWorkers | undefined => (client as { workers?: ReadWorkers }).workers;
