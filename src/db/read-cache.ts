import type { Knex } from 'knex';

import { changeStamp } from './sqlite-client';


// Reads that repeat on every request (who the caller is) kept for as long as the tables they read are unchanged
// (every table the read joins, and every table whose deletes cascade into one of them). Where
// that cannot be told (PostgreSQL) every read goes to the database. A value is kept under the stamp taken
// before it was read: a write that lands while it is being read moves the stamp, so the next read drops it —
// a cached value is never older than the database it came from.
export class ReadCache<V> {

    readonly #knex: Knex;
    readonly #tables: readonly string[];
    readonly #max: number;
    readonly #entries = new Map<string, V>();
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
            this.#stamp = stamp;
        }
        else if (this.#entries.has(key)) {
            return this.#entries.get(key)!;
        }

        const value = await load();
        if (this.#stamp === stamp) {
            if (this.#entries.size >= this.#max) {
                this.#entries.clear();
            }

            this.#entries.set(key, value);
        }

        return value;
    }
}
