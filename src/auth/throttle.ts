import * as Crypto from 'node:crypto';

import type { Knex } from 'knex';

import type { FailureRow } from './credential-stamp';
import { normalUserid } from './userid';


// Brute-force protection for credential logins (and API keys sent from one address): failures are counted
// per user and per client address over a window. From the third failure of a user the 401 is slowed (250 ms,
// doubling, at most 2 s); at the limit the user, or the address, is refused with 429 until the window has
// passed, or until an administrator lifts a user's lock. A user's count is theirs alone, so other users'
// failures never lock them out; the address limit is five times higher, for guessing spread over many user
// names. A successful login clears the user's count and gives back its attempt to the address. A right API key
// is no guess (256 random bits): an address lock refuses wrong keys only (scheme.ts).
//
// An attempt is counted *before* its password is checked (issue 18): a burst of concurrent guesses gets no more
// checks than the limit, since each takes its place in the count before the first check has finished.
//
// The counts live in the database, osprey_loginfailure (issue 34): every node counts against the same limits,
// refuses what another locked, and lets in what an administrator lifted on another, at its next request. Each
// authenticated request reads its user's and address's rows with osprey_authstamp in one statement
// (credential-stamp.ts); a count is written only by an attempt that runs a check, by a success that clears one,
// and by an administrator. Rows whose window has passed are purged (plugins/auth).

export interface ThrottleSettings {
    readonly attempts: number;
    readonly windowMs: number;
}

// A counted attempt: its outcome settles it.
export interface Attempt {
    /** A wrong credential: the count stays; answers how long to hold the 401 back (ms). */
    failed(): number;
    /** A right one: the user's count is cleared and the address's attempt given back. */
    succeeded(): Promise<void>;
    /** The names this attempt brought to their limit, should it fail: locked out from now (a lockout to log). */
    locking(): Lock[];
}

// One lock as an administrator sees it.
export interface Lock {
    readonly key: string;
    readonly failures: number;
    readonly retryAfter: number;
}

// What each counted name's row became: the count with this attempt in it, and when its window began.
interface Counted extends FailureRow {
    readonly name: string;
}

class Locked extends Error { }

// One name's count moved by one, in one statement that also tells whether it was already at its limit (no row then).
const countSql = `insert into osprey_loginfailure (name, failures, since) values (?, 1, ?)
    on conflict (name) do update set
        failures = case when osprey_loginfailure.since <= ? then 1 else osprey_loginfailure.failures + 1 end,
        since = case when osprey_loginfailure.since <= ? then excluded.since else osprey_loginfailure.since end
    where osprey_loginfailure.since <= ? or osprey_loginfailure.failures < ?
    returning failures, since`;

const rowsOf = (result: unknown): Record<string, unknown>[] => (Array.isArray(result) ? result : (result as { rows?: Record<string, unknown>[] }).rows ?? []);

export class LoginThrottle {

    readonly #knex: Knex;
    readonly #settings: ThrottleSettings;

    constructor(knex: Knex, settings: ThrottleSettings) {

        this.#knex = knex;
        this.#settings = settings;
    }

    #limit(name: string) {

