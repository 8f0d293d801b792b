import type { Knex } from 'knex';

import { clientOf, fencedBuilder, kindOf, refuseEnded as refuseEndedOf, runRows, type Connection, type Db, type TransactionState } from './db';
import { storesAsBound, storesAsWritten } from './rewrites';


// A write that proves to be one statement (a PATCH of a record's own attributes: an update by key and rowstamp)
// runs on PostgreSQL without BEGIN and COMMIT, its one statement committing by itself. Its reads run first, each
// alone, and lock no row; the update names the rowstamp it read, so a record changed in between is not
// overwritten: the update then changes no row, and the write is run again in a transaction of its own, where
// the record is read under its lock (transaction.ts). A write that needs any other statement, or a read cut by
// the read statement timeout that a transaction lifts, is run again the same way before it wrote anything.
// On PostgreSQL's side this saves two of an update's four round trips and the row lock's transaction id:
// PostgreSQL spent 175 µs of CPU per update in a transaction, and (b)'s four messages cost 93 µs of socket
// writes in its process (README, Performance).

/** Thrown inside a single-statement write before it wrote anything: the write needs a transaction. */
export class NeedsTransaction extends Error {

    constructor(reason: string) {

        super(`This write needs a transaction: ${reason}.`);
    }
}

interface SingleState extends TransactionState {
    wrote: boolean;
}

// Osprey's reads are selects; locking ones included (the lock ends with the statement).
const reading = /^\s*select\b/i;

// knex methods of a builder that reads.
const readMethods = new Set(['select', 'first', 'pluck']);

// PostgreSQL's query_canceled: a read outlived the pool's statement timeout, which a transaction lifts.
const cancelled = (error: unknown) => (error as { code?: unknown }).code === '57014';

const refuseMore = (state: SingleState, what: string): never => {

    if (state.wrote) {
        // Unreachable by Osprey's writes: only a statement marked last writes, and nothing writes after it.
        throw new Error(`A single-statement write ran ${what} after its one statement, which has committed.`);
    }

    throw new NeedsTransaction(what);
};

// The Db of a single-statement write on this connection: reads run as they come; the statement marked `last`
// is the write's one statement and must change a row; any other write refuses it (NeedsTransaction).
export const singleStatementDb = (knex: Knex, connection: Connection, state: SingleState): Db => {

    const client = clientOf(knex);
    const kind = kindOf(knex);
    const refuseEnded = refuseEndedOf(state);
    const check = (builder: Knex.QueryBuilder) => {

        refuseEnded();
        const method = (builder as unknown as { _method?: string })._method ?? 'select';
        if (!readMethods.has(method)) {
            refuseMore(state, `a ${method} through knex`);
        }
    };

    return {
        get knex(): Knex {

            return refuseMore(state, 'statements on its knex');
        },
        kind,
        connection,
        autocommit: true,
        query: (table) => fencedBuilder(knex(table), connection, check),
        rows: async (sql, bindings, options) => {

            refuseEnded();

            if (!options?.last) {
                if (!reading.test(sql)) {
                    refuseMore(state, 'a write other than its last statement');
                }

                return await runRows(client, kind, connection, sql, bindings, options);
            }

            if (state.wrote) {
                refuseMore(state, 'a second last statement');
            }

            const rows = await runRows(client, kind, connection, sql, bindings, options);
            if (!rows.length) {
                throw new NeedsTransaction('its row changed since it was read');
            }

            state.wrote = true;
            return rows;
        },
        // Its one statement returns its row (`last`), so a write that would change rows without one needs a
        // transaction: unreachable by Osprey's writes, as single statements run on PostgreSQL only.
        changes: async () => await Promise.resolve(refuseMore(state, 'a statement without rows')),
        storesAsWritten: (table) => storesAsWritten(knex, table),
        storesAsBound: (table, values) => storesAsBound(knex, table, values)
    };
};

// Runs `work` as a single-statement write on a connection of the pool. Answers its result, or none when the
// write needs a transaction (nothing was written).
export const singleStatement = async <T>(knex: Knex, work: (db: Db) => Promise<T>): Promise<{ readonly result: T } | undefined> => {

    const client = clientOf(knex);
    const connection = await client.acquireConnection();
    const state: SingleState = { ended: false, wrote: false };
    try {
        return { result: await work(singleStatementDb(knex, connection, state)) };
    }
    catch (error) {
        if (!state.wrote && (error instanceof NeedsTransaction || cancelled(error))) {
            return undefined;
        }

        throw error;
    }
    finally {
        state.ended = true;
        await client.releaseConnection(connection);
    }
};
