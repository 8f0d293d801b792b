import type { Knex } from 'knex';

import type { Db, Row } from './db';
import { rowstampColumn } from './migrate';
import { oncePer, remember } from './remember';


// The statements every write runs — a record by its key, an insert, an update by key — as SQL text made once per
// shape (table, column names, which key values are null) and run with `Db.rows` (db.ts). Building and compiling
// them with knex's query builder on every request cost 5–9 % of a create's or update's CPU in the benchmark
// profile (README, Performance). Their SQL is plain enough to be the same on both databases: double-quoted
// identifiers, `?` placeholders (db.ts numbers them for PostgreSQL), `returning` (SQLite 3.35+).

const texts = new Map<string, string>();

const sqlOf = (shape: string, build: () => string): string => texts.get(shape) ?? remember(texts, shape, build());

export const quoted = (identifier: string) => `"${identifier.replace(/"/g, '""')}"`;

// Equality on every column of `where`; a null is `is null`, as in knex's where({ column: null }).
export const conditions = (where: Row) => Object.keys(where).map((column) => `${quoted(column)} ${where[column] === null ? 'is null' : '= ?'}`).join(' and ');

export const whereShape = (where: Row) => Object.keys(where).map((column) => `${column}${where[column] === null ? ' null' : ''}`).join(',');

export const whereBindings = (where: Row) => Object.values(where).filter((value) => value !== null) as Knex.Value[];

const list = (columns: readonly string[]) => columns.map(quoted).join(', ');

// A column list's part of a shape, made once per list: the lists a statement selects or returns are made once
// per object (storedColumns), and joining a record's 33 columns on every read showed in its profile.
const joinedList = oncePer((columns: readonly string[]) => columns.join(','));

// A short list (a fresh one-column returning) is joined on the spot rather than remembered.
const joined = (columns: readonly string[]): string => (columns.length < 8 ? columns.join(',') : joinedList(columns));

// The SQL of a long column list's reads, by the list (made once per object: storedColumns) and then by a short
// shape: a shape key holding the 33 column names of a record was made, flattened and hashed on every read by id.
const longListReads = oncePer((_columns: readonly string[]) => new Map<string, string>());

// The first row whose columns equal `where`, its `columns`.
export const selectOne = async (db: Db, table: string, where: Row, options: { columns: readonly string[]; lock?: boolean }): Promise<Row | undefined> => {

    const { columns } = options;
    const build = () => `select ${list(columns)} from ${quoted(table)} where ${conditions(where)} limit 1${options.lock ? ' for update' : ''}`;
    let sql: string;
    if (columns.length < 8) {
        sql = sqlOf(`select ${table} ${columns.join(',')} ${whereShape(where)} ${options.lock ? 'lock' : ''}`, build);
    }
    else {
        const reads = longListReads(columns);
        const shape = `${table} ${whereShape(where)} ${options.lock ? 'lock' : ''}`;
        sql = reads.get(shape) ?? remember(reads, shape, build());
    }

    return (await db.rows(sql, whereBindings(where)))[0];
};

// Inserts one row, returning the `returning` columns (none: no RETURNING). An undefined value is left to the
// column's default. `ifAbsent`: a row whose key another row holds (committed, or by a transaction this one then
// waits for) is not inserted, and none is returned, instead of failing the statement and with it the transaction.
const insert = (db: Db, table: string, values: Row, returning: readonly string[], ifAbsent = false): Promise<Row[]> => {

    const columns = Object.keys(values).filter((column) => values[column] !== undefined);
    const sql = sqlOf(`insert ${table} ${columns.join(',')} ${joined(returning)}${ifAbsent ? ' absent' : ''}`, () => {

        const row = columns.length ? `(${list(columns)}) values (${columns.map(() => '?').join(', ')})` : 'default values';
        return `insert into ${quoted(table)} ${row}${ifAbsent ? ' on conflict do nothing' : ''}${returning.length ? ` returning ${list(returning)}` : ''}`;
    });
    return db.rows(sql, columns.map((column) => values[column] as Knex.Value));
};

// Inserts one row and answers its `returning` columns as stored (defaults, generated id).
export const insertReturning = async (db: Db, table: string, values: Row, returning: readonly string[]): Promise<Row> => (await insert(db, table, values, returning))[0]!;

// Inserts one row unless a row with its key is there (insert above), answering its `returning` columns, or none.
export const insertIfAbsent = async (db: Db, table: string, values: Row, returning: readonly string[]): Promise<Row | undefined> => (await insert(db, table, values, returning, true))[0];

// Inserts one row and answers nothing: a row no one reads back (a status history's) costs no RETURNING.
export const insertRow = async (db: Db, table: string, values: Row): Promise<void> => {

    await insert(db, table, values, []);
};

