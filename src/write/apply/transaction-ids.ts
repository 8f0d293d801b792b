import type { Knex } from 'knex';

import type { Db } from '../../db/db';
import { maximoError } from '../../errors/maximo-error';


// `transactionid` makes a write idempotent: the id is inserted in the write's own transaction, so it is
// remembered exactly when the write commits. A second request with the id fails on the primary key — on any
// node sharing the database, and even while the first is still running (PostgreSQL makes the second insert
// wait for the first transaction, SQLite runs one write transaction at a time).
//
// An id is its user's on one structure: the key is (id, userid, objectstructure), so two users, or one user on
// two structures, may send the same id. Rows recorded before ids were scoped (and by a node of an older version
// during an upgrade) have userid and objectstructure '': whose they were is unknown, so they refuse the id to
// everyone, as they did, until they expire.

const table = 'osprey_transaction';

/** A transactionid and whose it is. */
export interface TransactionKey {
    readonly id: string;
    readonly userid: string;
    /** The structure's id (its lowercase name). */
    readonly structure: string;
}

const duplicate = (id: string) => maximoError('duplicateTransaction', `The transaction ${id} has already been processed.`);

interface Seen {
    readonly userid: string;
    readonly objectstructure: string;
    readonly created: number | string;
}

const seenRows = async (db: Db, key: TransactionKey): Promise<Seen[]> => {

    return await db.query(table).select('userid', 'objectstructure', 'created').where({ id: key.id }).andWhere((where) => {

        void where.where({ userid: key.userid, objectstructure: key.structure }).orWhere({ userid: '', objectstructure: '' });
    }) as Seen[];
};

// The id as remembered within the retention, or nothing; an expired row is deleted, so the id can be used again.
const remembered = async (db: Db, key: TransactionKey, now: number, retentionMs: number): Promise<boolean> => {

    const seen = await seenRows(db, key);
    if (seen.some((row) => Number(row.created) >= now - retentionMs)) {
        return true;
    }

    for (const row of seen) {
        await db.query(table).where({ id: key.id, userid: row.userid, objectstructure: row.objectstructure }).delete();
    }

    return false;
};

export const recordTransactionId = async (db: Db, key: TransactionKey, now: number, retentionMs: number): Promise<void> => {

    if (await remembered(db, key, now, retentionMs)) {
        throw duplicate(key.id);
    }

    try {
        await db.query(table).insert({ id: key.id, userid: key.userid, objectstructure: key.structure, created: now });
    }
    catch (error) {
        // Only the key's own violation (another request recording the id at the same moment) means "done"; any
        // other failure must not tell a client that a write it never made was made.
        const { code, message = '' } = (error ?? {}) as { code?: string; message?: string };
        if (code === '23505' || code === 'SQLITE_CONSTRAINT_PRIMARYKEY' || code === 'SQLITE_CONSTRAINT_UNIQUE' || /UNIQUE constraint failed/.test(message)) {
            throw duplicate(key.id);
        }

        throw error;
    }
};

// Refuses an id already remembered, without recording it (a bulk's own id before its items record theirs).
export const refuseRecordedTransactionId = async (db: Db, key: TransactionKey, now: number, retentionMs: number): Promise<void> => {

    if (await remembered(db, key, now, retentionMs)) {
        throw duplicate(key.id);
    }
};

// Ids older than the retention are forgotten; every node purges now and then, which is harmless.
export const purgeTransactionIds = async (knex: Knex, now: number, retentionMs: number): Promise<number> => {

    return await knex(table).where('created', '<', now - retentionMs).delete();
};
