import type { Knex } from 'knex';

import type { DatabaseKind } from './knex';


// Tables whose rows the database itself may change when an update sets some of their columns: a trigger (other
// than Osprey's own statement-level notification on PostgreSQL, pg-client.ts, which changes no row), a rule, or a
// generated column. An update of any other table stores exactly the values it sets, so it returns only those
// columns, and the rest of the row as stored is the one the write read under its lock just before
// (src/write/apply/apply.ts): returning all 33 columns of a work order cost 10 µs of an update's 130 on SQLite
// (issue 19). Learned at start, after the migration; a trigger created while the server runs is seen at its
// next start (README, Performance).
const rewriting = new WeakMap<Knex, ReadonlySet<string>>();

const sqliteRewrites = async (knex: Knex, tables: readonly string[]): Promise<string[]> => {

    const triggers = await knex.raw('select tbl_name as name from sqlite_master where type = \'trigger\'') as { name: string }[];
    const found = new Set(triggers.map((row) => row.name.toLowerCase()));
    for (const table of tables) {
        // table_xinfo marks a generated column hidden 2 (virtual) or 3 (stored).
        const columns = await knex.raw(`pragma table_xinfo(${JSON.stringify(table)})`) as { hidden: number }[];
        if (columns.some((column) => column.hidden === 2 || column.hidden === 3)) {
            found.add(table.toLowerCase());
        }
    }

    return tables.filter((table) => found.has(table.toLowerCase()));
};

const postgresRewrites = async (knex: Knex, tables: readonly string[]): Promise<string[]> => {

    const { rows } = await knex.raw(`
        select c.relname as name from pg_class c
        where c.relnamespace = current_schema()::regnamespace and c.relname = any(?) and (
            exists (select 1 from pg_trigger t where t.tgrelid = c.oid and not t.tgisinternal and t.tgname <> 'osprey_notify_change')
            or exists (select 1 from pg_rewrite r where r.ev_class = c.oid and r.rulename <> '_RETURN')
            or exists (select 1 from pg_attribute a where a.attrelid = c.oid and a.attnum > 0 and not a.attisdropped and a.attgenerated <> ''))`, [[...tables]]) as { rows: { name: string }[] };
    return rows.map((row) => row.name);
};

export const learnRewrites = async (knex: Knex, kind: DatabaseKind, tables: readonly string[]): Promise<void> => {

    rewriting.set(knex, new Set(kind === 'sqlite' ? await sqliteRewrites(knex, tables) : await postgresRewrites(knex, tables)));
};

// Whether an update of `table` through `knex` stores exactly the values it sets; never where nothing was learned.
export const storesAsWritten = (knex: Knex, table: string): boolean => rewriting.get(knex)?.has(table) === false;