// Batches: many rows of one table written by one statement each few hundred rows, where one statement a row took
// a round trip each (PostgreSQL) and the driver's and Osprey's work per statement (issue 34: a merge of 32,000
// child rows). A batch's statement holds a power of two of rows, at most `batchRows` of them, so that a table and
// column list has at most nine texts (each kept as a named statement on PostgreSQL), and its parameters stay far
// below both databases' limits (SQLite 32,766, PostgreSQL 65,535).
const maxRows = 256;
const maxParameters = 4096;

// The most rows one statement of a batch holds, each with `columns` values.
export const batchRows = (columns: number): number => {

    let rows = maxRows;
    while (rows > 1 && rows * columns > maxParameters) {
        rows /= 2;
    }

    return rows;
};

// The sizes of the statements `count` rows of `columns` values each are written in: full statements, then the
// powers of two the rest adds up to.
export const batchSizes = (count: number, columns: number): number[] => {

    const sizes: number[] = [];
    let left = count;
    let size = batchRows(columns);
    while (left > 0) {
        while (size > left) {
            size /= 2;
        }

        sizes.push(size);
        left -= size;
    }

    return sizes;
};

// Inserts rows, each the values of `columns` in their order; nothing returned.
export const insertRows = async (db: Db, table: string, columns: readonly string[], rows: readonly (readonly Knex.Value[])[]): Promise<void> => {

    const sql = sqlOf(`insert rows ${table} ${columns.join(',')} ${rows.length}`, () => {

        const row = `(${columns.map(() => '?').join(', ')})`;
        return `insert into ${quoted(table)} (${list(columns)}) values ${Array.from({ length: rows.length }, () => row).join(', ')}`;
    });
    await db.rows(sql, rows.flat());
};

/** One row of a batched update: its unique id, the rowstamp it must still have, and the values of the columns set. */
export interface RowUpdate {
    readonly id: Knex.Value;
    readonly rowstamp: Knex.Value;
    readonly values: readonly Knex.Value[];
}

// Updates rows by unique id (`idColumn`), each only while its rowstamp is still the one given, and answers the
// `returning` columns of the rows it updated. On PostgreSQL each value is cast to its type (`types`: the id's, the
// rowstamp's, then each column's): the values of a VALUES list have none of their own, and text assigned to a
// number column is refused. Only the id finds a row: a condition on the parent's join columns as well let SQLite's
// planner, told by the statistics that a parent has a few rows, read all of a parent's 32,000 rows and scan the
// list for each (a second a statement); the caller checks the join columns it returns instead. On PostgreSQL the
// ids are also listed, so that the rows are read through the primary key: a join on them alone was planned as a
// scan of the whole table per statement (a merge of 32,000 tasks took 5.8 s where a replacing update took 2.0).
export const updateRows = async (db: Db, table: string, idColumn: string, columns: readonly string[], types: readonly string[], rows: readonly RowUpdate[], returning: readonly string[]): Promise<Row[]> => {

    const sql = sqlOf(`update rows ${db.kind} ${table} ${idColumn} ${columns.join(',')} ${types.join(',')} ${joined(returning)} ${rows.length}`, () => {

        const value = (type: string) => (db.kind === 'postgresql' ? `cast(? as ${type})` : '?');
        const row = `(${types.map(value).join(', ')})`;
        const set = columns.map((column, i) => `${quoted(column)} = v.column${i + 3}`).join(', ');
        const ids = db.kind === 'postgresql' ? `${quoted(idColumn)} in (${rows.map(() => '?').join(', ')}) and ` : '';
        return `update ${quoted(table)} set ${set} from (values ${Array.from({ length: rows.length }, () => row).join(', ')}) as v where ${ids}${quoted(idColumn)} = v.column1 and ${quoted(rowstampColumn)} = v.column2 returning ${list(returning)}`;
    });
    const bindings: Knex.Value[] = [];
    for (const row of rows) {
        bindings.push(row.id, row.rowstamp, ...row.values);
    }

    if (db.kind === 'postgresql') {
        bindings.push(...rows.map((row) => row.id));
    }

    return await db.rows(sql, bindings);
};

// Deletes rows by unique id (`idColumn`), answering their `returning` columns (found by the id alone: updateRows).
export const deleteRows = async (db: Db, table: string, idColumn: string, ids: readonly Knex.Value[], returning: readonly string[]): Promise<Row[]> => {

    const sql = sqlOf(`delete rows ${table} ${idColumn} ${joined(returning)} ${ids.length}`, () => {

        return `delete from ${quoted(table)} where ${quoted(idColumn)} in (${ids.map(() => '?').join(', ')}) returning ${list(returning)}`;
    });
    return await db.rows(sql, ids);
};

