import type { Knex } from 'knex';

import { serverTime, type Json, type MRow, type State } from './reference';
import { columnsOf, objectsOf, type MObject, type MStructure } from './schema';


// Every row of every table the fixture structures use, read straight from the database, and its comparison
// with the reference model's state.

export interface DumpRow {
    readonly id: number;
    readonly stamp: string;
    readonly v: Record<string, Json>;
}

export interface Dump {
    /** table → rows by unique id */
    readonly tables: Record<string, DumpRow[]>;
    /** the transactionids remembered, as `userid/structure/id` */
    readonly transactions: string[];
    /** the autokey counters (compared only before and after a refused write: the model counts its own way) */
    readonly counters: string[];
}

const stored = (type: string, value: unknown): Json => {

    if (value === null || value === undefined) {
        return null;
    }

    switch (type) {
        case 'integer':
        case 'bigint':
        case 'decimal': return Number(value);
        case 'yorn': return value === true || value === 1 || value === '1' || value === 't';
        // The server's clock: compared as set or not.
        case 'datetime': return serverTime;
        default: return String(value);
    }
};

export const tablesOf = (structures: ReadonlyMap<string, MStructure>): MObject[] => [...structures.values()].flatMap((structure) => [...objectsOf(structure.root)]);

export const dumpTables = async (knex: Knex, structures: ReadonlyMap<string, MStructure>): Promise<Dump> => {

    // The tables are read at once (on PostgreSQL over several pooled connections): nothing writes meanwhile.
    const objects = tablesOf(structures);
    const tables = await Promise.all(objects.map(async (object) => {

        const columns = columnsOf(object);
        const rows = await knex(object.table).select(object.unique, 'rowstamp', ...columns).orderBy(object.unique) as Record<string, unknown>[];
        return rows.map((row) => ({
            id: Number(row[object.unique]),
            stamp: String(row.rowstamp),
            v: Object.fromEntries(columns.map((column) => [column, stored(object.attrs.get(column)!.type, row[column])]))
        }));
    }));
    const transactions = (await knex('osprey_transaction').select('userid', 'objectstructure', 'id') as { userid: string; objectstructure: string; id: string }[])
        .map((row) => `${row.userid}/${row.objectstructure}/${row.id}`).sort();
    const counters = (await knex('osprey_autokey').select('objectname', 'attribute', 'scope', 'last') as Record<string, unknown>[])
        .map((row) => `${String(row.objectname)}.${String(row.attribute)} ${String(row.scope)} = ${String(row.last)}`).sort();
    return { tables: Object.fromEntries(objects.map((object, i) => [object.table, tables[i]!])), transactions, counters };
};

export const clearTables = async (knex: Knex, structures: ReadonlyMap<string, MStructure>): Promise<void> => {

    await Promise.all([...tablesOf(structures).map((object) => object.table), 'osprey_transaction', 'osprey_autokey'].map((table) => knex(table).delete()));
};

const text = (object: MObject, v: Record<string, Json>) => JSON.stringify(columnsOf(object).map((column) => v[column] ?? null));

const show = (object: MObject, v: Record<string, Json>) => columnsOf(object).map((column) => `${column}=${JSON.stringify(v[column] ?? null)}`).join(' ');

// Rows of the model, table by table.
const modelRows = (structures: ReadonlyMap<string, MStructure>, state: State): Map<string, { object: MObject; rows: MRow[] }> => {

    const tables = new Map(tablesOf(structures).map((object) => [object.table, { object, rows: [] as MRow[] }]));
    const walk = (object: MObject, row: MRow) => {

        tables.get(object.table)!.rows.push(row);
        for (const [name, child] of object.children) {
            for (const kid of row.kids[name]!) {
                walk(child.object, kid);
            }
        }
    };

    for (const structure of structures.values()) {
        for (const row of state.records[structure.id]!) {
            walk(structure.root, row);
        }
    }

    return tables;
};

// The differences between the model and the tables: rows missing, rows unexpected, rows whose values differ,
// rowstamps that moved on a row the write did not name or stayed on one it wrote. When there are none, the
// model learns what only the server knows: generated ids and rowstamps.
export const compareTables = (structures: ReadonlyMap<string, MStructure>, state: State, dump: Dump): string[] => {

    const problems: string[] = [];
    const pairs: { object: MObject; row: MRow; found: DumpRow }[] = [];
    for (const [table, { object, rows }] of modelRows(structures, state)) {
        const remaining = new Set(dump.tables[table]);
        const byId = new Map(dump.tables[table]!.map((row) => [row.id, row]));
        const pending: MRow[] = [];
        for (const row of rows) {
            if (row.id === undefined) {
                pending.push(row);
                continue;
            }

            const found = byId.get(row.id);
            if (!found || !remaining.has(found)) {
                problems.push(`${table}: row ${object.unique}=${row.id} is missing: ${show(object, row.v)}`);
                continue;
            }

            remaining.delete(found);
            if (text(object, found.v) !== text(object, row.v)) {
                problems.push(`${table}: row ${object.unique}=${row.id} holds ${show(object, found.v)}, expected ${show(object, row.v)}`);
            }

            pairs.push({ object, row, found });
        }

        for (const row of pending) {
            const found = [...remaining].find((candidate) => text(object, candidate.v) === text(object, row.v));
            if (!found) {
                problems.push(`${table}: a row is missing: ${show(object, row.v)}`);
                continue;
            }

            remaining.delete(found);
            pairs.push({ object, row, found });
        }

        for (const found of remaining) {
            problems.push(`${table}: unexpected row ${object.unique}=${found.id}: ${show(object, found.v)}`);
        }
    }

    for (const { object, row, found } of pairs) {
        if (row.seen === undefined) {
            continue;
        }

        const changed = row.seen !== text(object, row.v);
        if ((changed || row.written) && !(BigInt(found.stamp) > BigInt(row.stamp!))) {
            problems.push(`${object.table}: row ${object.unique}=${found.id} was written but its rowstamp stayed ${found.stamp}`);
        }

        if (!changed && !row.written && found.stamp !== row.stamp) {
            problems.push(`${object.table}: row ${object.unique}=${found.id} was not named by the write but its rowstamp moved from ${row.stamp} to ${found.stamp}`);
        }
    }

    const remembered = [...state.transactions].sort();
    if (JSON.stringify(remembered) !== JSON.stringify(dump.transactions)) {
        problems.push(`osprey_transaction holds ${JSON.stringify(dump.transactions)}, expected ${JSON.stringify(remembered)}`);
    }

    if (!problems.length) {
        for (const { object, row, found } of pairs) {
            row.id = found.id;
            row.stamp = found.stamp;
            row.seen = text(object, row.v);
            row.written = false;
        }
    }

    return problems;
};

// The tables as text, for a failure's message.
export const showDump = (structures: ReadonlyMap<string, MStructure>, dump: Dump): string => {

    return [
        ...tablesOf(structures).filter((object) => dump.tables[object.table]!.length)
            .map((object) => `${object.table}:\n${dump.tables[object.table]!.map((row) => `  ${object.unique}=${row.id} ${show(object, row.v)}`).join('\n')}`),
        ...(dump.transactions.length ? [`osprey_transaction: ${dump.transactions.join(', ')}`] : []),
        ...(dump.counters.length ? [`osprey_autokey: ${dump.counters.join('; ')}`] : [])
    ].join('\n');
};
