import * as Crypto from 'node:crypto';

import type { Knex } from 'knex';

import type { UserProfile } from './users';


const digest = (token: string) => Crypto.createHash('sha256').update(token).digest('hex');

// A row whose `created` is this marks a session that was ended (logged out) before it was ever written: its
// offered token must not be taken up again (see `offer`).
const ended = -1;

// How far ahead of this node's clock another node's offer may be dated.
const skewMs = 60_000;

// The one failure ending or taking up an offer may meet and pass over: the user's row is gone.
const userGone = (error: unknown) => {

    const { code, message = '' } = (error ?? {}) as { code?: string; message?: string };
    return code === '23503' || code === 'SQLITE_CONSTRAINT_FOREIGNKEY' || /FOREIGN KEY constraint failed/.test(message);
};

interface SessionRow {
    userid: string;
    userstamp: string;
    created: number | string;
    lastseen: number | string;
}

// Login sessions in the shared database: any node accepts any session. Only a hash of the token is stored,
// so a copy of the table cannot be replayed. `lastseen` is written at most once a minute per session.
//
// Maximo opens a session for every credentialed request that carries none, and IBM's Java client depends on
// it (connect() keeps the Set-Cookie of its first answer and sends only that afterwards). Writing a row for
// every maxauth request would put a database write on the hot path and let a client that never sends a cookie
// back fill the table, so such a request is *offered* a session instead: a token signed with the server's
// secret that names the user and when it was offered. Nothing is written until the token first comes back;
// then it becomes an ordinary row. An offer not taken up within the idle time is dead, as an idle session is.
//
// A session holds the user's stamp (UserProfile.stamp) it was opened under, and the scheme accepts it only while
// the user's profile has that stamp: a new password ends every session of the user on every node at once, an
// offer made before it included, and so does deleting the user (a later user of the same name has another).
export type SessionUser = Pick<UserProfile, 'userid' | 'stamp'>;

interface Session {
    readonly userid: string;
    readonly stamp: string;
}

export class Sessions {

    readonly #knex: Knex;
    readonly #idleMs: number;
    readonly #key: Buffer;

    constructor(knex: Knex, idleMinutes: number, secret: Buffer) {

        this.#knex = knex;
        this.#idleMs = idleMinutes * 60_000;
        this.#key = Crypto.createHmac('sha256', secret).update('osprey session offer').digest();
    }

    async create(user: SessionUser): Promise<string> {

        const token = Crypto.randomBytes(32).toString('base64url');
        const now = Date.now();
        await this.#knex('osprey_session').insert({ id: digest(token), userid: user.userid, userstamp: user.stamp ?? '', created: now, lastseen: now });
        return token;
    }

    // A session token for this user that costs no database work until it is used:
    // `o.{user}.{when}.{stamp}.{nonce}.{mac}`.
    offer(user: SessionUser): string {

        const body = `o.${Buffer.from(user.userid).toString('base64url')}.${Date.now().toString(36)}.${user.stamp ?? ''}.${Crypto.randomBytes(12).toString('base64url')}`;
        return `${body}.${this.#sign(body)}`;
    }

    // The user an offered token names, by its signature alone (no database): whether it is still a session is
    // resolve's to say. Undefined for any other token.
    offeredUser(token: string): string | undefined {

        return this.#verify(token)?.userid;
    }

    // The user and user's stamp of a live session, or undefined when it is unknown, ended, or idle too long.
    // `current`: the user's stamp now, asked before an offer is taken up, so that an offer made under another
    // (before a new password, or to a deleted user of the same name) leaves no row behind.
    async resolve(token: string, current?: (userid: string) => Promise<string | undefined>): Promise<Session | undefined> {

        const id = digest(token);
        const row = await this.#knex('osprey_session').where({ id }).first<SessionRow | undefined>();
        if (!row) {
            return await this.#takeUp(id, token, current);
        }

        if (Number(row.created) === ended) {
            return undefined;
        }

        const now = Date.now();
        const lastseen = Number(row.lastseen);
        if (now - lastseen > this.#idleMs) {
            // Its offer, if it was one, is older than the idle time too, so it cannot be taken up again.
            await this.#knex('osprey_session').where({ id }).delete();
            return undefined;
        }

        if (now - lastseen > 60_000) {
            await this.#knex('osprey_session').where({ id }).update({ lastseen: now });
        }

        return { userid: row.userid, stamp: row.userstamp };
    }

    async end(token: string): Promise<void> {

        const offered = this.#verify(token);
        if (!offered) {
            await this.#knex('osprey_session').where({ id: digest(token) }).delete();
            return;
        }

        // An offer stays verifiable by its signature, so its end is kept until the offer has expired everywhere:
        // purge removes it an idle time after `lastseen`, which is dated past the offer's latest possible time.
        const keep = Math.max(Date.now(), offered.when) + skewMs;
        try {
            await this.#knex('osprey_session').insert({ id: digest(token), userid: offered.userid, userstamp: offered.stamp, created: ended, lastseen: keep })
                .onConflict('id').merge({ created: ended, lastseen: keep });
        }
        catch (error) {
            // A user who no longer exists has no row to hang this on; the offer logs no one in anyway.
            if (!userGone(error)) {
                throw error;
            }
        }
    }

    async purge(): Promise<number> {

        return await this.#knex('osprey_session').where('lastseen', '<', Date.now() - this.#idleMs).delete();
    }

    // An offered token coming back for the first time becomes a session row.
    async #takeUp(id: string, token: string, current?: (userid: string) => Promise<string | undefined>): Promise<Session | undefined> {

        const offered = this.#verify(token);
        if (!offered || (current && await current(offered.userid) !== offered.stamp)) {
            return undefined;
        }

        const now = Date.now();
        try {
            // Two first requests with the same token may race here: the second insert is ignored.
            await this.#knex('osprey_session').insert({ id, userid: offered.userid, userstamp: offered.stamp, created: offered.when, lastseen: now }).onConflict('id').ignore();
        }
        catch (error) {
            if (userGone(error)) {
                return undefined;               // the user was deleted since the offer
            }

            throw error;
        }

        const row = await this.#knex('osprey_session').where({ id }).first<SessionRow | undefined>();
        return row && Number(row.created) !== ended ? { userid: row.userid, stamp: row.userstamp } : undefined;
    }

    // The user, stamp and time of a well-signed offer that is still within the idle time, or undefined.
    #verify(token: string): { userid: string; stamp: string; when: number } | undefined {

        const parts = token.split('.');
        if (parts.length !== 6 || parts[0] !== 'o') {
            return undefined;
        }

        // Compared as text, not decoded: base64url's last character carries spare bits, so several spellings
        // decode to one signature, and each would be a different session row (one surviving another's logout).
        const mac = Buffer.from(parts[5]!);
        const expected = Buffer.from(this.#sign(parts.slice(0, 5).join('.')));
        if (mac.length !== expected.length || !Crypto.timingSafeEqual(mac, expected)) {
            return undefined;
        }

        const when = parseInt(parts[2]!, 36);
        const age = Date.now() - when;
        // A minute of clock difference between nodes is allowed for; an offer from the future beyond that is not.
        return age <= this.#idleMs && age >= -skewMs ? { userid: Buffer.from(parts[1]!, 'base64url').toString('utf8'), stamp: parts[3]!, when } : undefined;
    }

    #sign(body: string): string {

        return Crypto.createHmac('sha256', this.#key).update(body).digest('base64url');
    }
}