// Updates the rows `where` names and answers their `returning` columns as stored ('set': the columns it sets).
// `last`: the write's last statement (Db.rows).
export const updateReturning = async (db: Db, table: string, values: Row, where: Row, returning: readonly string[] | 'set', options: { readonly last?: boolean } = {}): Promise<Row[]> => {

    const columns = Object.keys(values).filter((column) => values[column] !== undefined);
    // On SQLite, an update that stores each value as it is bound returns those values with no RETURNING
    // (rewrites.ts storesAsBound): the row it changed, if any.
    if (returning === 'set' && db.storesAsBound(table, values)) {
        const plain = sqlOf(`update without returning ${table} ${columns.join(',')} ${whereShape(where)}`, () => {

            return `update ${quoted(table)} set ${columns.map((column) => `${quoted(column)} = ?`).join(', ')} where ${conditions(where)}`;
        });
        const changed = await db.changes(plain, [...columns.map((column) => values[column] as Knex.Value), ...whereBindings(where)]);
        return changed === 1 ? [Object.fromEntries(columns.map((column) => [column, values[column]]))] : Array.from({ length: changed }, () => ({}));
    }

    const returned = returning === 'set' ? columns : returning;
    const sql = sqlOf(`update ${table} ${columns.join(',')} ${whereShape(where)} ${returning === 'set' ? 'set' : joined(returning)}`, () => {

        return `update ${quoted(table)} set ${columns.map((column) => `${quoted(column)} = ?`).join(', ')} where ${conditions(where)} returning ${list(returned)}`;
    });
    return await db.rows(sql, [...columns.map((column) => values[column] as Knex.Value), ...whereBindings(where)], options.last ? { last: true } : undefined);
};

/** What an update also does in its own statement on PostgreSQL: a row it adds (a status change's history row),
 * and a condition it answers as the column `osprey_held` (a workflow holds the record: the write then fails). */
export interface UpdateExtras {
    readonly insert?: { readonly table: string; readonly values: Row };
    readonly held?: { readonly sql: string; readonly bindings: readonly Knex.Value[] };
}

// updateReturning ('set') with its extras, one statement where each took a round trip of its own (PostgreSQL only:
// SQLite has no data-modifying WITH). The row is added whether the update changes a row or not, and the condition
// is read by the statement's snapshot, taken after the rows the write locked: only a write in a transaction, which
// rolls back when the update misses or the condition holds, may run it.
export const updateReturningWith = async (db: Db, table: string, values: Row, where: Row, extras: UpdateExtras): Promise<Row[]> => {

    const columns = Object.keys(values).filter((column) => values[column] !== undefined);
    const { insert: row, held } = extras;
    const added = row ? Object.keys(row.values).filter((column) => row.values[column] !== undefined) : [];
    const sql = sqlOf(`update with ${table} ${columns.join(',')} ${whereShape(where)} ${row?.table ?? ''} ${added.join(',')} ${held?.sql ?? ''}`, () => {

        const update = `update ${quoted(table)} set ${columns.map((column) => `${quoted(column)} = ?`).join(', ')} where ${conditions(where)} returning ${list(columns)}`;
        const adding = row ? `, "osprey_added" as (insert into ${quoted(row.table)} (${list(added)}) values (${added.map(() => '?').join(', ')}))` : '';
        return `with "osprey_updated" as (${update})${adding} select *${held ? `, ${held.sql} as "osprey_held"` : ''} from "osprey_updated"`;
    });
    const bindings = [...columns.map((column) => values[column] as Knex.Value), ...whereBindings(where), ...added.map((column) => row!.values[column] as Knex.Value), ...held?.bindings ?? []];
    return await db.rows(sql, bindings);
};

// insertReturning with a row added in the same statement (a new record's status history row), one round trip
// where each took its own (PostgreSQL only: SQLite has no data-modifying WITH). The row is added whether or not
// the insert succeeds, so only a write in a transaction, which rolls back when the insert fails, may run it.
export const insertReturningWith = async (db: Db, table: string, values: Row, returning: readonly string[], added: { readonly table: string; readonly values: Row }): Promise<Row> => {

    const columns = Object.keys(values).filter((column) => values[column] !== undefined);
    const addedColumns = Object.keys(added.values).filter((column) => added.values[column] !== undefined);
    const sql = sqlOf(`insert with ${table} ${columns.join(',')} ${joined(returning)} ${added.table} ${addedColumns.join(',')}`, () => {

        const inserted = `insert into ${quoted(table)} (${list(columns)}) values (${columns.map(() => '?').join(', ')}) returning ${list(returning)}`;
        return `with "osprey_inserted" as (${inserted}), "osprey_added" as (insert into ${quoted(added.table)} (${list(addedColumns)}) values (${addedColumns.map(() => '?').join(', ')})) select * from "osprey_inserted"`;
    });
    const rows = await db.rows(sql, [...columns.map((column) => values[column] as Knex.Value), ...addedColumns.map((column) => added.values[column] as Knex.Value)]);
    return rows[0]!;
};

