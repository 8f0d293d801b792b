import type { Knex } from 'knex';

import { clientOf, type Db } from '../db/db';
import type { DatabaseKind } from '../db/knex';
import { sideRows } from '../db/pg-client';
import { directConnection } from '../db/sqlite-client';
import { endOfTurn } from '../db/turns';


// Every node remembers who a credential is (a checked password, an API key's user, a user's profile) so that a
// request does not pay a password hash or a join to find out. What it remembers must end the moment a user, a
// group, a membership or a key changes on any node (issue 34): a notice from the database (LISTEN/NOTIFY) or a
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

// A user changed or deleted by hand in SQL must end what Users (users.ts) ends when it makes the change, or a user
// deactivated and reactivated in SQL would find their old sessions alive again, and a user deleted and made again
// under the same name would inherit the API keys (and, in SQLite without foreign keys, the sessions and groups) of
// the old one. So a change of status or password that sets no new credstamp gets one (Users' changes set their
// own), a deleted user's sessions, memberships and API keys go with the row, in the same statement, and a
// deactivated user's sessions and API keys with the change of status.
const pgNewCredstamp = 'substr(md5(random()::text || clock_timestamp()::text), 1, 22)';
const sqliteNewCredstamp = 'lower(hex(randomblob(11)))';

export const stampCredentialChanges = async (knex: Knex, kind: DatabaseKind, keyTable: string | undefined): Promise<void> => {

    const keys = keyTable ? [keyTable] : [];
    const deleteRows = (tables: readonly string[], userid: string) => tables.map((table) => `delete from "${table}" where userid = ${userid};`).join(' ');
    const forget = (userid: string) => deleteRows(['osprey_session', 'osprey_groupuser', ...keys], userid);

    // A user deactivated loses their sessions and API keys for good: reactivated, they log in again and make new
    // keys, and a leaked key an administrator stopped by deactivating its user does not come back with them.
    const deactivate = (userid: string) => deleteRows(['osprey_session', ...keys], userid);

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

            await trx.raw(`create or replace function osprey_new_credstamp() returns trigger language plpgsql as $$
                begin
                    if new.credstamp is not distinct from old.credstamp then
                        new.credstamp := ${pgNewCredstamp};
                    end if;
                    return new;
                end $$`);
            await trx.raw('drop trigger if exists osprey_new_credstamp on osprey_user');
            await trx.raw(`create trigger osprey_new_credstamp before update of status, passwordhash on osprey_user for each row
                when (new.status is distinct from old.status or new.passwordhash is distinct from old.passwordhash) execute procedure osprey_new_credstamp()`);
            await trx.raw(`create or replace function osprey_forget_user() returns trigger language plpgsql as $$
                begin
                    ${forget('old.userid')}
                    return null;
                end $$`);
            await trx.raw('drop trigger if exists osprey_forget_user on osprey_user');
            await trx.raw('create trigger osprey_forget_user after delete on osprey_user for each row execute procedure osprey_forget_user()');
            await trx.raw(`create or replace function osprey_deactivate_user() returns trigger language plpgsql as $$
                begin
                    ${deactivate('new.userid')}
                    return null;
                end $$`);
            await trx.raw('drop trigger if exists osprey_deactivate_user on osprey_user');
            await trx.raw(`create trigger osprey_deactivate_user after update of status on osprey_user for each row
                when (old.status = 'ACTIVE' and new.status is distinct from 'ACTIVE') execute procedure osprey_deactivate_user()`);
            return;
        }

        // SQLite: the credstamp is set by a second update of the row, which fires no trigger of this one's columns
        // (recursive_triggers is off, and it sets neither status nor passwordhash).
        await trx.raw('drop trigger if exists osprey_new_credstamp');
        await trx.raw(`create trigger osprey_new_credstamp after update of status, passwordhash on osprey_user
            when new.credstamp is old.credstamp and (new.status is not old.status or new.passwordhash is not old.passwordhash)
            begin update osprey_user set credstamp = ${sqliteNewCredstamp} where userid = new.userid; end`);
        await trx.raw('drop trigger if exists osprey_forget_user');
        await trx.raw(`create trigger osprey_forget_user after delete on osprey_user begin ${forget('old.userid')} end`);
        await trx.raw('drop trigger if exists osprey_deactivate_user');
        await trx.raw(`create trigger osprey_deactivate_user after update of status on osprey_user
            when old.status = 'ACTIVE' and new.status is not 'ACTIVE' begin ${deactivate('new.userid')} end`);

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

