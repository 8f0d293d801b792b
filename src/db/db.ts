import * as Crypto from 'node:crypto';

import type { Knex } from 'knex';

import { maximoError } from '../errors/maximo-error';
import { isPostgres, type DatabaseKind } from './knex';
import { remember } from './remember';
import { storesAsBound, storesAsWritten } from './rewrites';
import type { Together } from './read-workers';
import { directConnection, offLoopConnection, runsOffLoop } from './sqlite-client';
import { endOfTurn } from './turns';


export type Row = Record<string, unknown>;

// Where a request's statements run: `poolDb` takes a connection from the pool for each statement, the `Db` of
// a transaction (transaction.ts) runs every statement on the transaction's connection. Statements whose SQL
// is made once per shape (statements.ts, lookups) go straight to the driver through the knex client's own
// `_query` — the caching SQLite client's prepared statements, or the notifying PostgreSQL client — without
// knex's runner, which cost more CPU than the statements of a point read or a write (README, Performance).
// Everything else is a knex query builder that runs where the Db runs.
export interface Db {
    /** A knex whose statements run where this Db runs: the pool's, or the transaction's connection. */
    readonly knex: Knex;
    readonly kind: DatabaseKind;
    /** A query builder whose statement runs where this Db runs. */
    query(table: string | Record<string, string>): Knex.QueryBuilder;
    /** The rows of SQL text made once per shape, with `?` placeholders; none for a statement without rows.
     * Outside a transaction the statement runs at the end of the turn of the event loop it is asked for in
     * (SQLite's readers), or its answer is handed back at the end of the turn it arrives in (elsewhere):
     * src/db/turns.ts. A sequence of awaited statements therefore takes a turn each.
     * `shapes: 'client'`: the shape follows what a client sends (a where), so it is not kept as a named
     * statement on PostgreSQL (see runRows). */
    rows(sql: string, bindings?: readonly Knex.Value[], options?: RowsOptions): Promise<Row[]>;
    /** The connection of a transaction's Db, which every statement runs on; none on the pool. */
    readonly connection?: Connection;
    /** Whether an update of this table stores exactly the values it sets (no trigger, rule or generated column
     * of the database changes more of the row): rewrites.ts. */
    storesAsWritten(table: string): boolean;
    /** Whether an update of this table stores each of these values as the value it is read back as (SQLite's
     * column affinity changes none of them): rewrites.ts. Always false on PostgreSQL. */
    storesAsBound(table: string, values: Readonly<Record<string, unknown>>): boolean;
    /** Runs SQL text made once per shape that returns no rows (an update without `returning`), and answers how
     * many rows it changed. */
    changes(sql: string, bindings?: readonly Knex.Value[]): Promise<number>;
    /** Each statement commits by itself: the Db of a write that runs as one statement (single-statement.ts).
     * Rows it reads are not locked; the write's one statement (`last`) checks that its row is still as read. */
    readonly autocommit?: boolean;
}

export interface RowsOptions {
    readonly shapes?: 'server' | 'client';
    /** The write's last statement, with `returning`, meant to change one row (an update by key and rowstamp):
     * an autocommit Db runs it as the write's one statement; any other Db runs it as any other. */
    readonly last?: boolean;
    /** Statements that must see one committed state (a page's count and rows), each asked for with this
     * option: where reads run off the event loop (SQLite's read workers) they run together in one read
     * transaction once all have been asked for; elsewhere it is not needed (see runPage). */
    readonly together?: Together;
}

export type Connection = object;

interface QueryObject {
    sql: string;
    bindings: readonly unknown[];
    options?: { name: string };
    response?: unknown;
    point?: boolean;
    together?: Together;
}

// The two methods of knex's client that Osprey's clients (sqlite-client.ts, pg-client.ts) build on.
export interface DriverClient {
    acquireConnection(): Promise<Connection>;
    releaseConnection(connection: Connection): Promise<void>;
    _query(connection: Connection, obj: QueryObject): Promise<QueryObject>;
}

export const clientOf = (knex: Knex): DriverClient => knex.client as DriverClient;

// On PostgreSQL statements are named, so that each connection parses and plans one once and then only binds
// and executes it (one message less per statement, no planning); the name is a digest of the SQL, which
// node-pg requires to mean one text per connection. Statements name their columns (never `*`), so another node
// adding columns does not change what they answer. A column whose type another node widened does: PostgreSQL
// then refuses the prepared statement ("cached plan must not change result type"), so the names move to a new
// generation, prepared afresh on next use, and the request that met it is answered 503, to be sent again.
interface Named {
    readonly name: string;
    readonly text: string;
}

