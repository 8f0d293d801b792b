import { setTimeout as sleep } from 'node:timers/promises';

import type { Logger } from '../http/request-log';
import { databaseKind, sqliteFile } from './knex';


// The key of PostgreSQL's advisory lock that the start takes: "osprey" in ASCII. Advisory locks are per database,
// so nodes of other databases on the same server do not wait on each other.
const advisoryKey = '122553218917753';

// How often a node waiting on SQLite's lock file tries again; better-sqlite3 would wait on the event loop.
const retryMs = 50;

const waiting = (log: Logger) => log('info', { msg: 'waiting for the migration lock: another node is migrating or seeding the database' });
const taken = (log: Logger, since: number) => log('info', { msg: 'migration lock taken', waitedMs: Date.now() - since });

// PostgreSQL: a session advisory lock on a connection of its own, outside knex's pool, held until `work` is done
// and released by closing it (or by PostgreSQL, should the process die). The statements of `work` run on the pool's
// connections, so the lock does not have to be on their session. No statement timeout: the wait lasts as long as
// the other node's migration and seed.
const onPostgres = async <T>(url: string, log: Logger, work: () => Promise<T>): Promise<T> => {

    const { Client } = require('pg') as typeof import('pg');

    const client = new Client({ connectionString: url });
    // A lost connection fails its next query, or nothing if the work is done by then; it must not crash the process.
    client.on('error', () => undefined);
    await client.connect();
    try {
        const since = Date.now();
        const [{ free }] = (await client.query<{ free: boolean }>('select pg_try_advisory_lock($1) as free', [advisoryKey])).rows as [{ free: boolean }];
        if (!free) {
            waiting(log);
            await client.query('select pg_advisory_lock($1)', [advisoryKey]);
        }

        taken(log, since);
        return await work();
    }
    finally {
        await client.end().catch(() => undefined);
    }
};

// Whether the lock file's exclusive lock was taken; false while another node holds it.
const exclusive = (lock: import('better-sqlite3').Database): boolean => {

    try {
        lock.exec('begin exclusive');
        return true;
    }
    catch (error) {
        if ((error as { code?: string }).code !== 'SQLITE_BUSY') {
            throw error;
        }

        return false;
    }
};

// SQLite: an exclusive transaction on a file of its own beside the database (`<file>-lock`), held until `work` is
// done. The database file itself cannot hold it: in WAL mode a write lock taken there by a connection of this
// process would stop its own writer too. SQLite's locks are the operating system's file locks, released when the
// process ends however it ends; the file stays (removing it while another node waits on it would let a third take
// a lock on a new file).
const onSqlite = async <T>(file: string, log: Logger, work: () => Promise<T>): Promise<T> => {

    const BetterSqlite = require('better-sqlite3') as typeof import('better-sqlite3');

    const lock = new BetterSqlite(`${file}-lock`);
    try {
        lock.pragma('busy_timeout = 0');
        const since = Date.now();
        if (!exclusive(lock)) {
            waiting(log);
            do {
                await sleep(retryMs);
            } while (!exclusive(lock));
        }

        taken(log, since);
        return await work();
    }
    finally {
        lock.close();
    }
};

// Runs `work` (the migration, the demo seed) while no other node of the same database runs it: nodes started
// together take turns, and each after the first finds the schema and the data made.
export const withMigrationLock = <T>(databaseUrl: string, log: Logger, work: () => Promise<T>): Promise<T> => {

    if (databaseKind(databaseUrl) === 'postgresql') {
        return onPostgres(databaseUrl, log, work);
    }

    const file = sqliteFile(databaseUrl);
    // An in-memory database is one connection's own: no other node can see it.
    return file === ':memory:' ? work() : onSqlite(file, log, work);
};