// On PostgreSQL the read runs on a connection kept for it (pg-client.ts), one statement at a time: the requests
// that ask in one turn of the event loop share one, sent at the turn's end, and those that ask while it runs
// share the next, sent the moment it answers. Each statement is sent after every request it answers asked, so
// it sees every change committed before any of them arrived. A batch that asks no failures (API keys and
// sessions: scheme.ts) reads the stamp alone. While that connection is down, batches run through the pool.
//
// PostgreSQL's notices (LISTEN/NOTIFY) cannot stand in for the read: one reaches the other nodes after the
// commit has returned to its writer, so a request sent to node B right after node A's change returned could be
// answered before B heard of it (test/auth/every-node.test.ts asks B at once), most of all on a loaded machine.
const batchSql = `select name, failures, since from osprey_loginfailure where name = any(?) union all select '' as name, 0 as failures, stamp as since from osprey_authstamp where id = 1`;
const stampSql = stateSqls[0]!;
const sideStatements = {
    names: { name: 'osprey_credential_state', text: batchSql.replace('?', '$1') },
    none: { name: 'osprey_credential_stamp', text: stampSql }
};

interface Batch {
    readonly names: Set<string>;
    readonly answer: Promise<CredentialState>;
    readonly settle: (answer: Promise<CredentialState>) => void;
    ready: boolean;                                 // its turn has ended
}

interface Batches {
    collecting?: Batch;                             // not sent yet: who asks now joins it
    running: boolean;
}

const batchesOf = new WeakMap<Db, Batches>();

const run = async (db: Db, names: string[]): Promise<CredentialState> => {

    const statement = names.length ? sideStatements.names : sideStatements.none;
    const values = names.length ? [names] : [];
    const side = await sideRows(db.knex, statement.name, statement.text, values);
    return stateOf(side ?? (names.length ? await db.rows(batchSql, values) : await db.rows(stampSql)));
};

const send = (db: Db, batches: Batches): void => {

    const batch = batches.collecting;
    if (batches.running || !batch?.ready) {
        return;
    }

    batches.collecting = undefined;
    batches.running = true;
    const answer = run(db, [...batch.names]);
    batch.settle(answer);
    void answer.catch(() => undefined).finally(() => {

        batches.running = false;
        send(db, batches);
    });
};

const batched = (db: Db, names: readonly string[]): Promise<CredentialState> => {

    let batches = batchesOf.get(db);
    if (!batches) {
        batches = { running: false };
        batchesOf.set(db, batches);
    }

    let batch = batches.collecting;
    if (!batch) {
        let settle!: (answer: Promise<CredentialState>) => void;
        const answer = new Promise<CredentialState>((resolve) => {

            settle = resolve;
        });
        const made: Batch = { names: new Set(), answer, settle, ready: false };
        batch = made;
        batches.collecting = made;
        const known = batches;
        void endOfTurn().then(() => {

            made.ready = true;
            send(db, known);
        });
    }

    for (const name of names) {
        batch.names.add(name);
    }

    return batch.answer;
};

// On SQLite with better-sqlite3, reads run at the end of the turn (db.ts, turns.ts), after every request of the
// turn has arrived: so the requests of one turn that ask for the stamp alone (API keys, sessions) share one read
// of it, which sees every change committed before any of them arrived. A request that asks once the turn's reads
// have begun is in the next turn, and reads again.
const turnStamps = new WeakMap<Knex, { readonly turn: Promise<void>; readonly answer: Promise<CredentialState> }>();

const stampOfTurn = (db: Db): Promise<CredentialState> => {

    const turn = endOfTurn();
    const shared = turnStamps.get(db.knex);
    if (shared?.turn === turn) {
        return shared.answer;
    }

    const answer = db.rows(stampSql).then(stateOf);
    turnStamps.set(db.knex, { turn, answer });
    return answer;
};

// The stamp and the failures of the given names (a user's and an address's), in one statement. On SQLite it runs
// as the request's other reads do, at the end of the turn (db.ts, turns.ts): run at once instead, on SQLite's
// reader, it cost more CPU per request (issue 34: 87–91 µs against 59–61 for an API-key whoami at 10 at once).
export const readCredentialState = async (db: Db, names: readonly string[]): Promise<CredentialState> => {

    if (db.kind === 'postgresql') {
        return await batched(db, names);
    }

    if (!names.length && directConnection(clientOf(db.knex))) {
        return await stampOfTurn(db);
    }

    return stateOf(await db.rows(stateSqls[names.length]!, names));
};
