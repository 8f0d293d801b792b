import type { ContentStore, StoreName } from '../attachments/store';
import type { Db } from '../db/db';
import type { AttributeError } from '../errors/maximo-error';
import type { UserProfile } from '../auth/users';
import type { ResourceRequest } from '../request';
import type { BusinessObject, Registry, Row, Structure } from '../structures/registry';
import type { CommittedAction, CommittedWrite } from './after-commit';
import type { WriteOptions } from './request';


// What the write engine asks of the plugins' handlers of non-persistent attributes (attribute-writes.ts), bound to
// one request's user.
export interface AttributeWriteRunner {
    claims(object: BusinessObject, attribute: string): boolean;
    /** Calls the handler of each claim the row's non-persistent values name. */
    run(scope: WriteScope, written: { object: BusinessObject; operation: 'create' | 'update'; row: Row; record: Row; transient: Row }): Promise<void>;
}

// Everything one write request carries through the write engine.
export interface WriteContext {
    readonly registry: Registry;
    /** Who writes: the rows of other structures a write reads (its lookups) are those this user may read. */
    readonly user: UserProfile;
    readonly userid: string;
    readonly now: Date;
    /** `batcherror: 1`: report every attribute error of the record, not only the first. */
    readonly batchErrors: boolean;
    /** `x-allow-events: 0` turns the events of this write off (the events themselves come with actions). */
    readonly allowEvents: boolean;
    readonly transactionId?: string;
    /** When a status change happened, where the write says (wsmethod:changeStatus's date): its status date and
     * history row carry it; everything else of the write is stamped `now`. */
    readonly statusAsOf?: Date;
    /** The handlers plugins registered for non-persistent attributes (attribute-writes.ts), bound to the request's
     * user; none on a server without any, and on a write made without a request value (API-key routes). */
    readonly attributeWrites?: AttributeWriteRunner;
    /** Where a record's inline documents (doclinks in its body) are kept, and the largest one (src/write/plan/documents.ts);
     * none on a write made without a server's attachments (a unit test's). */
    readonly documents?: { readonly store: ContentStore; readonly maxSize: number };
}

// The content an inline document wrote in the folder store (not transactional: marked gone if the write rolls
// back), and whether a document was deleted (its bytes are swept after the commit).
export interface WrittenContent {
    readonly stored: { readonly key: string; readonly store: StoreName }[];
    gone: boolean;
}

// One write in progress: its transaction and the attribute errors found so far.
export interface WriteScope {
    /** The write's transaction. */
    readonly db: Db;
    readonly ctx: WriteContext;
    readonly structure: Structure;
    readonly errors: AttributeError[];
    /** The records written so far, for the after-commit subscribers (after-commit.ts). */
    readonly written: CommittedWrite[];
    /** The actions run so far (an action's transaction, or each item's of a bulk action). */
    readonly actions: CommittedAction[];
    /** What inline documents wrote to the store (src/write/apply/documents.ts). */
    readonly contents?: WrittenContent;
    /** The invariants' checks (src/structures/hooks.ts) of the objects the transaction writes, by invariant (objects
     * that share one, users, groups and memberships, run it once): each entered before its objects' first write,
     * all run before the commit (transaction.ts). */
    readonly checks?: Map<unknown, (db: Db) => Promise<void>>;
    /** What runs once the transaction committed, never when it rolls back (an action's afterCommit). */
    readonly committed?: (() => void | Promise<void>)[];
}

// The context of a write by `user` with these options; `now` is the one time every row of the write is stamped with.
export const writeContextFor = (registry: Registry, user: UserProfile, options: Pick<WriteOptions, 'batchErrors' | 'allowEvents' | 'transactionId'>): WriteContext => {

    return {
        registry,
        user,
        userid: user.userid,
        now: new Date(),
        batchErrors: options.batchErrors,
        allowEvents: options.allowEvents,
        transactionId: options.transactionId
    };
};

export const writeContextOf = (req: ResourceRequest): WriteContext => writeContextFor(req.osprey.registry, req.user, req.write);
