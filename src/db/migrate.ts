import type { Knex } from 'knex';

import type { Attribute, BusinessObject, Registry } from '../structures/registry';
import { typeTable } from '../structures/types';
import type { DatabaseKind } from './knex';
import { createSystemTables } from './system-tables';
import { oncePer } from './remember';


export const rowstampColumn = 'rowstamp';

// The columns of an object's table, which the statements that read whole rows name instead of `*`: what this
// server knows, whatever columns another server's structures added since (README, Performance).
export const storedColumns = oncePer((object: BusinessObject): readonly string[] => [...object.columns.map((attr) => attr.name), rowstampColumn]);

export class MigrationError extends Error {

    readonly problems: readonly string[];

    constructor(problems: readonly string[]) {

        super(`The database cannot be migrated to the structures without losing data:\n${problems.map((line) => `- ${line}`).join('\n')}`);
        this.problems = problems;
    }
}

interface ColumnMeta {
    tablename: string;
    columnname: string;
    maximotype: string;
    length: number | null;
    scale: number | null;
}

interface Change {
    table: string;
    add: Attribute[];
    widen: Attribute[];
}

const effective = (attr: Attribute, key: 'length' | 'scale') => {

    const entry = typeTable[attr.type];
    return attr[key] ?? (key === 'length' ? entry.defaultLength : entry.defaultScale) ?? null;
};

const integerWidth: Record<string, number> = { smallint: 1, integer: 2, bigint: 3 };

// A change that keeps every value: same type family (strings among themselves, integers to wider integers),
// length and scale never smaller.
const narrowing = (attr: Attribute, meta: ColumnMeta): string | undefined => {

    const before = typeTable[meta.maximotype as Attribute['type']];
    const after = typeTable[attr.type];
    if (before.family !== after.family) {
        return `type changed from ${meta.maximotype} to ${attr.type}`;
    }

    if (before.family === 'integer' && integerWidth[attr.type]! < integerWidth[meta.maximotype]!) {
        return `type narrowed from ${meta.maximotype} to ${attr.type}`;
    }

    const length = effective(attr, 'length');
    if (meta.length !== null && length !== null && length < meta.length) {
        return `length narrowed from ${meta.length} to ${length}`;
    }

    const scale = effective(attr, 'scale');
    if (meta.scale !== null && scale !== null && scale < meta.scale) {
        return `scale narrowed from ${meta.scale} to ${scale}`;
    }
};

const indexName = (table: string, columns: readonly string[], suffix: string) => `${table}_${columns.join('_')}`.slice(0, 55) + `_${suffix}`;

// Indexes: the key (unique), join keys to parents and from relations, attributes marked `index: true` and the
// object's `indexes:`.
const indexesOf = (registry: Registry) => {

    const indexes = new Map<string, { table: string; columns: string[]; unique: boolean }>();
    const add = (table: string, columns: string[], unique: boolean) => {

        const name = indexName(table, columns, unique ? 'uq' : 'ix');
        indexes.set(name, { table, columns, unique });
    };

    // A child's key is unique within its parent: the join columns come first.
    const walk = (object: BusinessObject) => {

        const key = object.primaryKey.length === 1 && object.primaryKey[0] === object.uniqueColumn ? [] : [...object.identity];
        if (key.length) {
            add(object.table, key, true);
        }

        for (const attr of object.columns) {
            if (attr.index) {
                add(object.table, [attr.name], false);
            }
        }

        object.indexes.forEach((columns) => add(object.table, [...columns], false));

        for (const child of object.children.values()) {
            add(child.object.table, Object.values(child.join), false);
            walk(child.object);
        }
    };

    registry.list().forEach((structure) => walk(structure.root));

    for (const structure of registry.list()) {
        for (const relation of Object.values(structure.def.relations)) {
            const target = registry.get(relation.structure)!;
            add(target.root.table, Object.values(relation.join), false);
        }
    }

    return indexes;
};

