import * as Crypto from 'node:crypto';

import type { Knex } from 'knex';

import { poolDb } from '../db/db';
import { readCredentialState } from './credential-stamp';
import { hashPassword, verifyPassword } from './passwords';
import { StampedCache } from './stamped-cache';
import { normalUserid } from './userid';


export interface UserProfile {
    readonly userid: string;
    readonly personid: string | null;
    readonly displayname: string | null;
    readonly primaryemail: string | null;
    readonly defsite: string | null;
    readonly insertsite: string | null;
    readonly defaultorg: string | null;
    readonly langcode: string;
    readonly groups: readonly string[];
    readonly isAdmin: boolean;
    /** Moves when the user's password or status changes, and differs between a deleted user and a later one of
     * the same name: a session or a remembered login made under another stamp is over (issue 34). Always set
     * on a profile read from the database; optional for profiles a plugin or test makes by hand. */
    readonly stamp?: string;
}

export interface NewUser {
    userid: string;
    password: string;
    personid?: string;
    displayname?: string;
    primaryemail?: string;
    defsite?: string;
    insertsite?: string;
    defaultorg?: string;
    groups?: string[];
}

type ProfileRow = Omit<UserRow, 'status' | 'created'>;

interface UserRow {
    userid: string;
    passwordhash: string | null;
    credstamp: string;
    created: number | string;
    personid: string | null;
    displayname: string | null;
    primaryemail: string | null;
    status: string;
    defsite: string | null;
    insertsite: string | null;
    defaultorg: string | null;
    langcode: string;
}

interface GroupRow {
    groupname: string | null;
    isadmin: boolean | number | null;
}

// The stamp of a user row: of its credstamp (set by every change below) and of its password hash, so that a
// password set by hand in SQL, without a new credstamp, still ends the sessions and logins of the old one.
const stampOf = (row: Pick<UserRow, 'credstamp' | 'passwordhash'>): string => Crypto.createHash('sha256').update(`${row.credstamp}\0${row.passwordhash ?? ''}`).digest('base64url').slice(0, 22);

const newCredstamp = () => Crypto.randomBytes(16).toString('base64url');

const profileOf = (row: ProfileRow, groups: readonly GroupRow[]): UserProfile => {

    const member = groups.filter((group) => group.groupname !== null);
    return {
        userid: row.userid,
        personid: row.personid,
        displayname: row.displayname,
        primaryemail: row.primaryemail,
        defsite: row.defsite,
        insertsite: row.insertsite,
        defaultorg: row.defaultorg,
        langcode: row.langcode,
        groups: member.map((group) => group.groupname!),
        isAdmin: member.some((group) => Boolean(group.isadmin)),
        stamp: stampOf(row)
    };
};

export type UserStatus = 'ACTIVE' | 'INACTIVE';

export class LastAdministratorError extends Error { }

// An authenticated request reads its user and the user's groups in one statement: `withProfile` joins them onto
// a query that finds the userid (the user table itself, or an API key), one row per group.
export const withProfile = <T extends Knex.QueryBuilder>(query: T, useridColumn: string): T => {

    const joined = useridColumn === 'u.userid' ? query : query.join('osprey_user as u', 'u.userid', useridColumn);
    return joined.where('u.status', 'ACTIVE')
        .leftJoin('osprey_groupuser as gu', 'gu.userid', 'u.userid')
        .leftJoin('osprey_group as g', 'g.groupname', 'gu.groupname')
        .orderBy('g.groupname')
        .select('u.userid', 'u.credstamp', 'u.passwordhash', 'u.personid', 'u.displayname', 'u.primaryemail', 'u.defsite', 'u.insertsite', 'u.defaultorg', 'u.langcode', 'g.groupname', 'g.isadmin') as T;
};

export const profileFromRows = (rows: readonly (ProfileRow & GroupRow)[]): UserProfile | undefined => (rows.length ? profileOf(rows[0]!, rows) : undefined);

// Users and groups live in the database so every server node sees the same ones. Changes go through the methods
// below (the demo seed, the osprey command, tests) or through the write engine, as the structures MXAPIMAXUSER and
// MXAPIMAXGROUP (src/users): each runs in one transaction that first moves osprey_authstamp (so that concurrent
// changes queue in one order), and whose triggers move it (credential-stamp.ts), so the change holds on every
// node's next request.
export class Users {

    readonly #knex: Knex;
    readonly #keyTable: string | undefined;

