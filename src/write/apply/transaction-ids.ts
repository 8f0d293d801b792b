import type { Knex } from 'knex';

import type { Db } from '../../db/db';
import { maximoError } from '../../errors/maximo-error';


// `transactionid` makes a write idempotent: the id is inserted in the write's own transaction, so it is
// remembered exactly when the write commits. A second request with the id fails on the primary key — on any
// node sharing the database, and even while the first is still running (PostgreSQL makes the second insert
// wait for the first transaction, SQLite runs one write transaction at a time).

const table = 'osprey_transaction';

const duplicate = (id: string) => maximoError('duplicateTransaction', `The transaction ${id} has already been processed.`);

export const recordTransactionId = async (db: Db, id: string, now: number, retentionMs: number): Promise<void> => {

    const seen = await db.query(table).where({ id }).first() as { created: number | string } | undefined;
    if (seen && Number(seen.created) >= now - retentionMs) {
        throw duplicate(id);
    }

    if (seen) {
        await db.query(table).where({ id }).delete();
    }

    try {
        await db.query(table).insert({ id, created: now });
    }
    catch {
        throw duplicate(id);
    }
};

// Ids older than the retention are forgotten; every node purges now and then, which is harmless.
export const purgeTransactionIds = async (knex: Knex, now: number, retentionMs: number): Promise<number> => {

    return await knex(table).where('created', '<', now - retentionMs).delete();
};