const createTable = (knex: Knex, object: BusinessObject) => {

    return knex.schema.createTable(object.table, (t) => {

        for (const attr of object.columns) {
            if (attr.name === object.uniqueColumn) {
                (attr.type === 'bigint' ? t.bigIncrements(attr.name) : t.increments(attr.name)).primary();
                continue;
            }

            const column = typeTable[attr.type].column(t, attr.name, attr);
            if (object.primaryKey.includes(attr.name)) {
                column.notNullable();
            }
        }

        t.bigInteger(rowstampColumn).notNullable().defaultTo(1);
    });
};

interface Uncollated {
    table: string;
    column: string;
    type: string;
}

// The text columns of `tables` not yet given the code-point collation (PostgreSQL).
const uncollated = async (knex: Knex, tables: string[]): Promise<Uncollated[]> => {

    const { rows } = await knex.raw<{ rows: Uncollated[] }>(`
        select c.relname as "table", a.attname as "column", format_type(a.atttypid, a.atttypmod) as "type"
        from pg_attribute a
        join pg_class c on c.oid = a.attrelid
        join pg_namespace n on n.oid = c.relnamespace
        join pg_collation co on co.oid = a.attcollation
        where n.nspname = current_schema() and c.relname = any(?) and a.attnum > 0 and not a.attisdropped and co.collname <> 'C'`, [tables]);
    return rows;
};

// Text is compared and ordered by code point (COLLATE "C" in the SQL, like SQLite's BINARY). An index serves
// such an ORDER BY or range only when it has that collation too, and an equality only when its collation is
// the column's; so on PostgreSQL text columns themselves are "C", which keeps every index usable for both.
// Also mends columns created before, or widened by a type change (which falls back to the default collation).
const collateByCodePoint = async (knex: Knex, tables: string[]) => {

    const rows = await uncollated(knex, tables);
    for (const { table, column, type } of rows) {
        await knex.raw(`alter table ?? alter column ?? type ${type} collate "C"`, [table, column]);
    }

    // Changing a column's type forgets its statistics, and without them the planner sorts instead of walking
    // an index.
    for (const table of new Set(rows.map((row) => row.table))) {
        await knex.raw('analyze ??', [table]);
    }
};

const existingIndexes = async (knex: Knex, kind: DatabaseKind): Promise<Set<string>> => {

    const names = kind === 'sqlite' ?
        await knex('sqlite_master').where({ type: 'index' }).pluck('name') :
        await knex('pg_indexes').whereRaw('schemaname = current_schema()').pluck('indexname');
    return new Set(names as string[]);
};

const metaKey = (row: ColumnMeta) => JSON.stringify([row.tablename, row.columnname, row.maximotype, row.length, row.scale]);

// Whether the tables, which have every column, also have every index and collation, and osprey_column records
// each column as declared: then there is nothing to do.
const finished = async (knex: Knex, kind: DatabaseKind, registry: Registry, indexes: Map<string, unknown>, metaRows: ColumnMeta[], columnRows: ColumnMeta[]) => {

    const have = await existingIndexes(knex, kind);
    const recorded = new Set(metaRows.map(metaKey));
    return [...indexes.keys()].every((name) => have.has(name)) &&
        recorded.size === columnRows.length && columnRows.every((row) => recorded.has(metaKey(row))) &&
        (kind !== 'postgresql' || !(await uncollated(knex, registry.objects().map((object) => object.table))).length);
};

// Creates missing tables, adds new columns and indexes; refuses (before touching anything) a change that
// would lose data, and says what to do instead. A database already as the structures declare it is only read
// (another node made it so), and none of its tables is locked: the answer is false.
/** What a migration did, for the server's log: the tables created, and the columns added or widened by table. */
export interface MigrationSummary {
    created: string[];
    altered: { table: string; added: string[]; widened: string[] }[];
}