    // Clients such as the npm Maximo client send credentials on every request; a slow hash on each would cap
    // throughput, so a successful check is remembered for a minute under a keyed digest of the credentials,
    // with the user's stamp it was checked against: it holds only while the user's profile has that stamp.
    readonly #verified = new Map<string, { userid: string; stamp: string; expires: number }>();
    readonly #cacheKey = Crypto.randomBytes(32);
    readonly #profiles = new StampedCache<UserProfile | undefined>();

    // keyTable: the API keys' table, whose rows of a user go with the user.
    constructor(knex: Knex, keyTable?: string) {

        this.#knex = knex;
        this.#keyTable = keyTable;
    }

    // osprey_authstamp now, for callers outside a request's login (the scheme reads it with the request's failures).
    async #stamp(): Promise<number> {

        return (await readCredentialState(poolDb(this.#knex), [])).stamp;
    }

    // The profile of an active user; `stamp`: osprey_authstamp as this request read it.
    async profile(userid: string, stamp?: number): Promise<UserProfile | undefined> {

        const id = normalUserid(userid);
        return await this.#profiles.read(stamp ?? await this.#stamp(), id, async () => profileFromRows(await withProfile(this.#knex('osprey_user as u'), 'u.userid').where('u.userid', id)));
    }

    #digest(userid: string, password: string): string {

        return Crypto.createHmac('sha256', this.#cacheKey).update(`${normalUserid(userid)}\0${password}`).digest('base64');
    }

    // The profile of credentials checked right within the last minute, without a check; undefined when they are not
    // remembered (never checked, wrong, expired, or the user changed since), and the caller must verify them.
    async remembered(userid: string, password: string, stamp?: number): Promise<UserProfile | undefined> {

        const digest = this.#digest(userid, password);
        const cached = this.#verified.get(digest);
        if (!cached) {
            return undefined;
        }

        const profile = cached.expires > Date.now() ? await this.profile(cached.userid, stamp) : undefined;
        if (profile?.stamp === cached.stamp) {
            return profile;
        }

        this.#verified.delete(digest);
        return undefined;
    }

    // The profile when the password is right; undefined otherwise, with no hint which part was wrong. Concurrent
    // checks of the same credentials are one check: the login limits run one flight per credentials
    // (src/auth/scheme.ts), since scrypt is the costliest step of a request.
    async verify(userid: string, password: string, stamp?: number): Promise<UserProfile | undefined> {

        const current = stamp ?? await this.#stamp();
        const recent = await this.remembered(userid, password, current);
        if (recent) {
            return recent;
        }

        const digest = this.#digest(userid, password);
        const row = await this.#knex<UserRow>('osprey_user').where({ userid: normalUserid(userid) }).first();
        const ok = await verifyPassword(password, row?.passwordhash);
        if (!ok || row!.status !== 'ACTIVE') {
            return undefined;
        }

        // The profile is read after the check: a change in between gives it another stamp, and the login fails.
        const profile = await this.profile(row!.userid, current);
        if (profile?.stamp !== stampOf(row!)) {
            return undefined;
        }

        if (this.#verified.size >= 10_000) {
            this.#verified.clear();
        }

        this.#verified.set(digest, { userid: row!.userid, stamp: profile.stamp, expires: Date.now() + 60_000 });
        return profile;
    }

    // One change to users, in its own transaction (or the caller's), which first moves osprey_authstamp: the
    // row lock makes changes queue in one order, and every node's next request sees the new stamp.
    async #change<T>(work: (trx: Knex.Transaction) => Promise<T>, trx?: Knex.Transaction): Promise<T> {

        const run = async (inner: Knex.Transaction) => {

            await inner('osprey_authstamp').where({ id: 1 }).increment('stamp', 1);
            return await work(inner);
        };

        return trx ? await run(trx) : await this.#knex.transaction(run);
    }

    // What a user leaves behind: sessions, and API keys (not tied to the user by a foreign key: the key table is a
    // structure's). Also run before a user is made, for rows a deleted user left before this rule.
    async #forget(trx: Knex.Transaction, userid: string): Promise<void> {

        await trx('osprey_session').where({ userid }).delete();
        if (this.#keyTable) {
            await trx(this.#keyTable).where({ userid }).delete();
        }
    }

    async ensureGroup(groupname: string, description: string, isadmin: boolean): Promise<void> {

        await this.#change((trx) => trx('osprey_group').insert({ groupname, description, isadmin }).onConflict('groupname').merge(['description', 'isadmin']));
    }

    async create(user: NewUser, trx?: Knex.Transaction): Promise<void> {

        const { password, groups = [], ...fields } = user;
        const userid = normalUserid(user.userid);
        const passwordhash = await hashPassword(password);
        await this.#change(async (inner) => {

            await this.#forget(inner, userid);
            await inner('osprey_user').insert({ ...fields, userid, passwordhash, credstamp: newCredstamp(), status: 'ACTIVE', created: Date.now() });
            for (const groupname of groups) {
                await inner('osprey_groupuser').insert({ groupname, userid });
            }
        }, trx);
    }

    // A new password: the user's sessions end (on every node, at their next request); API keys stay, as in Maximo.
    // Whether the user exists.
    async setPassword(userid: string, password: string): Promise<boolean> {

        const id = normalUserid(userid);
        const passwordhash = await hashPassword(password);
        return await this.#change(async (trx) => {

            const changed = await trx('osprey_user').where({ userid: id }).update({ passwordhash, credstamp: newCredstamp() });
            await trx('osprey_session').where({ userid: id }).delete();
            return changed > 0;
        });
    }

    // Deactivation ends the user's sessions and logins (a later activation does not bring them back); the API
    // keys stay, and log in again once the user is active. Whether the user exists. `keepAdministrator`: refused
    // (LastAdministratorError, the transaction rolled back) when it would leave no active administrator.
    async setStatus(userid: string, status: UserStatus, keepAdministrator = false): Promise<boolean> {

        const id = normalUserid(userid);
        return await this.#change(async (trx) => {

            const before = keepAdministrator ? await this.countAdministrators(trx) : 0;
            const changed = await trx('osprey_user').where({ userid: id }).update({ status, credstamp: newCredstamp() });
            await trx('osprey_session').where({ userid: id }).delete();
            if (before > 0 && await this.countAdministrators(trx) === 0) {
                throw new LastAdministratorError(`${id} is the last active administrator: make another administrator first.`);
            }

            return changed > 0;
        });
    }

    // The user's groups become exactly these. Whether the user exists.
    async setGroups(userid: string, groups: readonly string[]): Promise<boolean> {

        const id = normalUserid(userid);
        return await this.#change(async (trx) => {

            if (!await trx('osprey_user').where({ userid: id }).first('userid')) {
                return false;
            }

            await trx('osprey_groupuser').where({ userid: id }).delete();
            for (const groupname of new Set(groups)) {
                await trx('osprey_groupuser').insert({ groupname, userid: id });
            }

            return true;
        });
    }

    // Adds and removes some of the user's groups, in one transaction, leaving their other memberships as they are
    // (a membership another writer adds meanwhile stays). The user's groups after it, or undefined when there is no
    // such user. Refused (LastAdministratorError, rolled back) when it would leave no active administrator.
    async changeGroups(userid: string, added: readonly string[], removed: readonly string[]): Promise<string[] | undefined> {

        const id = normalUserid(userid);
        return await this.#change(async (trx) => {

            if (!await trx('osprey_user').where({ userid: id }).first('userid')) {
                return undefined;
            }

            const before = await this.countAdministrators(trx);
            if (removed.length) {
                await trx('osprey_groupuser').where({ userid: id }).whereIn('groupname', [...removed]).delete();
            }

            for (const groupname of new Set(added)) {
                await trx('osprey_groupuser').insert({ groupname, userid: id }).onConflict(['groupname', 'userid']).ignore();
            }

            if (before > 0 && await this.countAdministrators(trx) === 0) {
                throw new LastAdministratorError(`${id} is the last active administrator: make another administrator first.`);
            }

            return (await trx('osprey_groupuser').where({ userid: id }).orderBy('groupname').pluck('groupname') as string[]);
        });
    }

    // Deletes the user with their memberships, sessions and API keys, in one transaction. Whether there was one.
    async remove(userid: string): Promise<boolean> {

        const id = normalUserid(userid);
        return await this.#change(async (trx) => {

            await this.#forget(trx, id);
            await trx('osprey_groupuser').where({ userid: id }).delete();
            return await trx('osprey_user').where({ userid: id }).delete() > 0;
        });
    }

    // `trx`: inside a write's transaction, where SQLite's one pooled connection is the transaction's.
    async exists(userid: string, trx: Knex | ((table: string) => Knex.QueryBuilder) = this.#knex): Promise<boolean> {

        return Boolean(await trx('osprey_user').where({ userid: normalUserid(userid) }).first('userid'));
    }
    async countAdministrators(db: Knex = this.#knex): Promise<number> {

        const [row] = await db('osprey_groupuser as gu')
            .join('osprey_group as g', 'g.groupname', 'gu.groupname')
            .join('osprey_user as u', 'u.userid', 'gu.userid')
            .where('g.isadmin', true).andWhere('u.status', 'ACTIVE')
            .countDistinct({ count: 'gu.userid' });
        return Number(row!.count);
    }
}