        return name.startsWith('address:') ? this.#settings.attempts * 5 : this.#settings.attempts;
    }

    #wait(name: string, count: FailureRow, now: number) {

        const live = now - count.since < this.#settings.windowMs;
        return live && count.failures >= this.#limit(name) ? Math.ceil((count.since + this.#settings.windowMs - now) / 1000) : 0;
    }

    // Seconds until the user or the address may try again, from their rows as a request read them; 0 when they may now.
    retryAfter(failures: ReadonlyMap<string, FailureRow>, names: readonly string[], now = Date.now()): number {

        let wait = 0;
        for (const name of names) {
            const count = failures.get(name);
            wait = count ? Math.max(wait, this.#wait(name, count, now)) : wait;
        }

        return wait;
    }

    // A count as read, that a success must clear: one within its window.
    counting(failures: ReadonlyMap<string, FailureRow>, name: string, now = Date.now()): boolean {

        const count = failures.get(name);
        return count !== undefined && now - count.since < this.#settings.windowMs && count.failures > 0;
    }

    // Counts an attempt before its check, for every name at once: a number (seconds to wait) when the user or the
    // address is at its limit (then nothing is counted), else the attempt to settle once the check is done.
    async attempt(names: readonly string[], now = Date.now()): Promise<number | Attempt> {

        const expired = now - this.#settings.windowMs;
        let counted: Counted[];
        try {
            counted = await this.#knex.transaction(async (trx) => {

                const rows: Counted[] = [];
                for (const name of names) {
                    const [row] = rowsOf(await trx.raw(countSql, [name, now, expired, expired, expired, this.#limit(name)]));
                    if (!row) {
                        throw new Locked();
                    }

                    rows.push({ name, failures: Number(row.failures), since: Number(row.since) });
                }

                return rows;
            });
        }
        catch (error) {
            if (!(error instanceof Locked)) {
                throw error;
            }

            const rows = await this.#knex('osprey_loginfailure').whereIn('name', names).select('name', 'failures', 'since') as Counted[];
            const failures = new Map(rows.map((row) => [row.name, { failures: Number(row.failures), since: Number(row.since) }]));
            return Math.max(1, this.retryAfter(failures, names, now));
        }

        return {
            locking: () => counted.filter(({ name, failures }) => failures === this.#limit(name)).map((row) => ({ key: row.name, failures: row.failures, retryAfter: this.#wait(row.name, row, now) })),
            failed: () => {

                const user = counted.find(({ name }) => name.startsWith('user:'));
                const failures = user ? user.failures : 0;
                return failures >= 3 ? Math.min(2000, 250 * 2 ** (failures - 3)) : 0;
            },
            succeeded: async () => {

                for (const { name, since } of counted) {
                    if (name.startsWith('user:')) {
                        await this.clear(name);
                    }
                    else {
                        await this.#knex('osprey_loginfailure').where({ name, since }).where('failures', '>', 0).decrement('failures', 1);
                    }
                }
            }
        };
    }

    // Forgets a name's failures (a user's, at a successful login).
    async clear(name: string): Promise<void> {

        await this.#knex('osprey_loginfailure').where({ name }).delete();
    }

    // The names at their limit now: what an administrator may lift.
    async locks(now = Date.now()): Promise<Lock[]> {

        const rows = await this.#knex('osprey_loginfailure').where('since', '>', now - this.#settings.windowMs).orderBy('name').select('name', 'failures', 'since') as Counted[];
        return rows.flatMap(({ name, failures, since }) => {

            const retryAfter = this.#wait(name, { failures: Number(failures), since: Number(since) }, now);
            return retryAfter > 0 ? [{ key: name, failures: Number(failures), retryAfter }] : [];
        });
    }

    // Lifts the lock (and forgets the failures) of a user or an address; whether there was a count to forget.
    async lift(name: string, now = Date.now()): Promise<boolean> {

        // No count is kept under a name holding a NUL (addresses hold none, and such a user id is impossible:
        // scheme.ts); PostgreSQL's text cannot even hold one, and would answer an error rather than no row.
        if (name.includes('\u0000')) {
            return false;
        }

        return await this.#knex('osprey_loginfailure').where({ name }).where('since', '>', now - this.#settings.windowMs).delete() > 0;
    }

    // Rows whose window has passed (and so lock no one): removed.
    async purge(now = Date.now()): Promise<number> {

        return await this.#knex('osprey_loginfailure').where('since', '<=', now - this.#settings.windowMs).delete();
    }
}

// A name as stored: what a client sent can be long, so past 200 characters its digest stands for it.
const stored = (name: string) => (name.length > 200 ? `${name.slice(0, name.indexOf(':') + 1)}#${Crypto.createHash('sha256').update(name).digest('base64url')}` : name);

export const userKey = (userid: string): string => stored(`user:${normalUserid(userid)}`);

export const addressKey = (address: string): string => stored(`address:${address}`);

export const throttleKeys = (userid: string | undefined, address: string): string[] => [...(userid ? [userKey(userid)] : []), addressKey(address)];