// The most parent tuples one linked read names (parameter limits): a page's parents are read in chunks of these.
export const maxTuples = 500;

// The tuple counts of a linked read's shapes (below): a read of n parents' rows names the first count of these
// not below n, its first tuple repeated to fill it (a tuple listed twice matches as once), so that a link has at
// most twenty shapes (ten counts, with a limit or without), each kept as a named statement on PostgreSQL, and
// not one per count.
const tupleCounts = [1, 2, 4, 8, 16, 32, 64, 128, 256, maxTuples];

export interface LinkedOptions {
    /** Only the rows whose column holds this value (a relation to records kept to their owners). */
    readonly owner?: { readonly column: string; readonly value: Knex.Value };
    readonly orderBy: string;
    readonly limit?: number;
    /** The columns follow what a client selects (../read/plan/render-columns.ts), not the object alone. */
    readonly narrowed?: boolean;
}

// A PostgreSQL connection keeps every named statement it has prepared until it closes, and the column lists of
// narrowed reads are as many as the selects clients send. A list is named once it has been read `uses` times
// (a select a client repeats, not one sent once), for the first `max` lists; any other runs unnamed, planned
// afresh each time as a client's where is. Each list has up to twenty shapes (tuple counts, with a limit or
// without), so a connection keeps at most 640 narrowed linked reads.
export const namedSelections = { max: 32, uses: 3, lists: new Set<string>(), seen: new Map<string, number>() };

const shapesOf = (table: string, columns: readonly string[]): 'client' | undefined => {

    const { max, uses, lists, seen } = namedSelections;
    const key = `${table} ${joined(columns)}`;
    if (lists.has(key)) {
        return undefined;
    }

    const count = (seen.get(key) ?? 0) + 1;
    if (count < uses || lists.size >= max) {
        remember(seen, key, count, 1000);
        return 'client';
    }

    seen.delete(key);
    lists.add(key);
    return undefined;
};

// The rows of `table` whose `joinColumns` equal one of `tuples` (at most 500), their `columns`, in `orderBy`'s
// order: the children and related records of a page of parents, in one statement. Built with knex's query
// builder per request, it was not kept as a named statement on PostgreSQL, so PostgreSQL parsed and planned its
// hundreds of parameters on every page (a page of 100 work orders with tasks and assets cost it 1 ms more than
// (b)'s named statements), and knex's compiler showed in the profile.
export const selectLinked = async (db: Db, table: string, columns: readonly string[], joinColumns: readonly string[], tuples: readonly (readonly Knex.Value[])[], options: LinkedOptions): Promise<Row[]> => {

    const count = tupleCounts.find((each) => each >= tuples.length);
    if (!tuples.length || count === undefined) {
        throw new RangeError(`A linked read names 1 to ${maxTuples} tuples, not ${tuples.length}.`);
    }

    const { owner, orderBy, limit } = options;
    const shape = `linked ${db.kind} ${table} ${joined(columns)} ${joinColumns.join(',')} ${owner?.column ?? ''} ${count} ${orderBy} ${limit === undefined ? '' : 'limit'}`;
    const sql = sqlOf(shape, () => {

        const one = joinColumns.length === 1 ? '?' : `(${joinColumns.map(() => '?').join(', ')})`;
        const listed = Array.from({ length: count }, () => one).join(', ');
        const match = joinColumns.length === 1 ? `${quoted(joinColumns[0]!)} in (${listed})` :
            `(${joinColumns.map(quoted).join(', ')}) in (${db.kind === 'sqlite' ? `values ${listed}` : listed})`;
        const where = owner ? `${quoted(owner.column)} = ? and ${match}` : match;
        return `select ${list(columns)} from ${quoted(table)} where ${where} order by ${quoted(orderBy)} asc${limit === undefined ? '' : ' limit ?'}`;
    });
    const bindings: Knex.Value[] = owner ? [owner.value] : [];
    for (let i = 0; i < count; ++i) {
        bindings.push(...tuples[i] ?? tuples[0]!);
    }

    if (limit !== undefined) {
        bindings.push(limit);
    }

    return await db.rows(sql, bindings, options.narrowed && db.kind === 'postgresql' ? { shapes: shapesOf(table, columns) } : undefined);
};
