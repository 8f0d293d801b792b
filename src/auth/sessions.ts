import * as Crypto from 'node:crypto';

import type { Knex } from 'knex';


const digest = (token: string) => Crypto.createHash('sha256').update(token).digest('hex');

// Login sessions in the shared database: any node accepts any session. Only a hash of the token is stored,
// so a copy of the table cannot be replayed. `lastseen` is written at most once a minute per session.
export class Sessions {

    readonly #knex: Knex;
    readonly #idleMs: number;

    constructor(knex: Knex, idleMinutes: number) {

        this.#knex = knex;
        this.#idleMs = idleMinutes * 60_000;
    }

    async create(userid: string): Promise<string> {

        const token = Crypto.randomBytes(32).toString('base64url');
        const now = Date.now();
        await this.#knex('osprey_session').insert({ id: digest(token), userid, created: now, lastseen: now });
        return token;
    }

    // The user id of a live session, or undefined when it is unknown or idle too long.
    async resolve(token: string): Promise<string | undefined> {

        const id = digest(token);
        const row = await this.#knex('osprey_session').where({ id }).first<{ userid: string; lastseen: number | string } | undefined>();
        if (!row) {
            return undefined;
        }

        const now = Date.now();
        const lastseen = Number(row.lastseen);
        if (now - lastseen > this.#idleMs) {
            await this.#knex('osprey_session').where({ id }).delete();
            return undefined;
        }

        if (now - lastseen > 60_000) {
            await this.#knex('osprey_session').where({ id }).update({ lastseen: now });
        }

        return row.userid;
    }

    async end(token: string): Promise<void> {

        await this.#knex('osprey_session').where({ id: digest(token) }).delete();
    }

    async purge(): Promise<number> {

        return await this.#knex('osprey_session').where('lastseen', '<', Date.now() - this.#idleMs).delete();
    }
}
