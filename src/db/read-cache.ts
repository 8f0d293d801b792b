import type { Knex } from 'knex';

import { changeStamp } from './sqlite-client';


// Reads that repeat on every request (who the caller is) kept for as long as the tables they read are unchanged
// (every table the read joins, and every table whose deletes cascade into one of them). Where
// that cannot be told every read goes to the database. A value is kept under the stamp taken before it was
// read: a write that lands while it is being read moves the stamp, so the next read drops it. This server's
// own writes move the stamp at once; another node's or process's within moments (the notice on PostgreSQL,
// data_version asked at most every otherWritesMs on SQLite: sqlite-client.ts).
//
// Single flight: while a value is being read, every other request for the same key under the same stamp waits
// for that read instead of starting its own (issue 19: when a write drops the values, a burst of requests with
// one API key ran one lookup each). A stamp that moves meanwhile starts new reads, which see the write.
export class ReadCache<V> {

    readonly #knex: Knex;
    readonly #tables: readonly string[];
    readonly #max: number;
    readonly #entries = new Map<string, V>();
    readonly #loading = new Map<string, Promise<V>>();
    #stamp: string | undefined;

    constructor(knex: Knex, tables: readonly string[], max = 10_000) {

        this.#knex = knex;
        this.#tables = tables;
        this.#max = max;
    }

    async read(key: string, load: () => Promise<V>): Promise<V> {

        const stamp = changeStamp(this.#knex, this.#tables);
        if (stamp === undefined) {
            return await load();
        }

        if (stamp !== this.#stamp) {
            this.#entries.clear();
            this.#loading.clear();
            this.#stamp = stamp;
        }
        else if (this.#entries.has(key)) {
            return this.#entries.get(key)!;
        }
        else if (this.#loading.has(key)) {
            return await this.#loading.get(key)!;
        }

        const loading = load();
        this.#loading.set(key, loading);
        let value: V;
        try {
            value = await loading;
        }
        finally {
            if (this.#loading.get(key) === loading) {
                this.#loading.delete(key);
            }
        }

        if (this.#stamp === stamp) {
            if (this.#entries.size >= this.#max) {
                this.#entries.clear();
            }

            this.#entries.set(key, value);
        }

        return value;
    }
}
