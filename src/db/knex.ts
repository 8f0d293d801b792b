import * as Fs from 'node:fs';
import * as Path from 'node:path';

import Knex, { type Knex as KnexType } from 'knex';

import { likeAny, likeAnyFunction, likeSetFunction } from './like-any';
import { sidePgClient } from './pg-client';
import { cachingSqliteClient } from './sqlite-client';
import { deadlineFunction, tick, tickOften } from './sqlite-deadline';
import { groupCommits } from './transaction';


export type DatabaseKind = 'sqlite' | 'postgresql';

export interface DatabaseOptions {
    databaseUrl: string;
    sqliteDriver?: 'better-sqlite3' | 'sqlite3';
    sqliteSynchronous?: 'OFF' | 'NORMAL' | 'FULL' | 'EXTRA';
    poolMax?: number;
    /** Statements outside a write transaction are cancelled after this long (0 or none: never): by PostgreSQL,
     * and on SQLite through better-sqlite3 where a read's cost can grow past a scan (sqlite-deadline.ts). */
    statementTimeoutMs?: number;
}

// A database driver that configuration selects and that is not installed: the start stops naming it.
export class DriverError extends Error { }

// How a driver's module is looked up; a seam, so that the tests can take a driver away without uninstalling it.
export const driverModules = { resolve: (name: string): string => require.resolve(name) };

// sqlite3 is a dev dependency (package.json: the tests run on it too), so that a production install
// (`npm ci --omit=dev`) does not build two SQLite drivers; selecting it where it is not installed stops the start,
// saying how to install it.
const requireInstalled = (name: string, setting: string): void => {

    try {
        driverModules.resolve(name);
    }
    catch {
        throw new DriverError(`The SQLite driver ${name} (${setting}) is not installed: Osprey's production dependencies leave it out. Install it with \`npm install --omit=dev ${name}\`, or leave the setting out to use better-sqlite3.`);
    }
};

export const databaseKind = (url: string): DatabaseKind => (url.startsWith('sqlite:') ? 'sqlite' : 'postgresql');

export const sqliteFile = (url: string): string => {

    const file = url.slice('sqlite:'.length);
    return file === ':memory:' || file === '' ? ':memory:' : file;
};

// pg is loaded only when PostgreSQL is used, and then once: node-pg asks for a parser for every column of every
// result, and resolving require('pg') each time (file-system lookups included) took 43 % of the server's CPU
// in the PostgreSQL update benchmark.
let pg: typeof import('pg') | undefined;

// node-pg turns int8 and numeric into strings and DATE into a local-midnight Date; Osprey wants numbers and
// 'YYYY-MM-DD' so both databases hand the serializer the same values.
export const pgTypes = {
    getTypeParser: (oid: number, format?: string) => {

        pg ??= require('pg') as typeof import('pg');
        if (oid === 20 || oid === 1700) {
            return (value: string) => Number(value);
        }

        if (oid === 1082) {
            return (value: string) => value;
        }

        return pg.types.getTypeParser(oid, format as 'text');
    }
};

interface BetterConnection {
    pragma: (sql: string) => void;
    function: (name: string, options: { deterministic: boolean }, fn: (...values: unknown[]) => unknown) => void;
}

export const createKnex = (options: DatabaseOptions): KnexType => {

    if (databaseKind(options.databaseUrl) === 'postgresql') {
        // Every connection starts with the statement timeout (a startup parameter, no statement of its own), so a
        // read that runs too long is cancelled by the server (57014, answered 503: src/errors/edge.ts). Every
        // transaction (writes, the migration, the demo seed) lifts it for itself (pg-client.ts).
        // On SQLite, better-sqlite3's statements check the same limit themselves (sqlite-deadline.ts).
        const timeout = options.statementTimeoutMs ? { statement_timeout: options.statementTimeoutMs } : {};
        return Knex({
            client: sidePgClient(),
            connection: { connectionString: options.databaseUrl, types: pgTypes, ...timeout } as KnexType.PgConnectionConfig,
            pool: { min: 0, max: options.poolMax ?? 10 }
        });
    }

    const filename = sqliteFile(options.databaseUrl);
    if (filename !== ':memory:') {
        Fs.mkdirSync(Path.dirname(Path.resolve(filename)), { recursive: true });
    }

    const synchronous = options.sqliteSynchronous ?? 'NORMAL';
    const pragmas = ['journal_mode = WAL', `synchronous = ${synchronous}`, 'foreign_keys = ON', 'busy_timeout = 5000'];
    if (options.sqliteDriver === 'sqlite3') {
        requireInstalled('sqlite3', 'OSPREY_SQLITE_DRIVER=sqlite3');
        return Knex({
            client: 'sqlite3',
            connection: { filename },
            useNullAsDefault: true,
            pool: {
                afterCreate: (connection: { exec: (sql: string, done: (err: Error | null) => void) => void }, done: (err: Error | null, connection: unknown) => void) => {

                    connection.exec(pragmas.map((pragma) => `PRAGMA ${pragma};`).join(''), (err) => done(err, connection));
                }
            }
        });
    }

    // The one writer connection runs the writes that queue for it in groups, one COMMIT each (group-commit.ts).
    const writer = betterSqlite(filename, pragmas, false, options.statementTimeoutMs ?? 0);
    groupCommits(writer);
    return writer;
};

