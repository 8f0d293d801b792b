import * as Crypto from 'node:crypto';
import * as Os from 'node:os';

import type { Knex } from 'knex';

import type { Logger } from '../log/logger';


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
// beating for three intervals) drops out of the list. Each node logs its own joining and leaving, and what its
// beats see of the others: a node that joined, one that left (its row gone), one that went silent (its row stale:
// it stopped without leaving, or cannot reach the database).
export class Members {

    readonly id = Crypto.randomUUID();
    readonly #knex: Knex;
    readonly #intervalMs: number;
    readonly #version: string;
    readonly #log: Logger;
    #timer: NodeJS.Timeout | undefined;
    /** The other nodes alive at the last beat, by id. */
    #others = new Map<string, Pick<Member, 'host' | 'pid'>>();

    #beating: Promise<void> | undefined;

    constructor(knex: Knex, heartbeatSeconds: number, version: string, log: Logger = () => undefined) {

        this.#knex = knex;
        this.#intervalMs = heartbeatSeconds * 1000;
        this.#version = version;
        this.#log = log;
    }

    async join(address: string | null): Promise<void> {

        const now = Date.now();
        await this.#knex('osprey_member').insert({ id: this.id, host: Os.hostname(), pid: process.pid, address, version: this.#version, started: now, heartbeat: now });
        this.#others = new Map((await this.list()).filter((member) => member.id !== this.id).map((member) => [member.id, member]));
        this.#log('info', { msg: 'node joined', node: this.id, host: Os.hostname(), pid: process.pid, address, others: this.#others.size });
        this.#timer = setInterval(() => {

            // One beat at a time, and the node leaves after the one in flight: its statements then never meet a
            // pool being destroyed (knex printed "Acquire connection error" at every stop).
            if (!this.#beating) {
                this.#beating = this.beat().catch(() => undefined).finally(() => {      // a missed beat is retried on the next tick

                    this.#beating = undefined;
                });
            }
        }, this.#intervalMs);
        this.#timer.unref();
    }

    async beat(): Promise<void> {

        const now = Date.now();
        await this.#knex('osprey_member').where({ id: this.id }).update({ heartbeat: now });
        await this.#knex('osprey_member').where('heartbeat', '<', now - this.#intervalMs * 20).delete();
        await this.#watch(now);
    }

    // The others as this beat sees them, against the last beat.
    async #watch(now: number): Promise<void> {

        const rows = await this.#knex<Member>('osprey_member').whereNot({ id: this.id }).select('id', 'host', 'pid', 'address', 'heartbeat');
        const alive = new Map(rows.filter((row) => Number(row.heartbeat) >= now - this.#intervalMs * 3).map((row) => [row.id, row]));
        for (const [id, member] of alive) {
            if (!this.#others.has(id)) {
                this.#log('info', { msg: 'node joined', node: id, host: member.host, pid: Number(member.pid), address: member.address });
            }
        }

        for (const [id, member] of this.#others) {
            if (!alive.has(id)) {
                const silent = rows.some((row) => row.id === id);
                this.#log(silent ? 'warn' : 'info', { msg: silent ? 'node silent' : 'node left', node: id, host: member.host, pid: Number(member.pid) });
            }
        }

        this.#others = alive;
    }

    async leave(): Promise<void> {

        clearInterval(this.#timer);
        await this.#beating;
        await this.#knex('osprey_member').where({ id: this.id }).delete();
        this.#log('info', { msg: 'node left', node: this.id, host: Os.hostname(), pid: process.pid });
    }

    async list(): Promise<Member[]> {

        const rows = await this.#knex<Member>('osprey_member').where('heartbeat', '>=', Date.now() - this.#intervalMs * 3).orderBy('started');
        return rows.map((row) => ({ ...row, pid: Number(row.pid), started: Number(row.started), heartbeat: Number(row.heartbeat) }));
    }
}
