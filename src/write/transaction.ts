import type { Knex } from 'knex';

import type { UserProfile } from '../auth/users';
import type { Osprey } from '../context';
import { databaseInputError } from '../db/errors';
import { transaction } from '../db/transaction';
import { attributeError, batchedError } from '../errors/maximo-error';
import type { ResourceRequest } from '../request';
import { hooksOf } from '../structures/hooks';
import type { BusinessObject, Structure } from '../structures/registry';
import { notifyCommit, reportCommitError } from './after-commit';
import { contentGone } from '../attachments/documents';
import { writeContextFor, type WriteContext, type WriteScope, type WrittenContent } from './context';
import type { WriteOptions } from './request';
import { recordTransactionId, type TransactionKey } from './apply/transaction-ids';


export interface WriteSettings {
    readonly knex: Knex;
    readonly ctx: WriteContext;
    readonly structure: Structure;
    readonly retentionMs: number;
    /** The server whose after-commit subscribers hear what the write wrote, and who wrote it; none: nobody hears. */
    readonly commit?: { readonly osprey: Osprey; readonly user: UserProfile };
    /** A short write (one record, one bulk item), which may share its COMMIT with others (src/db/group-commit.ts). */
    readonly grouped?: boolean;
    /** A write likely to be one update by key and rowstamp, which may then run without a transaction
     * (src/db/single-statement.ts); run in one when it proves more. */
    readonly single?: boolean;
}

// The settings of a write by `user` on `structure` (the API-token routes write keys without a record route).
export const writeSettingsFor = (osprey: Osprey, user: UserProfile, structure: Structure, options: Pick<WriteOptions, 'batchErrors' | 'allowEvents' | 'transactionId'>): WriteSettings => {

    const made = writeContextFor(osprey.registry, user, options);
    // The engine's attachments, where this server has them (a unit test's server value may not).
    const attachments = (osprey as Partial<Osprey>).attachments;
    const ctx = attachments ? { ...made, documents: { store: attachments.store, maxSize: Math.min(osprey.options.maxAttachment, structure.root.attachmentMaxSize ?? Infinity) } } : made;
    return { knex: osprey.knex, ctx, structure, retentionMs: osprey.options.transactionRetentionHours * 3600_000, commit: { osprey, user } };
};

// A record route's write: the plugins' attribute handlers (attribute-writes.ts) run in it as its user.
export const writeSettingsOf = (req: ResourceRequest): WriteSettings => {

    const settings = writeSettingsFor(req.osprey, req.user, req.structure, req.write);
    const attributeWrites = req.osprey.attributeWrites?.runnerFor(req);
    return attributeWrites ? { ...settings, ctx: { ...settings.ctx, attributeWrites } } : settings;
};

// A transactionid is the user's on the structure the write is on.
export const transactionKey = (settings: WriteSettings, id: string): TransactionKey => ({ id, userid: settings.ctx.userid, structure: settings.structure.id });

// The attribute errors found so far end the write: the first alone, or all with `batcherror: 1`.
export const throwErrors = (scope: WriteScope): void => {

    if (scope.errors.length) {
        throw scope.ctx.batchErrors ? batchedError(scope.errors) : attributeError(scope.errors[0]!);
    }
};

// The folder store's files of inline documents whose write rolled back: their chunk rows went with it, their files
// are marked gone for the sweeper (the database store's bytes are rows, gone with the rollback).
const abandonContents = async (settings: WriteSettings, runs: readonly WrittenContent[]): Promise<void> => {

    const stored = runs.flatMap((run) => run.stored).filter((content) => content.store !== 'database');
    if (!stored.length) {
        return;
    }

    await transaction(settings.knex, async (db) => {

        for (const { key, store } of stored) {
            await contentGone(db, key, store, Date.now());
        }
    }).catch(() => undefined);
    void settings.commit?.osprey.attachments.sweeper.soon();
};

// A structure's invariant (hooks.ts: the last active administrator kept) holds for every write of its records in
// the transaction, the writes an action makes on other structures than its own included: it is entered before the
// structure's first write, and checked with the others before the commit.
// An object's invariant holds wherever the object sits: a structure may serve a business object that has one as
// its root or as a child at any depth (GROUPUSER, Osprey's group memberships, under another structure's people).
// The objects of a structure that have one (a walk of a few objects: hooks may be registered after a first write).
const guardedObjects = (structure: Structure): readonly BusinessObject[] => {

    const found: BusinessObject[] = [];
    const visit = (object: BusinessObject) => {

        if (hooksOf(object).invariant) {
            found.push(object);
        }

        for (const child of object.children.values()) {
            visit(child.object);
        }
    };

    visit(structure.root);
    return found;
};

export const enterInvariant = async (scope: WriteScope, structure: Structure): Promise<void> => {

    for (const object of scope.checks ? guardedObjects(structure) : []) {
        const invariant = hooksOf(object).invariant!;
        if (!scope.checks!.has(invariant)) {
            scope.checks!.set(invariant, await invariant(scope.db, scope.ctx.user));
        }
    }
};

// The checks of the invariants entered so far: what a write did that one refuses throws.
export const checkInvariants = async (scope: WriteScope): Promise<void> => {

    for (const check of scope.checks?.values() ?? []) {
        await check(scope.db);
    }
};

// Runs one write in one database transaction: any error rolls back everything, the transaction id included.
// A write likely to be one statement (`single`) may run as that statement alone (src/db/single-statement.ts).
// Once it committed, the after-commit subscribers hear what it wrote (never when it rolled back).
export const runWrite = async <T>(settings: WriteSettings, work: (scope: WriteScope) => Promise<T>): Promise<T> => {

    const { knex, ctx, structure } = settings;
    let done: { result: T; scope: WriteScope };
    // Each run of the work (a single statement's may run again in a transaction) keeps what its documents wrote.
    const runs: WrittenContent[] = [];
    try {
        done = await transaction(knex, async (db) => {

            const contents: WrittenContent = { stored: [], gone: false };
            runs.push(contents);
            const scope: WriteScope = { db, ctx, structure, errors: [], written: [], actions: [], contents, checks: new Map(), committed: [] };
            if (ctx.transactionId !== undefined) {
                await recordTransactionId(db, transactionKey(settings, ctx.transactionId), ctx.now.getTime(), settings.retentionMs);
            }

            await enterInvariant(scope, structure);
            const result = await work(scope);
            await checkInvariants(scope);
            return { result, scope };
        }, { grouped: settings.grouped === true, single: settings.single === true });
    }
    catch (error) {
        await abandonContents(settings, runs);
        throw databaseInputError(error) ?? error;
    }

    await abandonContents(settings, runs.slice(0, -1));
    if (done.scope.contents?.gone) {
        void settings.commit?.osprey.attachments.sweeper.soon();
    }

    if (settings.commit) {
        // What the write's actions asked to run once it committed (a write without a server to tell has no action).
        for (const then of done.scope.committed ?? []) {
            try {
                await then();
            }
            catch (error) {
                // Committed: the answer is the write's, as for an after-commit subscriber's error (after-commit.ts).
                reportCommitError(settings.commit.osprey, error);
            }
        }

        await notifyCommit(settings.commit.osprey, { user: settings.commit.user, transactionId: ctx.transactionId, writes: done.scope.written, actions: done.scope.actions });
    }

    return done.result;
};
