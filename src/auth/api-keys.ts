import * as Crypto from 'node:crypto';

import type { Knex } from 'knex';

import { maximoError } from '../errors/maximo-error';
import type { Registry, Structure } from '../structures/registry';
import { poolDb, type Db } from '../db/db';
import { rowstampColumn } from '../db/migrate';
import { remember } from '../db/remember';
import type { Row } from '../read/execute/find';
// Importing the hooks registers the API-key rules with the write engine (src/structures/hooks.ts).
import { apiKeyObject } from './api-key-hooks';
import { readCredentialState } from './credential-stamp';
import { StampedCache } from './stamped-cache';
import { profileFromRows, withProfile, type UserProfile } from './users';


// API keys at rest (CONTRACT §7): 32 random bytes, stored sealed with AES-256-GCM under the server secret (so
// apitoken/get can hand an existing key back) and found by an HMAC-SHA256 digest, never by the key itself.
// They live in the structure on business object APIKEYTOKEN (MXAPIAPIKEY): its columns `apikey` (the sealed
// key) and `apikeyhash` (the digest) are `secret`, so no query can filter or sort on them.

export { apiKeyObject };
const required = ['userid', 'apikey', 'apikeyhash', 'expiration', 'expirationdate', 'creationdate', 'lastused'];
const lastUsedEveryMs = 60_000;

type KeyRow = Row & Parameters<typeof profileFromRows>[0][number];

// A key as its lookup found it, worked out once per lookup rather than on every request that sends it.
interface FoundKey {
    readonly keyid: number;
    /** When it expires (ms since the epoch); Infinity for a key that does not. */
    readonly expires: number;
    /** When it was last used as lastused says, or as this node last wrote it (ms since the epoch); -Infinity for
     * never. Moved when lastused is written: that write moves no osprey_authstamp, so the key stays cached. */
    used: number;
    readonly profile: UserProfile;
}

export interface NewKey {
    readonly userid: string;
    readonly expiration: number;
    readonly apikey?: string;
}

export class ApiKeys {

    readonly structure: Structure | undefined;
    readonly #knex: Knex;
    readonly #cipherKey: Buffer;
    readonly #digestKey: Buffer;
    readonly #verified = new StampedCache<FoundKey | undefined>();

    constructor(knex: Knex, registry: Registry, secret: Buffer) {

        this.#knex = knex;
        this.structure = registry.byObject(apiKeyObject);
        const missing = required.filter((name) => !this.structure?.root.attributes.get(name)?.persistent);
        if (this.structure && missing.length) {
            throw new Error(`${this.structure.file}: the API-key structure needs the attributes ${missing.join(', ')}`);
        }

        // active is worked out when a key is read (src/structures/computed.ts); a stored flag would outlive the expiry.
        if (this.structure?.root.attributes.get('active')?.persistent) {
            throw new Error(`${this.structure.file}: the API-key attribute active is computed when a key is read; declare it persistent: false`);
        }

        // Without it any user could make keys for an administrator: the owner rule is what keeps users to their own.
        if (this.structure && this.structure.def.access.owner !== 'userid') {
            throw new Error(`${this.structure.file}: the API-key structure needs access: owner: userid`);
        }

        // Two keys derived from the one secret: one seals keys, the other makes lookup digests.
        this.#cipherKey = Crypto.createHmac('sha256', secret).update('osprey apikey seal').digest();
        this.#digestKey = Crypto.createHmac('sha256', secret).update('osprey apikey digest').digest();
    }

    get #table(): string {