const named = new Map<string, Named>();
let generation = 0;

// `?` placeholders become PostgreSQL's `$1…` (the SQL made here binds every value, so no `?` is literal).
const numbered = (sql: string) => {

    let n = 0;
    return sql.replace(/\?/g, () => `$${++n}`);
};

const namedOf = (sql: string): Named => named.get(sql) ?? remember(named, sql, { name: `osprey_${generation}_${Crypto.createHash('sha1').update(sql).digest('base64url')}`, text: numbered(sql) });

const planChanged = (error: unknown) => {

    const { code, message } = error as { code?: unknown; message?: unknown };
    return code === '0A000' && /cached plan must not change result type/.test(String(message));
};

// node-pg answers a result with `rows`; better-sqlite3 the rows of a statement that returns any, else what it
// changed; the sqlite3 driver the rows.
const rowsOf = (response: unknown): Row[] => (Array.isArray(response) ? response : (response as { rows?: Row[] }).rows ?? []);

export const runRows = async (client: DriverClient, kind: DatabaseKind, connection: Connection, sql: string, bindings: readonly unknown[] = [], options: RowsOptions = {}): Promise<Row[]> => {

    // A shape the server made (a record by key, linked rows by key) is a point read: it stays on the event loop
    // where reads may run off it (sqlite-client.ts). A client's shape may cost anything.
    if (kind === 'sqlite') {
        return rowsOf((await client._query(connection, options.shapes === 'client' ? { sql, bindings, together: options.together } : { sql, bindings, point: true })).response);
    }

    // A shape that follows what a client sends (a where) runs unnamed, planned for its values each time: a
    // connection would keep every named shape until it closes, and a plan PostgreSQL makes once for any values
    // (after five runs) can be far slower for a skewed value. (Naming them gained 3 % on a counted page.)
    if (options.shapes === 'client') {
        return rowsOf((await client._query(connection, { sql: numbered(sql), bindings })).response);
    }

    const { name, text } = namedOf(sql);
    try {
        return rowsOf((await client._query(connection, { sql: text, bindings, options: { name } })).response);
    }
    catch (error) {
        if (planChanged(error)) {
            ++generation;
            named.clear();
            throw maximoError('schemaChanged');
        }

        throw error;
    }
};

// What a statement that returns no rows changed: better-sqlite3's `changes`, node-pg's `rowCount`.
export const runChanges = async (client: DriverClient, kind: DatabaseKind, connection: Connection, sql: string, bindings: readonly unknown[] = []): Promise<number> => {

    const statement = kind === 'sqlite' ? undefined : namedOf(sql);
    const query = statement === undefined ? { sql, bindings, point: true } : { sql: statement.text, bindings, options: { name: statement.name } };
    const { response } = await client._query(connection, query);
    const changed = kind === 'sqlite' ? (response as { changes?: unknown }).changes : (response as { rowCount?: unknown }).rowCount;
    if (typeof changed !== 'number') {
        throw new Error('The database driver did not tell how many rows the statement changed.');
    }

    return changed;
};

export const kindOf = (knex: Knex): DatabaseKind => (isPostgres(knex) ? 'postgresql' : 'sqlite');

