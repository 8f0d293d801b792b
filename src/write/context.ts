import type { Db } from '../db/db';
import type { AttributeError } from '../errors/maximo-error';
import type { Registry, Structure } from '../structures/registry';


// Everything one write request carries through the write engine.
export interface WriteContext {
    readonly registry: Registry;
    readonly userid: string;
    readonly now: Date;
    /** `batcherror: 1`: report every attribute error of the record, not only the first. */
    readonly batchErrors: boolean;
    /** `x-allow-events: 0` turns the events of this write off (the events themselves come with actions). */
    readonly allowEvents: boolean;
    readonly transactionId?: string;
}

// One write in progress: its transaction and the attribute errors found so far.
export interface WriteScope {
    /** The write's transaction. */
    readonly db: Db;
    readonly ctx: WriteContext;
    readonly structure: Structure;
    readonly errors: AttributeError[];
}
