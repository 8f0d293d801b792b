import { systemTableNames } from '../db/system-tables';


// Tables a structure may not name (issue 34): Osprey's own (its users and their password hashes, sessions,
// settings), whose rows a structure over them would answer and whose columns its migration would alter, and
// every name under the prefixes Osprey and the databases keep for themselves — `osprey_` for tables Osprey adds
// later, `sqlite_` for SQLite's catalog, `pg_` for PostgreSQL's (a read of "pg_shadow" resolves to the catalog's
// before any table of the schema) — and information_schema. Compared case-insensitively: SQLite's names are.

const prefixes = ['osprey_', 'sqlite_', 'pg_'];

// Why the table is not a structure's to name; undefined when it may be.
export const reservedTable = (table: string): string | undefined => {

    const name = table.toLowerCase();
    if (systemTableNames.includes(name)) {
        return `table "${table}" is one of Osprey's own tables (${systemTableNames.join(', ')}); a structure cannot name it`;
    }

    const prefix = prefixes.find((reserved) => name.startsWith(reserved));
    if (prefix) {
        return `table "${table}" starts with "${prefix}", which ${prefix === 'osprey_' ? 'Osprey keeps for its own tables' : 'the database keeps for its catalog'}; a structure cannot name it`;
    }

    return name === 'information_schema' ? `table "${table}" is the database's catalog; a structure cannot name it` : undefined;
};
