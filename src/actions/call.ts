import type { UserProfile } from '../auth/users';
import type { Db } from '../db/db';
import type { ObjectModel } from '../db/models';
import type { ResourceRequest } from '../request';
import type { Row, Structure } from '../structures/registry';


// What an action's handler is given (issue 35): the request value, the payload its schema validated, the record it
// acts on (locked for update in the action's transaction) and the ways to change records inside that transaction.

/** A record named by its id (the `_…` id of its href) or by its key values ({siteid, wonum}). */
export type RecordRef = string | Row;

// Changes records through the write engine, inside the action's one transaction: the same rights, owner rules,
// validation, domains, lookups, status transitions, rowstamps, history and after-commit events as a PATCH, a
// POST or a DELETE of the same record. Each answers the row as stored (a delete: as it was). A refusal throws
// the same Maximo error the HTTP write would answer, and the whole action rolls back.
export interface EngineWrites {
    create(structure: string, body: Row): Promise<Row>;
    /** `asOf`: the time the update's status date and history row carry, in place of the action's time. */
    update(structure: string, record: RecordRef, body: Row, options?: { asOf?: Date }): Promise<Row>;
    /** An update that keeps the children the body leaves out (patchtype MERGE). */
    merge(structure: string, record: RecordRef, body: Row): Promise<Row>;
    /** Updates the record the body's keys name, or creates it. */
    sync(structure: string, body: Row): Promise<Row>;
    remove(structure: string, record: RecordRef): Promise<Row>;
    /** The record, as this user may see it, read in the action's transaction (a 404 if they may not). */
    read(structure: string, record: RecordRef, options?: { lock?: boolean }): Promise<Row>;
}

export interface ActionCall {
    /** The request value the action came in with (user, structure, home, flags). */
    readonly req: ResourceRequest;
    /** The name as the client sent it (`wsmethod:changeStatus`). */
    readonly name: string;
    /** The JSON body, as the action's Joi schema validated (and converted) it; undefined without a schema. */
    readonly payload: any;
    readonly structure: Structure;
    /** The record a record action acts on, as stored, locked for update; none for a collection action. */
    readonly record?: Row;
    /** The id of that record (its href's last segment). */
    readonly id?: string;
    readonly user: UserProfile;
    /** The one time the action's writes are stamped with. */
    readonly now: Date;
    /** The action's transaction: raw statements and the models bound to it (no rights, no rules). */
    readonly db: Db;
    readonly models: ReadonlyMap<string, ObjectModel>;
    /** Writes through the engine, in the same transaction. */
    readonly write: EngineWrites;
    /** Runs `then` once the action's transaction committed (a log line, a message to another system), never when
     * it rolls back (a later error, an all-or-nothing bulk's other item, a trial such as system:candelete). Its
     * error goes to the server's log; the answer stays the action's. */
    afterCommit(then: () => void | Promise<void>): void;
}