const betterSqlite = (filename: string, pragmas: readonly string[], readonly: boolean, timeoutMs: number): KnexType => {

    return Knex({
        client: cachingSqliteClient(timeoutMs, readonly),
        connection: { filename, options: { readonly } },
        useNullAsDefault: true,
        pool: {
            // The readers lend a connection outside the pool (sqlite-client.ts), which the pool would count idle
            // and close after idleTimeoutMillis, its prepared statements and page cache with it.
            ...readonly ? { min: 0, max: readers, idleTimeoutMillis: 2 ** 31 - 1 } : {},
            afterCreate: (connection: BetterConnection, done: (err: Error | null, connection: unknown) => void) => {

                pragmas.forEach((pragma) => connection.pragma(pragma));
                // SQLite's own lower() folds ASCII only; case-insensitive LIKE must fold "Ü" as PostgreSQL does.
                // It is called per row and term of a case-insensitive match, so it also keeps the statement's deadline.
                connection.function('lower', { deterministic: true }, (value: unknown) => (tickOften(), value === null ? null : String(value).toLowerCase()));
                const sets = likeAny();
                connection.function(likeSetFunction, { deterministic: true }, sets.set);
                connection.function(likeAnyFunction, { deterministic: true }, (value: unknown, set: unknown) => (tickOften(), sets.test(value, set)));
                connection.function(deadlineFunction, { deterministic: false }, tick);
                done(null, connection);
            }
        }
    });
};

// How many read-only connections serve reads beside the one that writes.
const readers = 2;

// The knex that reads outside transactions run on. better-sqlite3 runs statements on the event loop and knex
// gives it one connection, so a write transaction that lasts (an all-or-nothing bulk of thousands of items, which
// gives the loop turns between its items: src/slices.ts) would hold every GET until it commits. In WAL mode
// read-only connections beside it read the last committed state meanwhile, as another process would. A write on
// them fails at once (they are read-only), never waiting on the writer's lock. The writer itself stays one
// connection: SQLite runs one writer at a time, and a second would wait in busy_timeout, asleep on the event loop.
// An in-memory database is one connection's own, and the sqlite3 driver runs statements on libuv's threads and
// PostgreSQL on its server: there reads share the writer's knex (its pool).
// Of the readers' statements, all but the point reads Osprey makes run on worker threads of their own, with read-only
// connections of their own (sqlite-client.ts, read-workers.ts): these connections serve the point reads.
export const createReaderKnex = (options: DatabaseOptions, writer: KnexType): KnexType => {


    if (databaseKind(options.databaseUrl) !== 'sqlite' || options.sqliteDriver === 'sqlite3' || sqliteFile(options.databaseUrl) === ':memory:') {
        return writer;
    }

    return betterSqlite(sqliteFile(options.databaseUrl), ['busy_timeout = 5000'], true, options.statementTimeoutMs ?? 0);
};

// Row locks (SELECT … FOR UPDATE) exist on PostgreSQL; SQLite runs one write transaction at a time instead.
export const isPostgres = (knex: KnexType): boolean => (knex.client as { dialect?: string }).dialect === 'postgresql';

export const databaseVersion = async (knex: KnexType, kind: DatabaseKind): Promise<string> => {

    const query = kind === 'sqlite' ? 'select sqlite_version() as version' : 'show server_version';
    const result = await knex.raw(query);
    const row = kind === 'sqlite' ? result[0] : result.rows[0];
    return String(row.version ?? row.server_version);
};
