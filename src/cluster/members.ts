import * as Crypto from 'node:crypto';
import * as Os from 'node:os';

import type { Knex } from 'knex';


export interface Member {
    id: string;
    host: string;
    pid: number;
    address: string | null;
    version: string;
    started: number;
    heartbeat: number;
}

// Server nodes announce themselves in a heartbeat table of the shared database. A node that stops (or stops
// beating for three intervals) drops out of the list.
export class Members {

    readonly id = Crypto.randomUUID();
    readonly #knex: Knex;
    readonly #intervalMs: number;
    readonly #version: string;
    #timer: NodeJS.Timeout | undefined;

    constructor(knex: Knex, heartbeatSeconds: number, version: string) {

        this.#knex = knex;
        this.#intervalMs = heartbeatSeconds * 1000;
        this.#version = version;
    }

    async join(address: string | null): Promise<void> {

        const now = Date.now();
        await this.#knex('osprey_member').insert({ id: this.id, host: Os.hostname(), pid: process.pid, address, version: this.#version, started: now, heartbeat: now });
        this.#timer = setInterval(() => {

            this.beat().catch(() => undefined);     // a missed beat is retried on the next tick
        }, this.#intervalMs);
        this.#timer.unref();
    }

    async beat(): Promise<void> {

        const now = Date.now();
        await this.#knex('osprey_member').where({ id: this.id }).update({ heartbeat: now });
        await this.#knex('osprey_member').where('heartbeat', '<', now - this.#intervalMs * 20).delete();
    }

    async leave(): Promise<void> {

        clearInterval(this.#timer);
        await this.#knex('osprey_member').where({ id: this.id }).delete();
    }

    async list(): Promise<Member[]> {

        const rows = await this.#knex<Member>('osprey_member').where('heartbeat', '>=', Date.now() - this.#intervalMs * 3).orderBy('started');
        return rows.map((row) => ({ ...row, pid: Number(row.pid), started: Number(row.started), heartbeat: Number(row.heartbeat) }));
    }
}
