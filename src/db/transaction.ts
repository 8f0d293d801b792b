import type { Knex } from 'knex';

import { clientOf, connectionDb, type Db, type TransactionState } from './db';
import { WriteGroups } from './group-commit';
import { isPostgres } from './knex';
import { singleStatement } from './single-statement';


// One database transaction on a connection of the pool, its statements sent straight to the driver (db.ts).
// knex's own transaction builds a new knex instance for each one and runs BEGIN, every statement and COMMIT
// through its runner: on SQLite that was more CPU than the write's statements. SQLite's transaction begins
// IMMEDIATE, taking the write lock at once: a deferred one that reads first cannot take it later when another
// process (a second node on the file, a maintenance script) wrote in between, and fails instead of waiting.
const begin = { sqlite: 'BEGIN IMMEDIATE', postgresql: 'BEGIN' } as const;

// The knexes whose transactions are run in groups (group-commit.ts): SQLite's writer through better-sqlite3.
const groups = new WeakMap<Knex, WriteGroups>();

export const groupCommits = (knex: Knex, waitMs?: number): void => {

    groups.set(knex, new WriteGroups(knex, waitMs));
};

export const groupsCommits = (knex: Knex): boolean => groups.has(knex);

export interface TransactionOptions {
    /** The work is short (a write of the write engine: one record, or one bulk item), and may share its COMMIT
     * with others where the knex groups commits. Any other runs in a transaction of its own. */
    readonly grouped?: boolean;
    /** The work is likely one statement marked last (single-statement.ts): on PostgreSQL it is tried without a
     * transaction first, and run again in one when it needs it. */
    readonly single?: boolean;
}

export const transaction = async <T>(knex: Knex, work: (db: Db) => Promise<T>, options: TransactionOptions = {}): Promise<T> => {

    const group = groups.get(knex);
    if (group) {
        return await group.run(work, { alone: options.grouped !== true });
    }

    const done = options.single && isPostgres(knex) ? await singleStatement(knex, work) : undefined;
    return done ? done.result : await alone(knex, work);
};

const alone = async <T>(knex: Knex, work: (db: Db) => Promise<T>): Promise<T> => {

    const client = clientOf(knex);
    const connection = await client.acquireConnection();
    const state: TransactionState = { ended: false };
    const db = connectionDb(knex, connection, state);
    const control = (sql: string) => client._query(connection, { sql, bindings: [] });
    try {
        await control(begin[db.kind]);
        const result = await work(db);
        await control('COMMIT');
        return result;
    }
    catch (error) {
        // A database that ended the transaction itself (SQLite after some errors) refuses the ROLLBACK.
        await control('ROLLBACK').catch(() => undefined);
        throw error;
    }
    finally {
        // Before the connection goes back to the pool: what the work kept of the Db refuses from now on (db.ts).
        state.ended = true;
        await client.releaseConnection(connection);
    }
};
