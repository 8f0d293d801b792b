import type { Knex } from 'knex';

import type { Db } from '../db/db';
import type { DatabaseKind } from '../db/knex';
import { endOfTurn } from '../db/turns';


// Every node remembers who a credential is (a checked password, an API key's user, a user's profile) so that a
// request does not pay a password hash or a join to find out. What it remembers must end the moment a user, a
// group, a membership or a key changes on any node (issue 34): a notice from the database (pg-client.ts) or a
// look at SQLite's data_version every few milliseconds may arrive after the next request. So one row,
// osprey_authstamp, is moved by a trigger inside the transaction of every such change, and every authenticated
// request reads it (one primary-key read, in the same statement as the request's login failures: throttle.ts):
// what a node remembers is kept under the stamp it was read under, and dropped when the stamp has moved.
// Triggers, not the code that makes the changes, so that a change made by hand in SQL counts as well.

// The columns of an API key whose change changes what the key logs in as; lastused is written as it is used.
const keyColumns = ['userid', 'apikey', 'apikeyhash', 'expiration', 'expirationdate'];

const bump = 'update osprey_authstamp set stamp = stamp + 1 where id = 1';

interface Watched {
    readonly table: string;
    /** Only updates of these columns count; every update when not given. */
    readonly columns?: readonly string[];
}

export const stampCredentialChanges = async (knex: Knex, kind: DatabaseKind, keyTable: string | undefined): Promise<void> => {

    const watched: Watched[] = [{ table: 'osprey_user' }, { table: 'osprey_group' }, { table: 'osprey_groupuser' }, ...keyTable ? [{ table: keyTable, columns: keyColumns }] : []];
    await knex.transaction(async (trx) => {

        if (kind === 'postgresql') {
            await trx.raw(`create or replace function osprey_stamp_credentials() returns trigger language plpgsql as $$
                begin
                    ${bump};
                    return null;
                end $$`);
            for (const { table, columns } of watched) {
                const update = columns ? `update of ${columns.map((column) => `"${column}"`).join(', ')}` : 'update';
                await trx.raw('drop trigger if exists osprey_stamp_credentials on ??', [table]);
                await trx.raw(`create trigger osprey_stamp_credentials after insert or delete or truncate or ${update} on ?? for each statement execute procedure osprey_stamp_credentials()`, [table]);
            }

            return;
        }

        for (const { table, columns } of watched) {
            for (const event of ['insert', 'delete', columns ? `update of ${columns.map((column) => `"${column}"`).join(', ')}` : 'update']) {
                const name = `osprey_stamp_${table}_${event.split(' ')[0]}`;
                await trx.raw(`drop trigger if exists "${name}"`);
                await trx.raw(`create trigger "${name}" after ${event} on "${table}" begin ${bump}; end`);
            }
        }
    });
};

export interface FailureRow {
    readonly failures: number;
    readonly since: number;
}

export interface CredentialState {
    /** osprey_authstamp's stamp now. */
    readonly stamp: number;
    /** The login failures counted against the names asked for (throttle.ts), by name. */
    readonly failures: ReadonlyMap<string, FailureRow>;
}

const stateSql = (names: number) => `select name, failures, since from osprey_loginfailure where name in (${Array.from({ length: names }, () => '?').join(', ')}) union all select '' as name, 0 as failures, stamp as since from osprey_authstamp where id = 1`;
const stateSqls = [stateSql(0).replace(/^.*union all /, ''), stateSql(1), stateSql(2)];

const stateOf = (rows: readonly Record<string, unknown>[]): CredentialState => {

    const failures = new Map<string, FailureRow>();
    let stamp = NaN;
    for (const row of rows) {
        if (row.name === '') {
            stamp = Number(row.since);
        }
        else {
            failures.set(String(row.name), { failures: Number(row.failures), since: Number(row.since) });
        }
    }

    return { stamp, failures };
};

// On PostgreSQL the requests that ask in one turn of the event loop share one statement, sent at its end: a round
// trip per request cost 25–60 µs of CPU at 10 requests at once. Each request asks after it arrived, so the
// statement still sees every change committed before it. (SQLite's point read costs less than the batching.)
const batchSql = `select name, failures, since from osprey_loginfailure where name = any(?) union all select '' as name, 0 as failures, stamp as since from osprey_authstamp where id = 1`;
const batches = new WeakMap<Db, Set<string>>();
const answers = new WeakMap<Set<string>, Promise<CredentialState>>();

const batched = (db: Db, names: readonly string[]): Promise<CredentialState> => {

    let batch = batches.get(db);
    if (!batch) {
        const collected = new Set<string>();
        batch = collected;
        batches.set(db, collected);
        answers.set(collected, (async () => {

            await endOfTurn();
            batches.delete(db);                     // who asks from here on is in the next batch
            return stateOf(await db.rows(batchSql, [[...collected]]));
        })());
    }

    for (const name of names) {
        batch.add(name);
    }

    return answers.get(batch)!;
};

// The stamp and the failures of the given names (a user's and an address's), in one statement. On SQLite it runs
// as the request's other reads do, at the end of the turn (db.ts, turns.ts): run at once instead, on SQLite's
// reader, it cost more CPU per request (issue 34: 87–91 µs against 59–61 for an API-key whoami at 10 at once).
export const readCredentialState = async (db: Db, names: readonly string[]): Promise<CredentialState> => {

    return db.kind === 'postgresql' ? await batched(db, names) : stateOf(await db.rows(stateSqls[names.length]!, names));
};
