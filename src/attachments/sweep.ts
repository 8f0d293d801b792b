import type { Knex } from 'knex';

import { transaction } from '../db/transaction';
import { contentGone } from './documents';
import type { ContentStore, StoreName } from './store';


// Removes the content of documents that are gone (osprey_docgone), and of uploads a stopped node left unfinished,
// in small steps after the transactions that made them gone: a deleted 50 MB document is 13 short deletes, not one
// that holds SQLite's writer. Any node may sweep any key; two that sweep one key at once do no harm.

// An upload that has not finished in a day is one a node stopped in the middle of.
export const staleUploadMs = 24 * 3600_000;

export class Sweeper {

    readonly #knex: Knex;
    readonly #stores: ReadonlyMap<StoreName, ContentStore>;
    readonly #log: (message: string) => void;
    #running: Promise<void> | undefined;
    #again = false;

    constructor(knex: Knex, stores: ReadonlyMap<StoreName, ContentStore>, log: (message: string) => void) {

        this.#knex = knex;
        this.#stores = stores;
        this.#log = log;
    }

    // Sweeps now, or once more after the sweep under way: what a request just made gone is not left for the timer.
    soon(): Promise<void> {

        if (this.#running) {
            this.#again = true;
            return this.#running;
        }

        this.#running = (async () => {

            try {
                do {
                    this.#again = false;
                    await this.sweep(Date.now());
                }
                while (this.#again);
            }
            catch (error) {
                this.#log(`Sweeping attachment content failed (the next sweep tries again): ${(error as Error).message}`);
            }
            finally {
                this.#running = undefined;
            }
        })();

        return this.#running;
    }

    async sweep(now: number): Promise<void> {

        const stale = await this.#knex('osprey_docupload').select('contentkey', 'store').where('started', '<', now - staleUploadMs).limit(100) as { contentkey: string; store: StoreName }[];
        for (const upload of stale) {
            await this.abandon(upload.contentkey, upload.store, now);
        }

        for (;;) {
            const gone = await this.#knex('osprey_docgone').select('contentkey', 'store').orderBy('gone').limit(20) as { contentkey: string; store: StoreName }[];
            if (!gone.length) {
                return;
            }

            for (const { contentkey, store } of gone) {
                const content = this.#stores.get(store) ?? this.#stores.get('database')!;
                while (!await content.sweep(contentkey)) {
                    // Each step is a transaction of its own; other requests' statements run between them.
                }

                await this.#knex('osprey_docgone').where({ contentkey }).delete();
            }
        }
    }

    // An upload that will not finish: its content is gone, in one transaction with the end of the upload's row.
    async abandon(key: string, store: StoreName, now: number): Promise<void> {

        await transaction(this.#knex, async (db) => {

            const removed = await db.query('osprey_docupload').where({ contentkey: key }).delete();
            if (removed) {
                await contentGone(db, key, store, now);
            }
        });
    }
}
