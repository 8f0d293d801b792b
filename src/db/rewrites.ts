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

const sqliteExact = async (knex: Knex, tables: readonly string[]): Promise<string[]> => {

    const rows = await knex.raw('select type, name, tbl_name as "table" from sqlite_master where type in (\'table\', \'trigger\')') as { type: string; name: string; table: string }[];
    const existing = new Set(rows.filter((row) => row.type === 'table').map((row) => row.name.toLowerCase()));
    const triggered = new Set(rows.filter((row) => row.type === 'trigger').map((row) => row.table.toLowerCase()));
    const found: string[] = [];
    for (const table of tables.filter((each) => existing.has(each.toLowerCase()) && !triggered.has(each.toLowerCase()))) {
        // table_xinfo marks a generated column hidden 2 (virtual) or 3 (stored).
        const columns = await knex.raw(`pragma table_xinfo(${quoted(table)})`) as { hidden: number }[];
        if (!columns.some((column) => column.hidden === 2 || column.hidden === 3)) {
            found.push(table);
        }
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