export const migrate = async (knex: Knex, registry: Registry, kind: DatabaseKind, migrated: (summary: MigrationSummary) => void = () => undefined): Promise<boolean> => {

    const systemChanged = await createSystemTables(knex);
    const metaRows = await knex<ColumnMeta>('osprey_column').select();
    const meta = new Map(metaRows.map((row) => [`${row.tablename}.${row.columnname}`, row]));
    const problems: string[] = [];
    const creates: BusinessObject[] = [];
    const changes: Change[] = [];

    for (const object of registry.objects()) {
        if (!await knex.schema.hasTable(object.table)) {
            creates.push(object);
            continue;
        }

        const existing = Object.keys(await knex(object.table).columnInfo()).map((name) => name.toLowerCase());
        // A column of an attribute now declared `persistent: false` stays as it is, neither read nor written.
        const declared = new Set(object.attributes.keys());
        for (const column of existing) {
            if (column !== rowstampColumn && !declared.has(column)) {
                problems.push(`${object.table}.${column} holds data but no structure declares attribute "${column}" any more: declare it again (it can be readonly), or drop the column yourself if its data is not needed`);
            }
        }

        const change: Change = { table: object.table, add: [], widen: [] };
        for (const attr of object.columns) {
            if (!existing.includes(attr.name)) {
                change.add.push(attr);
                continue;
            }

            const before = meta.get(`${object.table}.${attr.name}`);
            const problem = before && narrowing(attr, before);
            if (problem) {
                problems.push(`${object.table}.${attr.name}: ${problem}; that could lose data. Keep the old declaration, or add a new attribute and copy the data over`);
            }
            else if (before && (before.maximotype !== attr.type || before.length !== effective(attr, 'length'))) {
                change.widen.push(attr);
            }
        }

        changes.push(change);
    }

    if (problems.length) {
        throw new MigrationError(problems);
    }

    const indexes = indexesOf(registry);
    const columnRows = registry.objects().flatMap((object) => {

        return object.columns.map((attr): ColumnMeta => ({
            tablename: object.table,
            columnname: attr.name,
            maximotype: attr.type,
            length: effective(attr, 'length'),
            scale: effective(attr, 'scale')
        }));
    });

    if (!systemChanged && !creates.length && changes.every((change) => !change.add.length && !change.widen.length) &&
        await finished(knex, kind, registry, indexes, metaRows, columnRows)) {

        return false;
    }

    await knex.transaction(async (trx) => {

        for (const object of creates) {
            await createTable(trx, object);
        }

        for (const change of changes) {
            if (change.add.length) {
                await trx.schema.alterTable(change.table, (t) => {

                    change.add.forEach((attr) => typeTable[attr.type].column(t, attr.name, attr));
                });
            }

            // SQLite does not enforce lengths or integer widths, so only PostgreSQL needs the column altered.
            if (kind === 'postgresql' && change.widen.length) {
                await trx.schema.alterTable(change.table, (t) => {

                    change.widen.forEach((attr) => typeTable[attr.type].column(t, attr.name, attr).alter({ alterNullable: false }));
                });
            }
        }

        if (kind === 'postgresql') {
            await collateByCodePoint(trx, registry.objects().map((object) => object.table));
        }

        for (const [name, index] of indexes) {
            const columns = index.columns.map(() => '??').join(', ');
            await trx.raw(`create ${index.unique ? 'unique ' : ''}index if not exists ?? on ?? (${columns})`, [name, index.table, ...index.columns]);
        }

        await trx('osprey_column').delete();
        for (let i = 0; i < columnRows.length; i += 100) {
            await trx('osprey_column').insert(columnRows.slice(i, i + 100));
        }
    });

    // SQLite widens nothing (above); a table and its columns are named as the database has them.
    const widened = (change: Change) => (kind === 'postgresql' ? change.widen.map((attr) => attr.name) : []);
    migrated({
        created: creates.map((object) => object.table),
        altered: changes.filter((change) => change.add.length || widened(change).length).map((change) => ({ table: change.table, added: change.add.map((attr) => attr.name), widened: widened(change) }))
    });
    return true;
};
