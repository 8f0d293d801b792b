import type { Knex } from 'knex';

import { clientOf, connectionDb, type Connection, type Db, type TransactionState } from './db';


// Group commit for SQLite's one writer connection (issue 19). SQLite runs one write transaction at a time, so
// writes queue for the writer connection anyway; its COMMIT (the WAL append) took about 100 µs, a fifth of a
// create's CPU. The writes that queue while one runs are run together: one BEGIN IMMEDIATE, each write in a
// SAVEPOINT of its own, one COMMIT. Each write stays atomic: one that fails rolls back to its savepoint and the
// others go on. None is answered before the COMMIT: what a write's answer says is durable as before. A write
// sees the writes before it in its group as it would have seen them committed just before it, and nothing
// of a group is visible to readers before its COMMIT.
//
// When a failure ends the whole transaction (SQLite does so on some I/O and memory errors), the writes that
// had succeeded in it are run again in the next group, from the start: nothing of them was committed, and a
// write's work is a plan and its statements, with nothing outside the database until after its commit.

type Work<T> = (db: Db) => Promise<T>;

interface Queued {
    readonly work: Work<unknown>;
    readonly resolve: (value: unknown) => void;
    readonly reject: (error: unknown) => void;
}

// At most this many writes share a COMMIT: the first of a group waits for the others before it is answered.
export const maxGroup = 64;

const inTransaction = (connection: Connection) => (connection as { inTransaction?: boolean }).inTransaction === true;

export class WriteGroups {

    readonly #knex: Knex;
    readonly #queue: Queued[] = [];
    #running = false;

    constructor(knex: Knex) {

        this.#knex = knex;
    }

    run<T>(work: Work<T>): Promise<T> {

        return new Promise<T>((resolve, reject) => {

            this.#queue.push({ work: work as Work<unknown>, resolve: resolve as (value: unknown) => void, reject });
            if (!this.#running) {
                void this.#drain();
            }
        });
    }

    async #drain(): Promise<void> {

        this.#running = true;
        try {
            while (this.#queue.length) {
                await this.#group();
            }
        }
        finally {
            this.#running = false;
        }
    }

    // Takes the next write of the queue; when there is none, lets the event loop turn once first, so that the
    // requests it is reading can reach the queue too (better-sqlite3 answers every statement at once, so no
    // other request moves while a write runs).
    async #next(group: readonly Queued[], turned: { value: boolean }): Promise<Queued | undefined> {

        if (group.length >= maxGroup) {
            return undefined;
        }

        if (!this.#queue.length && !turned.value) {
            turned.value = true;
            await new Promise((resolve) => setImmediate(resolve));
        }

        return this.#queue.shift();
    }

    async #group(): Promise<void> {

        const client = clientOf(this.#knex);
        const group: Queued[] = [];
        const settled: { readonly queued: Queued; readonly ok: boolean; readonly value: unknown }[] = [];
        let connection: Connection;
        try {
            connection = await client.acquireConnection();
        }
        catch (error) {
            this.#queue.splice(0).forEach((queued) => queued.reject(error));
            return;
        }

        const control = (sql: string) => client._query(connection, { sql, bindings: [] });
        try {
            await control('BEGIN IMMEDIATE');
            const turned = { value: false };
            let queued = this.#queue.shift();
            while (queued) {
                group.push(queued);
                const state: TransactionState = { ended: false };
                await control('SAVEPOINT osprey_write');
                try {
                    const value = await queued.work(connectionDb(this.#knex, connection, state));
                    state.ended = true;
                    await control('RELEASE osprey_write');
                    settled.push({ queued, ok: true, value });
                }
                catch (error) {
                    state.ended = true;
                    settled.push({ queued, ok: false, value: error });
                    if (!inTransaction(connection)) {
                        // The failure ended the transaction: what succeeded before it is gone, and is run again.
                        this.#queue.unshift(...settled.filter((each) => each.ok).map((each) => each.queued));
                        settled.splice(0, settled.length, ...settled.filter((each) => !each.ok));
                        break;
                    }

                    await control('ROLLBACK TO osprey_write');
                    await control('RELEASE osprey_write');
                }

                queued = await this.#next(group, turned);
            }

            if (inTransaction(connection)) {
                await control('COMMIT');
            }
        }
        catch (error) {
            // BEGIN, a savepoint or COMMIT failed: nothing of the group was written.
            await control('ROLLBACK').catch(() => undefined);
            const failed = new Map(settled.filter((each) => !each.ok).map((each) => [each.queued, each.value]));
            group.forEach((queued) => queued.reject(failed.has(queued) ? failed.get(queued) : error));
            return;
        }
        finally {
            await client.releaseConnection(connection);
        }

        for (const { queued, ok, value } of settled) {
            (ok ? queued.resolve : queued.reject)(value);
        }
    }
}
