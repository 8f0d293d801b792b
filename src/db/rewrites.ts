import type { Knex } from 'knex';

import type { DatabaseKind } from './knex';
import { quoted } from './statements';


// Tables where an update stores exactly the values it sets: no trigger (other than Osprey's own statement-level
// notification on PostgreSQL, pg-client.ts, which changes no row), rule or generated column may change more of a
// row. An update of such a table returns only the columns it sets, and the rest of the row as stored is the one
// the write read under its lock just before (src/write/apply/apply.ts): returning all 33 columns of a work order
// cost 10 µs of an update's 130 on SQLite (issue 19). Any other table, or one the catalog did not show, is read
// again after its update. Learned at start, after the migration; a trigger created while the server runs is
// seen at its next start (README, Performance).
const exact = new WeakMap<Knex, ReadonlySet<string>>();

// SQLite's type affinity of a column, from its declared type (https://sqlite.org/datatype3.html, 3.1).
type Affinity = 'integer' | 'text' | 'blob' | 'real' | 'numeric';

const affinityOf = (declared: string): Affinity => {

    const type = declared.toUpperCase();
    if (type.includes('INT')) {
        return 'integer';
    }

    if (/CHAR|CLOB|TEXT/.test(type)) {
        return 'text';
    }

    if (type === '' || type.includes('BLOB')) {
        return 'blob';
    }

    return /REAL|FLOA|DOUB/.test(type) ? 'real' : 'numeric';
};

// The affinity of each column of the SQLite tables an update stores exactly, by table and column name.
const affinities = new WeakMap<Knex, ReadonlyMap<string, ReadonlyMap<string, Affinity>>>();

// Text a numeric affinity turns into a number: a well-formed integer or real literal, with spaces around it
// (SQLite's own test allows fewer spaces than \s, so this takes more text to be numeric than it does).
const numericText = /^\s*[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?\s*$/;

// Whether SQLite keeps a value bound to a column of this affinity as the same JavaScript value it is read back
// as: a number stays a number (as a REAL or an INTEGER, which read back alike) except in a text column; text
// stays text except where a numeric affinity reads it as a number; null and bytes stay as they are.
const keptAsBound = (affinity: Affinity, value: unknown): boolean => {

    if (value === null || Buffer.isBuffer(value)) {
        return true;
    }

    if (typeof value === 'number') {
        return affinity !== 'text' && Number.isFinite(value);
    }

    return typeof value === 'string' && (affinity === 'text' || affinity === 'blob' || !numericText.test(value));
};

const sqliteExact = async (knex: Knex, tables: readonly string[]): Promise<string[]> => {

    const rows = await knex.raw('select type, name, tbl_name as "table" from sqlite_master where type in (\'table\', \'trigger\')') as { type: string; name: string; table: string }[];
    const existing = new Set(rows.filter((row) => row.type === 'table').map((row) => row.name.toLowerCase()));
    const triggered = new Set(rows.filter((row) => row.type === 'trigger').map((row) => row.table.toLowerCase()));
    const found: string[] = [];
    const byTable = new Map<string, ReadonlyMap<string, Affinity>>();
    for (const table of tables.filter((each) => existing.has(each.toLowerCase()) && !triggered.has(each.toLowerCase()))) {
        // table_xinfo marks a generated column hidden 2 (virtual) or 3 (stored).
        const columns = await knex.raw(`pragma table_xinfo(${quoted(table)})`) as { name: string; type: string; hidden: number }[];
        if (!columns.some((column) => column.hidden === 2 || column.hidden === 3)) {
            found.push(table);
            byTable.set(table, new Map(columns.map((column) => [column.name, affinityOf(column.type)])));
        }
    }

    // better-sqlite3 tells what a statement without rows changed; the sqlite3 driver, which runs Osprey's
    // statements with `all`, does not: there an update keeps its RETURNING.
    if ((knex.client as { driverName?: string }).driverName === 'better-sqlite3') {
        affinities.set(knex, byTable);
    }

    return found;
};

// The tables of the connection's current schema (where the migration made them: migrate.ts) that have none of
// the three. attgenerated exists from PostgreSQL 12.
const postgresExact = async (knex: Knex, tables: readonly string[]): Promise<string[]> => {

    const { rows } = await knex.raw(`
        select c.relname as name from pg_class c join pg_namespace n on n.oid = c.relnamespace
        where n.nspname = current_schema() and c.relkind = 'r' and c.relname = any(?)
            and not exists (select 1 from pg_trigger t where t.tgrelid = c.oid and not t.tgisinternal and t.tgname <> 'osprey_notify_change')
            and not exists (select 1 from pg_rewrite r where r.ev_class = c.oid and r.rulename <> '_RETURN')
            and not exists (select 1 from pg_attribute a where a.attrelid = c.oid and a.attnum > 0 and not a.attisdropped and a.attgenerated <> '')`, [[...tables]]) as { rows: { name: string }[] };
    return rows.map((row) => row.name);
};

export const learnRewrites = async (knex: Knex, kind: DatabaseKind, tables: readonly string[]): Promise<void> => {

    exact.set(knex, new Set(kind === 'sqlite' ? await sqliteExact(knex, tables) : await postgresExact(knex, tables)));
};

// Whether an update of `table` through `knex` stores exactly the values it sets: only where that was learned.
export const storesAsWritten = (knex: Knex, table: string): boolean => exact.get(knex)?.has(table) === true;

// Whether an update of `table` through `knex` stores exactly the values it sets, each as the same value it is
// read back as (SQLite only: elsewhere an update returns what it stored). Such an update needs no RETURNING,
// which costs SQLite an ephemeral table per statement: 30 µs of an update by key that took 9 µs without one
// (better-sqlite3, the bench's work orders), where a PATCH's whole CPU is about 150 µs.
export const storesAsBound = (knex: Knex, table: string, values: Readonly<Record<string, unknown>>): boolean => {

    const columns = affinities.get(knex)?.get(table);
    if (!columns) {
        return false;
    }

    for (const column in values) {
        const affinity = columns.get(column);
        const value = values[column];
        if (value !== undefined && (affinity === undefined || !keptAsBound(affinity, value))) {
            return false;
        }
    }

    return true;
};
