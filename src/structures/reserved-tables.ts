import { systemTableNames } from '../db/system-tables';
import { servedSystemTables } from '../users/tables';
import type { BusinessObject } from './registry';


// Tables a structure may not name (issue 34): Osprey's own (its users and their password hashes, sessions,
// settings), whose rows a structure over them would answer and whose columns its migration would alter, and
// every name under the prefixes Osprey and the databases keep for themselves — `osprey_` for tables Osprey adds
// later, `sqlite_` for SQLite's catalog, `pg_` for PostgreSQL's (a read of "pg_shadow" resolves to the catalog's
// before any table of the schema) — and information_schema. Compared case-insensitively: SQLite's names are.

const prefixes = ['osprey_', 'sqlite_', 'pg_'];

// Why the table of the object is not a structure's to name; undefined when it may be. The user tables are the
// exception (src/users/tables.ts): served as their own business objects, with their credentials secret.
export const reservedTable = (object: Pick<BusinessObject, 'table' | 'name' | 'attributes'>): string | undefined => {

    const { table } = object;
    const name = table.toLowerCase();
    const served = servedSystemTables.get(name);
    if (served) {
        if (object.name !== served.object) {
            return `table "${table}" is Osprey's table of business object ${served.object}; a structure names it only as that object, not as ${object.name}`;
        }

        const open = served.secrets.filter((column) => object.attributes.get(column)?.secret !== true);
        return open.length ? `${served.object} must declare ${open.join(' and ')} with \`secret: true\`: they hold credentials` : undefined;
    }

    if (systemTableNames.includes(name)) {
        return `table "${table}" is one of Osprey's own tables (${systemTableNames.join(', ')}); a structure cannot name it`;
    }

    const prefix = prefixes.find((reserved) => name.startsWith(reserved));
    if (prefix) {
        return `table "${table}" starts with "${prefix}", which ${prefix === 'osprey_' ? 'Osprey keeps for its own tables' : 'the database keeps for its catalog'}; a structure cannot name it`;
    }

    return name === 'information_schema' ? `table "${table}" is the database's catalog; a structure cannot name it` : undefined;
};