        return this.available().root.table;
    }

    available(): Structure {

        if (!this.structure) {
            throw maximoError('routeNotFound', `API keys need an object structure on ${apiKeyObject} (structures/mxapiapikey.yaml).`);
        }

        return this.structure;
    }

    digest(key: string): string {

        return Crypto.createHmac('sha256', this.#digestKey).update(key).digest('hex');
    }

    // The digest of a key sent with a request, made once per key while the process runs (the HMAC was 3 % of a
    // GET's CPU). Only keys that named a valid key are kept, at most 10,000: the map holds keys this process was
    // sent and checked anyway, in its memory only, and a guessed key costs its HMAC every time.
    readonly #sentDigests = new Map<string, string>();

    #sentDigest(key: string): string {

        return this.#sentDigests.get(key) ?? this.digest(key);
    }

    #keepDigest(key: string, digest: string): void {

        if (!this.#sentDigests.has(key)) {
            remember(this.#sentDigests, key, digest, 10_000);
        }
    }

    seal(key: string): string {

        const iv = Crypto.randomBytes(12);
        const cipher = Crypto.createCipheriv('aes-256-gcm', this.#cipherKey, iv);
        const sealed = Buffer.concat([cipher.update(key, 'utf8'), cipher.final()]);
        return `v1.${Buffer.concat([iv, cipher.getAuthTag(), sealed]).toString('base64url')}`;
    }

    open(sealed: string): string {

        const raw = Buffer.from(sealed.slice(3), 'base64url');
        const decipher = Crypto.createDecipheriv('aes-256-gcm', this.#cipherKey, raw.subarray(0, 12));
        decipher.setAuthTag(raw.subarray(12, 28));
        return Buffer.concat([decipher.update(raw.subarray(28)), decipher.final()]).toString('utf8');
    }

    // A new key row, in the caller's transaction. `apikey` is a key supplied from outside (already checked).
    // `locked`: the caller holds the user's row lock already (lockUser).
    async insert(db: Db, input: NewKey, now: Date, locked = false): Promise<{ row: Row; apikey: string }> {

        // A key is made for an active user only, read under their row's lock: a key made while the user was being
        // deactivated would outlive the deactivation (which deletes their keys) and work again on reactivation.
        if (!locked) {
            await this.lockUser(db, input.userid);
        }

        const [user] = await db.query('osprey_user').where({ userid: input.userid }).select('status') as Row[];
        if (user?.status !== 'ACTIVE') {
            throw maximoError('badRequest', `${input.userid} is not an active user: a key is made for an active user only.`);
        }

        const apikey = input.apikey ?? Crypto.randomBytes(32).toString('base64url');
        const expirationdate = input.expiration === -1 ? null : new Date(now.getTime() + input.expiration * 60_000).toISOString();
        const values = { userid: input.userid, apikey: this.seal(apikey), apikeyhash: this.digest(apikey), expiration: input.expiration, expirationdate, creationdate: now.toISOString(), [rowstampColumn]: now.getTime() * 1000 };
        const unique = this.available().root.uniqueColumn;
        const [inserted] = await db.query(this.#table).insert(values).returning(unique) as Row[];
        return { row: await db.query(this.#table).where(unique, inserted![unique] as number).first() as Row, apikey };
    }

    // The profile of the user a key belongs to, while the key is valid, in one statement (key, user, groups) —
    // none while osprey_authstamp has not moved since the last request with the key (`stamp`, as the request read
    // it: src/auth/credential-stamp.ts), which every change to keys, users and groups moves.
    // The key is found by its HMAC digest alone: equal digests under the server's secret mean equal keys, and a
    // lookup's timing can only tell about a digest, from which no key can be worked out. lastused is written at
    // most once a minute per key.
    async verify(key: string, stamp?: number): Promise<UserProfile | undefined> {

        if (!this.structure || key.length > 200) {
            return undefined;
        }

        const unique = this.structure.root.uniqueColumn;
        const digest = this.#sentDigest(key);
        const found = await this.#verified.read(stamp ?? (await readCredentialState(poolDb(this.#knex), [])).stamp, digest, async () => {

            const rows = await withProfile(this.#knex(`${this.#table} as k`), 'k.userid')
                .where('k.apikeyhash', digest)
                .select({ keyid: `k.${unique}`, keyexpires: 'k.expirationdate', keyused: 'k.lastused' }) as KeyRow[];
            const row = rows[0];
            return row && {
                keyid: row.keyid as number,
                expires: row.keyexpires === null ? Infinity : new Date(row.keyexpires as string).getTime(),
                used: row.keyused === null ? -Infinity : new Date(row.keyused as string).getTime(),
                profile: profileFromRows(rows)!
            };
        });
        const now = Date.now();
        if (!found || found.expires <= now) {
            return undefined;
        }

        this.#keepDigest(key, digest);

        if (found.used < now - lastUsedEveryMs) {
            found.used = now;
            // Not awaited: the request does not wait for bookkeeping, and a lost update only delays lastused.
            this.#knex(this.#table).where(unique, found.keyid).update({ lastused: new Date(now).toISOString() }).catch(() => undefined);
        }

        return found.profile;
    }

    // The newest key of a user that is still valid, as the user can send it (in `db`'s transaction where given).
    async current(userid: string, db?: Db): Promise<string | undefined> {

        const query = db ? db.query(this.#table) : this.#knex(this.#table);
        const row = await query.where({ userid }).where((q) => q.whereNull('expirationdate').orWhere('expirationdate', '>', new Date().toISOString()))
            .orderBy(this.available().root.uniqueColumn, 'desc').first() as Row | undefined;
        return row && this.open(String(row.apikey));
    }

    // Takes the user's row lock for the rest of the transaction: a user's key changes (get, create, revoke) run one
    // at a time. On PostgreSQL two creates at once otherwise each deleted the keys they saw and inserted one, both
    // left live, and a get could answer a key another create had just deleted. (SQLite's one writer queues them.)
    async lockUser(db: Db, userid: string): Promise<void> {

        if (db.kind === 'postgresql') {
            await db.query('osprey_user').where({ userid }).select('userid').forUpdate();
        }
    }

    // The caller holds the user's row lock (lockUser).
    async revokeAll(db: Db, userid: string): Promise<number> {

        return await db.query(this.#table).where({ userid }).delete();
    }
}
