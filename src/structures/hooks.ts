import type { Osprey } from '../context';
import type { UserProfile } from '../auth/users';
import type { Db } from '../db/db';
import type { DatabaseKind } from '../db/knex';
import type { ResourceRequest } from '../request';
import type { Attribute, BusinessObject, Row, Structure } from './registry';


// Per-structure hooks (issue 17): a business object whose records follow rules of their own (an API key is made,
// never edited, and shows its value to its owner only) registers them here, keyed by the object's name; the write
// engine and the resources plugin call the hook points without knowing any object by name.

export interface Computed {
    /** The value of the attribute in a stored row, as JSON, at `now` (ms). */
    readonly value: (row: Row, now: number) => unknown;
    /** Why the attribute cannot be used in a query, and what to use instead. */
    readonly query: string;
    /** An SQL expression of the value over the row's own columns, given the alias of its table: with one, the
     * attribute filters in oslc.where (never sorts or groups: keyset paging reads sort values from the rows). */
    readonly sql?: (alias: string, kind: DatabaseKind) => string;
}

/** What a create hook is given: the request, its body (a JSON object), and the write's transaction and time. */
export interface CreateCall {
    readonly req: ResourceRequest;
    readonly body: Row;
    readonly db: Db;
    readonly now: Date;
}

export interface StructureHooks {
    /** A create (a POST to the collection) makes the record here in place of the generic create, in the write's
     * transaction, and answers the stored row. The write engine has checked the insert right before, and renders
     * the record, tells the after-commit subscribers and answers 201 with Location as for any create. */
    readonly create?: (call: CreateCall) => Promise<Row>;
    /** Before an update, merge, sync or bulk is planned or applied: throws to refuse it. */
    readonly beforeChange?: (structure: Structure) => void;
    /** Attributes declared `persistent: false` whose value is worked out when a record is read, by attribute name. */
    readonly computed?: Readonly<Record<string, Computed>>;
    /** Whether a select may name the object's secret attributes (they render through `reveal`). */
    readonly selectSecrets?: boolean;
    /** With selectSecrets, the secret attributes `reveal` answers: a select that names another (a digest `reveal`
     * never renders) is a 400 rather than an answer without it. Every secret attribute when not given. */
    readonly revealed?: readonly string[];
    /** Records are created, deleted and their secrets read with a credential login only, never with an API key
     * (a leaked key must not mint, read or revoke keys): a 403 otherwise. */
    readonly credentialOnly?: boolean;
    /** Every write of the records (create, update, delete, bulk) needs a credential login: a 403 with an API key
     * (users and groups: a leaked key must not make an administrator with a password it knows). */
    readonly credentialWrites?: boolean;
    /** Runs in a write's transaction before its work, and answers the check run after it, before the commit: a
     * check that throws refuses what the write did (the last active administrator kept: src/users/rules.ts).
     * `user` is who writes. */
    readonly invariant?: (db: Db, user: UserProfile) => Promise<(db: Db) => Promise<void>>;
    /** How a secret attribute of a row renders for this user: its value, or undefined (null, hidden). */
    readonly reveal?: (attr: Attribute, row: Row, user: UserProfile, osprey: Osprey) => string | undefined;
}

const none: StructureHooks = Object.freeze({});
const registered = new Map<string, StructureHooks>();

// Registers the hooks of a business object (by name); registering again replaces them.
export const registerHooks = (objectName: string, hooks: StructureHooks): void => {

    registered.set(objectName, hooks);
};

export const unregisterHooks = (objectName: string): void => {

    registered.delete(objectName);
};

// The hooks of an object (or of a structure's root object): none registered, an empty set.
export const hooksOf = (object: BusinessObject | string): StructureHooks => registered.get(typeof object === 'string' ? object : object.name) ?? none;
