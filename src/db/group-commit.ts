import type { Knex } from 'knex';

import { clientOf, connectionDb, type Connection, type Db, type TransactionState } from './db';


// A write that waited past its limit for SQLite's one writer connection: the server is busy, not broken, so it is
// answered 503 (src/errors/edge.ts), and the client may send it again.
export class WriterBusy extends Error { }


// Group commit for SQLite's one writer connection (issue 19). SQLite runs one write transaction at a time, so
// writes queue for the writer connection anyway; its COMMIT (the WAL append) took about 100 µs, a fifth of a
// create's CPU. The writes that queue while one runs are run together: one BEGIN IMMEDIATE, each write in a
// SAVEPOINT of its own, one COMMIT. Each write stays atomic: one that fails rolls back to its savepoint and the
// others go on. None is answered before the COMMIT: what a write's answer says is durable as before. A write
// sees the writes before it in its group as it would have seen them committed just before it, and nothing
// of a group is visible to readers before its COMMIT.
//
// Only writes known to be short join a group (the write engine's single records and bulk items): a write
// already done waits for the others of its group, so a long one (an all-or-nothing bulk, a plugin's work)
// runs alone, in its own transaction, between groups.
//
// When a failure ends the whole transaction (SQLite does so on some I/O and memory errors), every other write
// of the group is run again in the next group, from the start: nothing of them was committed, their outcomes
// (a failure included: "already processed", a duplicate) may have rested on rows that were rolled back, and a
// write's work is a plan and its statements, with nothing outside the database until after its commit.

type Work<T> = (db: Db) => Promise<T>;

interface Queued {
    readonly work: Work<unknown>;
    /** When it was queued (performance.now()). */
    readonly since: number;
    /** Runs in a transaction of its own, never in a group. */
    readonly alone: boolean;
    readonly resolve: (value: unknown) => void;
    readonly reject: (error: unknown) => void;
}

// At most this many writes share a COMMIT: the first of a group waits for the others before it is answered.
export const maxGroup = 64;

const inTransaction = (connection: Connection) => (connection as { inTransaction?: boolean }).inTransaction === true;

// A group lets the event loop turn between groups, and ends before this long has passed since its BEGIN.
export const groupMs = 10;

export class WriteGroups {

    readonly #knex: Knex;
    readonly #waitMs: number;
    readonly #queue: Queued[] = [];
    #running = false;
    #watch: NodeJS.Timeout | undefined;

    // `waitMs`: how long a write may wait in the queue, as long as knex's pool lets a request wait for a
    // connection (60 s). A transaction asked for from inside another's work waits for the connection that work
    // holds: it fails after this, and so does the work, instead of holding the writer for ever. (Telling such a
    // call at once needs AsyncLocalStorage, whose async hooks on Node 20 cost every promise of the process.)
    constructor(knex: Knex, waitMs = 60_000) {

        this.#knex = knex;
        this.#waitMs = waitMs;
    }

    run<T>(work: Work<T>, options: { readonly alone: boolean }): Promise<T> {

        return new Promise<T>((resolve, reject) => {

            this.#queue.push({ work: work as Work<unknown>, since: performance.now(), alone: options.alone, resolve: resolve as (value: unknown) => void, reject });
            this.#watch ??= setInterval(() => this.#expire(), Math.min(1000, this.#waitMs / 2)).unref();
            if (!this.#running) {
                void this.#drain();
            }
        });
    }

    // Fails the writes that waited longer than waitMs; stops watching once none waits.
    #expire(): void {

        const now = performance.now();
        for (const queued of this.#queue.filter((each) => now - each.since > this.#waitMs)) {
            this.#queue.splice(this.#queue.indexOf(queued), 1);
            queued.reject(new WriterBusy(`The write waited ${this.#waitMs} ms for SQLite's writer connection: another write held it (a transaction asked for inside a transaction's work waits for ever).`));
        }

        if (!this.#queue.length) {
            clearInterval(this.#watch);
            this.#watch = undefined;
        }
    }

    async #drain(): Promise<void> {

        this.#running = true;
        try {
            while (this.#queue.length) {
                await this.#group();
                // Other requests (a health check, the next HTTP request's body) get a turn between groups.
                await new Promise((resolve) => setImmediate(resolve));
            }
        }
        finally {
            this.#running = false;
        }
    }

    // Takes the next write of the queue; when there is none, lets the event loop turn once first, so that the
    // requests it is reading can reach the queue too (better-sqlite3 answers every statement at once, so no
    // other request moves while a write runs).
    async #next(group: readonly Queued[], turned: { value: boolean }, began: number): Promise<Queued | undefined> {

        if (group.length >= maxGroup || group[0]!.alone || performance.now() - began > groupMs) {
            return undefined;
        }

        if (!this.#queue.length && !turned.value) {
            turned.value = true;
            await new Promise((resolve) => setImmediate(resolve));
        }

        return this.#queue[0]?.alone ? undefined : this.#queue.shift();
    }

    async #group(): Promise<void> {

        const client = clientOf(this.#knex);
        // The first write is the group's from here on: whatever fails now, it is answered.
        const group: Queued[] = [this.#queue.shift()!];
        const settled: { readonly queued: Queued; readonly ok: boolean; readonly value: unknown }[] = [];
        let connection: Connection;
        try {
            connection = await client.acquireConnection();
        }
        catch (error) {
            group.forEach((queued) => queued.reject(error));
            return;
        }

        const control = (sql: string) => client._query(connection, { sql, bindings: [] });
        try {
            await control('BEGIN IMMEDIATE');
            const began = performance.now();
            const turned = { value: false };
            let queued: Queued | undefined = group[0];
            while (queued) {
                const current: Queued = queued;
                const state: TransactionState = { ended: false };
                await control('SAVEPOINT osprey_write');
                try {
                    const value = await current.work(connectionDb(this.#knex, connection, state));
                    state.ended = true;
                    await control('RELEASE osprey_write');
                    settled.push({ queued: current, ok: true, value });
                }
                catch (error) {
                    state.ended = true;
                    if (!inTransaction(connection)) {
                        // The failure ended the transaction: this write is answered with it, every other one of the
                        // group is run again (nothing of it was committed).
                        this.#queue.unshift(...group.filter((each) => each !== current));
                        group.splice(0, group.length, current);
                        settled.splice(0, settled.length, { queued: current, ok: false, value: error });
                        break;
                    }

                    settled.push({ queued: current, ok: false, value: error });
                    await control('ROLLBACK TO osprey_write');
                    await control('RELEASE osprey_write');
                }

                queued = await this.#next(group, turned, began);
                if (queued) {
                    group.push(queued);
                }
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