// Statements on any connection of the pool: each takes one and gives it back.
export const poolDb = (knex: Knex): Db => {

    const client = clientOf(knex);
    const kind = kindOf(knex);
    const offLoop = runsOffLoop(client);
    const pooled = async (sql: string, bindings: readonly Knex.Value[] | undefined, options: RowsOptions | undefined): Promise<Row[]> => {

        const connection = await client.acquireConnection();
        let rows: Row[];
        try {
            rows = await runRows(client, kind, connection, sql, bindings, options);
        }
        finally {
            await client.releaseConnection(connection);
        }

        // Elsewhere (PostgreSQL, the sqlite3 driver) the answers that arrived in a turn go on together at its
        // end, the connection back in the pool meanwhile.
        await endOfTurn();
        return rows;
    };

    return {
        knex,
        kind,
        query: (table) => knex(table),
        storesAsWritten: (table) => storesAsWritten(knex, table),
        storesAsBound: (table, values) => storesAsBound(knex, table, values),
        changes: async (sql, bindings) => {

            const connection = await client.acquireConnection();
            try {
                return await runChanges(client, kind, connection, sql, bindings);
            }
            finally {
                await client.releaseConnection(connection);
            }
        },
        rows: async (sql, bindings, options) => {

            // Where a client's shape runs on a worker thread (SQLite's readers), it needs no connection of the
            // pool and has no reason to wait for the end of the turn.
            if (offLoop && options?.shapes === 'client') {
                return await runRows(client, kind, offLoopConnection, sql, bindings, options);
            }

            // Where reads take a connection outside the pool (SQLite's readers), they run together at the end
            // of the turn (turns.ts), and the connection is chosen then.
            if (directConnection(client)) {
                const values = bindings?.slice();      // as they are now, not as a caller may change them meanwhile
                await endOfTurn();
                const direct = directConnection(client);
                if (direct) {
                    return await runRows(client, kind, direct, sql, values, options);
                }

                return await pooled(sql, values, options);
            }

            return await pooled(sql, bindings, options);
        }
    };
};

// A transaction's statements run on its connection until it ends; then the connection is back in the pool, idle
// or in another request's transaction, and a statement through the transaction's Db, knex or models (a plugin
// that kept them, README "Data access: the models") fails at once with this error instead of running there.
export interface TransactionState {
    ended: boolean;
}

export const transactionEnded = (): Error => new Error('The transaction has ended: its db and models ran their statements on its connection, which is back in the pool. Run statements inside the transaction\'s work, or outside it on the server\'s models (server.models()).');

// A query builder on the connection, which runs `check` (throwing to refuse) when it is run: knex reads a
// builder's connection (`_connection`, which `.connection()` sets) when it runs it, and copies it into a clone.
// A clone is fenced too, so a builder made in the transaction and run after it never reaches the connection.
export const fencedBuilder = (builder: Knex.QueryBuilder, connection: Connection, check: (builder: Knex.QueryBuilder) => void): Knex.QueryBuilder => {

    const clone = builder.clone;
    Object.defineProperty(builder, '_connection', {
        configurable: true,
        get: () => {

            check(builder);
            return connection;
        }
    });
    builder.clone = function (this: Knex.QueryBuilder) {

        return fencedBuilder(clone.call(this), connection, check);
    };

    return builder;
};

export const refuseEnded = (state: TransactionState) => {

    return () => {

        if (state.ended) {
            throw transactionEnded();
        }
    };
};

// Statements on one connection (a transaction's), refused once `state` says it ended. Its knex (for plugins'
// statements, and the models bound to it, models.ts) is made when first asked for: making one costs more than
// a write's statements, and Osprey's own writes use `query` and `rows`.
export const connectionDb = (knex: Knex, connection: Connection, state: TransactionState = { ended: false }): Db => {

    const client = clientOf(knex);
    const kind = kindOf(knex);
    let bound: Knex | undefined;
    return {
        get knex() {

            bound ??= connectionKnex(knex, connection, state);
            return bound;
        },
        kind,
        connection,
        query: (table) => {

            refuseEnded(state)();
            return fencedBuilder(knex(table), connection, refuseEnded(state));
        },
        rows: (sql, bindings, options) => (state.ended ? Promise.reject(transactionEnded()) : runRows(client, kind, connection, sql, bindings, options)),
        changes: (sql, bindings) => (state.ended ? Promise.reject(transactionEnded()) : runChanges(client, kind, connection, sql, bindings)),
        storesAsWritten: (table) => storesAsWritten(knex, table),
        storesAsBound: (table, values) => storesAsBound(knex, table, values)
    };
};

// A knex instance of its own whose every statement runs on one connection, as knex's own transactions are made:
// a copy of the client (withUserParams) that hands out that connection and never gives it back to the pool, and
// refuses once the transaction ended. Objection binds models to it (models.ts), so that their queries, relation
// queries included, run there.
const connectionKnex = (knex: Knex, connection: Connection, state: TransactionState): Knex => {

    const bound = knex.withUserParams({ ...knex.userParams });
    Object.assign(bound.client, {
        acquireConnection: () => (state.ended ? Promise.reject(transactionEnded()) : Promise.resolve(connection)),
        releaseConnection: () => Promise.resolve()
    });
    return bound;
};
