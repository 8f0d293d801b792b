import * as Crypto from 'node:crypto';

import type { Knex } from 'knex';

import { ReadCache } from '../db/read-cache';
import { hashPassword, verifyPassword } from './passwords';


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

type ProfileRow = Omit<UserRow, 'passwordhash' | 'status'>;

interface UserRow {
    userid: string;
    passwordhash: string | null;
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
        isAdmin: member.some((group) => Boolean(group.isadmin))
    };
};

// An authenticated request reads its user and the user's groups in one statement: `withProfile` joins them onto
// a query that finds the userid (the user table itself, or an API key), one row per group.
export const withProfile = <T extends Knex.QueryBuilder>(query: T, useridColumn: string): T => {

    const joined = useridColumn === 'u.userid' ? query : query.join('osprey_user as u', 'u.userid', useridColumn);
    return joined.where('u.status', 'ACTIVE')
        .leftJoin('osprey_groupuser as gu', 'gu.userid', 'u.userid')
        .leftJoin('osprey_group as g', 'g.groupname', 'gu.groupname')
        .orderBy('g.groupname')
        .select('u.userid', 'u.personid', 'u.displayname', 'u.primaryemail', 'u.defsite', 'u.insertsite', 'u.defaultorg', 'u.langcode', 'g.groupname', 'g.isadmin') as T;
};

// The tables withProfile reads (a read cached on them is dropped when one is written).
export const profileTables: readonly string[] = ['osprey_user', 'osprey_groupuser', 'osprey_group'];

export const profileFromRows = (rows: readonly (ProfileRow & GroupRow)[]): UserProfile | undefined => (rows.length ? profileOf(rows[0]!, rows) : undefined);

// Users and groups live in the database so every server node sees the same ones.
export class Users {

    readonly #knex: Knex;

    // Clients such as the npm Maximo client send credentials on every request; a slow hash on each would cap
    // throughput, so a successful check is remembered for a minute under a keyed digest of the credentials.
    readonly #verified = new Map<string, { userid: string; expires: number }>();
    readonly #cacheKey = Crypto.randomBytes(32);
    readonly #profiles: ReadCache<UserProfile | undefined>;

    constructor(knex: Knex) {

        this.#knex = knex;
        this.#profiles = new ReadCache(knex, profileTables);
    }

    async profile(userid: string): Promise<UserProfile | undefined> {

        const id = userid.toUpperCase();
        return await this.#profiles.read(id, async () => profileFromRows(await withProfile(this.#knex('osprey_user as u'), 'u.userid').where('u.userid', id)));
    }

    #digest(userid: string, password: string): string {

        return Crypto.createHmac('sha256', this.#cacheKey).update(`${userid.toUpperCase()}\0${password}`).digest('base64');
    }

    // The profile of credentials checked right within the last minute, without a check; undefined when they are not
    // remembered (never checked, wrong, or expired), and the caller must verify them.
    remembered(userid: string, password: string): Promise<UserProfile | undefined> | undefined {

        const cached = this.#verified.get(this.#digest(userid, password));
        return cached && cached.expires > Date.now() ? this.profile(cached.userid) : undefined;
    }

    // The profile when the password is right; undefined otherwise, with no hint which part was wrong. Concurrent
    // checks of the same credentials are one check: the login limits run one flight per credentials
    // (src/auth/scheme.ts), since scrypt is the costliest step of a request.
    async verify(userid: string, password: string): Promise<UserProfile | undefined> {

        const digest = this.#digest(userid, password);
        const cached = this.#verified.get(digest);
        if (cached && cached.expires > Date.now()) {
            return await this.profile(cached.userid);
        }

        const found = await this.#check(digest, userid, password);
        return found === undefined ? undefined : await this.profile(found);
    }

    async #check(digest: string, userid: string, password: string): Promise<string | undefined> {

        this.#verified.delete(digest);
        const row = await this.#knex<UserRow>('osprey_user').where({ userid: userid.toUpperCase() }).first();
        const ok = await verifyPassword(password, row?.passwordhash);
        if (!ok || row!.status !== 'ACTIVE') {
            return undefined;
        }

        if (this.#verified.size >= 10_000) {
            this.#verified.clear();
        }

        this.#verified.set(digest, { userid: row!.userid, expires: Date.now() + 60_000 });
        return row!.userid;
    }

    async ensureGroup(groupname: string, description: string, isadmin: boolean): Promise<void> {

        await this.#knex('osprey_group').insert({ groupname, description, isadmin }).onConflict('groupname').merge(['description', 'isadmin']);
    }

    async create(user: NewUser, trx: Knex = this.#knex): Promise<void> {

        const { password, groups = [], ...fields } = user;
        await trx('osprey_user').insert({ ...fields, userid: user.userid.toUpperCase(), passwordhash: await hashPassword(password), status: 'ACTIVE', created: Date.now() });
        for (const groupname of groups) {
            await trx('osprey_groupuser').insert({ groupname, userid: user.userid.toUpperCase() });
        }
    }

    // `trx`: inside a write's transaction, where SQLite's one pooled connection is the transaction's.
    async exists(userid: string, trx: Knex | ((table: string) => Knex.QueryBuilder) = this.#knex): Promise<boolean> {

        return Boolean(await trx('osprey_user').where({ userid: userid.toUpperCase() }).first('userid'));
    }

    async countAdministrators(): Promise<number> {

        const [row] = await this.#knex('osprey_groupuser as gu')
            .join('osprey_group as g', 'g.groupname', 'gu.groupname')
            .join('osprey_user as u', 'u.userid', 'gu.userid')
            .where('g.isadmin', true).andWhere('u.status', 'ACTIVE')
            .countDistinct({ count: 'gu.userid' });
        return Number(row!.count);
    }
}
