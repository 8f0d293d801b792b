import * as Crypto from 'node:crypto';

import type { Knex } from 'knex';

import { maximoError } from '../errors/maximo-error';
import { isPostgres } from './knex';


// The statements every write runs — a record by its key, an insert, an update by key — as SQL text made once per
// shape (table, column names, which key values are null) and run with knex.raw. Building and compiling them with
// knex's query builder on every request cost 5–9 % of a create's or update's CPU in the benchmark profile
// (README, Performance). Their SQL is plain enough to be the same on both databases: double-quoted identifiers,
// `?` placeholders (knex numbers them for PostgreSQL), `returning` (SQLite 3.35+).

type Row = Record<string, unknown>;

// Compiled SQL is kept in bounded maps: a shape follows what a client sends (the attributes a body names), so
// an endless variety must not grow memory; starting afresh costs a few compilations.
export const remember = <K, V>(map: Map<K, V>, key: K, value: V, max = 2000): V => {

    if (map.size >= max) {
        map.clear();
    }

    map.set(key, value);
    return value;
};

const texts = new Map<string, string>();

const sqlOf = (shape: string, build: () => string): string => texts.get(shape) ?? remember(texts, shape, build());

const quoted = (identifier: string) => `"${identifier.replace(/"/g, '""')}"`;

// Equality on every column of `where`; a null is `is null`, as in knex's where({ column: null }).
const conditions = (where: Row) => Object.keys(where).map((column) => `${quoted(column)} ${where[column] === null ? 'is null' : '= ?'}`).join(' and ');

const whereShape = (where: Row) => Object.keys(where).map((column) => `${column}${where[column] === null ? ' null' : ''}`).join(',');

const whereBindings = (where: Row) => Object.values(where).filter((value) => value !== null) as Knex.Value[];

// knex.raw answers with the driver's result: rows on SQLite, { rows } on PostgreSQL.
const rowsOf = (result: unknown): Row[] => (Array.isArray(result) ? result : (result as { rows: Row[] }).rows);

// On PostgreSQL these statements are named, so that each connection parses and plans one once and then only
// binds and executes it (one message less per statement, no planning); the name is a digest of the SQL, which
// node-pg requires to mean one text per connection. Statements name their columns (never `*`), so another node
// adding columns does not change what they answer. A column whose type another node widened does: PostgreSQL
// then refuses the prepared statement ("cached plan must not change result type"), so the names move to a new
// generation, prepared afresh on next use, and the request that met it is answered 503, to be sent again.
const names = new Map<string, string>();
let generation = 0;

const nameOf = (sql: string) => names.get(sql) ?? remember(names, sql, `osprey_${generation}_${Crypto.createHash('sha1').update(sql).digest('base64url')}`);

const planChanged = (error: unknown) => {

    const { code, message } = error as { code?: unknown; message?: unknown };
    return code === '0A000' && /cached plan must not change result type/.test(String(message));
};

const runNamed = async (raw: Knex.Raw, sql: string) => {

    try {
        return await raw.options({ name: nameOf(sql) });
    }
    catch (error) {
        if (planChanged(error)) {
            ++generation;
            names.clear();
            throw maximoError('schemaChanged');
        }

        throw error;
    }
};

// The rows of a statement whose SQL is already made (`?` placeholders).
export const rawRows = async (db: Knex, sql: string, bindings: readonly Knex.Value[]): Promise<Row[]> => {

    const raw = db.raw(sql, bindings as Knex.Value[]);
    return rowsOf(await (isPostgres(db) ? runNamed(raw, sql) : raw));
};

const list = (columns: readonly string[]) => columns.map(quoted).join(', ');

// The first row whose columns equal `where`, its `columns`.
export const selectOne = async (db: Knex, table: string, where: Row, options: { columns: readonly string[]; lock?: boolean }): Promise<Row | undefined> => {

    const { columns } = options;
    const sql = sqlOf(`select ${table} ${columns.join(',')} ${whereShape(where)} ${options.lock ? 'lock' : ''}`, () => {

        return `select ${list(columns)} from ${quoted(table)} where ${conditions(where)} limit 1${options.lock ? ' for update' : ''}`;
    });
    return (await rawRows(db, sql, whereBindings(where)))[0];
};

// Inserts one row and answers its `returning` columns as stored (defaults, generated id). An undefined value is
// left to the column's default.
export const insertReturning = async (db: Knex, table: string, values: Row, returning: readonly string[]): Promise<Row> => {

    const columns = Object.keys(values).filter((column) => values[column] !== undefined);
    const sql = sqlOf(`insert ${table} ${columns.join(',')} ${returning.join(',')}`, () => {

        return columns.length ?
            `insert into ${quoted(table)} (${list(columns)}) values (${columns.map(() => '?').join(', ')}) returning ${list(returning)}` :
            `insert into ${quoted(table)} default values returning ${list(returning)}`;
    });
    return (await rawRows(db, sql, columns.map((column) => values[column] as Knex.Value)))[0]!;
};

// Updates the rows `where` names and answers their `returning` columns as stored.
export const updateReturning = async (db: Knex, table: string, values: Row, where: Row, returning: readonly string[]): Promise<Row[]> => {

    const columns = Object.keys(values).filter((column) => values[column] !== undefined);
    const sql = sqlOf(`update ${table} ${columns.join(',')} ${whereShape(where)} ${returning.join(',')}`, () => {

        return `update ${quoted(table)} set ${columns.map((column) => `${quoted(column)} = ?`).join(', ')} where ${conditions(where)} returning ${list(returning)}`;
    });
    return await rawRows(db, sql, [...columns.map((column) => values[column] as Knex.Value), ...whereBindings(where)]);
};
