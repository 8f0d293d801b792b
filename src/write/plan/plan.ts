import { rowstampColumn } from '../../db/migrate';
import { maximoError } from '../../errors/maximo-error';
import type { BusinessObject, Child } from '../../structures/registry';
import type { WriteScope } from '../context';
import { idWhere, joinValues, type Row } from '../../read/execute/find';
import { slicer, type Pause } from '../../slices';
import { completeNew, keyValues, parseItem, type ParsedItem, type ParseSettings } from './input';
import { checkLookups } from './lookups';
import { RowIndex } from './row-index';
import { checkStatus } from './status';
import { planDocuments, type DocumentPlan } from './documents';


// A write body becomes a tree of planned row operations. Everything is read and checked first (keys,
// types, domains, lookups, status transitions, child matching), so a body with errors writes nothing; the
// tree is then applied in the same transaction (apply.ts).

export type Plan =
    // ifAbsent: a sync's record, which a concurrent write may create meanwhile (apply.ts CreatedMeanwhile).
    // documents: the record's inline doclinks (./documents.ts), written after its row (../apply/documents.ts).
    | { op: 'insert'; object: BusinessObject; values: Row; transient: Row; children: ChildPlan[]; ifAbsent?: boolean; documents?: DocumentPlan[] }
    // unlessHeld: the record's status changes, which a workflow waiting on it refuses (src/workflows/held.ts); asked
    // when the update is applied (apply.ts), on PostgreSQL in the update's own statement.
    | { op: 'update'; object: BusinessObject; current: Row; values: Row; transient: Row; children: ChildPlan[]; documents?: DocumentPlan[]; unlessHeld?: boolean }
    | { op: 'delete'; object: BusinessObject; current: Row };

export interface ChildPlan {
    readonly child: Child;
    readonly plans: Plan[];
}

const settingsFor = (scope: WriteScope, object: BusinessObject, extra: Partial<ParseSettings> = {}): ParseSettings => {

    const claims = scope.ctx.attributeWrites?.claims;
    return { object, objectPath: object.path, domains: scope.ctx.registry.domains(), errors: scope.errors, now: scope.ctx.now, claims, ...extra };
};

export const planInsert = async (scope: WriteScope, object: BusinessObject, body: unknown, fixed: Row = {}): Promise<Extract<Plan, { op: 'insert' }>> => {

    const settings = settingsFor(scope, object, { fixed });
    const item = parseItem(body, settings);
    completeNew(item, settings);
    const row = { ...item.values, ...fixed };
    if (object === scope.structure.root) {
        checkStatus(scope, undefined, item);
    }

    await checkLookups(scope, object, item.values, row);
    const children: ChildPlan[] = [];
    for (const [name, items] of item.children) {
        if (refuseHistory(scope, object, name)) {
            continue;
        }

        const child = object.children.get(name)!;
        const plans: Plan[] = [];
        // Thousands of rows are planned in slices of the event loop's time, as a bulk's items are (src/slices.ts).
        const pause = slicer();
        for (const childBody of items) {
            await pause();
            if (!isDelete(childBody)) {
                plans.push(await planInsert(scope, child.object, childBody, joinValues(child, row)));
            }
        }

        children.push({ child, plans });
    }

    const documents = object === scope.structure.root && item.documents ? await planDocuments(scope, object, item.documents, undefined) : undefined;
    return { op: 'insert', object, values: item.values, transient: item.transient, children, ...documents?.length ? { documents } : {} };
};

const safeDecode = (segment: string) => {

    try {
        return decodeURIComponent(segment);
    }
    catch {
        return segment;
    }
};

const isDelete = (body: unknown) => typeof body === 'object' && body !== null && String((body as Row)._action).toLowerCase() === 'delete';

// The rows from the record down to a child row, each with the name its href gives it (the record's is its
// structure's).
interface Ancestor {
    readonly name: string;
    readonly object: BusinessObject;
    readonly row: Row;
}

// `lineage` names the row being updated and its ancestors when it is a child row; empty for the record.
export const planUpdate = async (scope: WriteScope, object: BusinessObject, current: Row, body: unknown, merge: boolean, lineage: readonly Ancestor[] = []): Promise<Plan> => {

    const item = parseItem(body, settingsFor(scope, object, { current }));
    // A stale _rowstamp refuses a delete as it refuses an update, of the record or of a child row: the row is
    // not the one the client read. ignorers=1 does not turn this off: it asks for answers without rowstamps (all
    // Maximo and its clients say of it), and a client shrinking its answers must not lose its lost-update check.
    if (!checkRowstamp(current, item.rowstamp)) {
        throw maximoError('stale', `The ${object.name} ${object === scope.structure.root ? 'record' : 'row'} has been updated by another user since _rowstamp ${item.rowstamp}. Read it again and retry.`);
    }

    if (item.action === 'delete') {
        // A value a plugin would act on (a meter's newreading) is not dropped unheard with the row it came with.
        const claimed = Object.keys(item.transient).find((attribute) => scope.ctx.attributeWrites?.claims(object, attribute));
        if (claimed) {
            throw maximoError('badRequest', `${object.name}.${claimed.toUpperCase()} is sent with _action Delete, which deletes the row: nothing would take it. Send it without _action to write it, or delete the row without it.`);
        }

        return { op: 'delete', object, current };
    }

    let unlessHeld = false;
    if (object === scope.structure.root) {
        checkStatus(scope, current, item);
        const status = scope.structure.def.statusAttribute;
        unlessHeld = Object.hasOwn(item.values, status) && item.values[status] !== current[status];
    }

    const row = { ...current, ...item.values };
    await checkLookups(scope, object, item.values, row);
    const here = lineage.length ? lineage : [{ name: scope.structure.id, object, row: current }];
    const children: ChildPlan[] = [];
    for (const [name, items] of item.children) {
        if (refuseHistory(scope, object, name)) {
            continue;
        }

        children.push(await planChildren(scope, here, object.children.get(name)!, row, items, merge));
    }

    const documents = object === scope.structure.root && item.documents ? await planDocuments(scope, object, item.documents, current) : undefined;
    return { op: 'update', object, current, values: item.values, transient: item.transient, children, ...documents?.length ? { documents } : {}, ...unlessHeld ? { unlessHeld } : {} };
};

// The status history is the server's record of status changes: a body may not add, edit, replace or delete it.
const refuseHistory = (scope: WriteScope, object: BusinessObject, name: string): boolean => {

    if (object !== scope.structure.root || name !== scope.structure.def.statusHistory) {
        return false;
    }

    const child = object.children.get(name)!.object;
    scope.errors.push({ attribute: name, objectPath: child.path, message: `${child.name} rows are written by the server when the status changes; a body cannot write them.`, reason: 'badRequest' });
    return true;
};

const names = (where: Row | undefined, row: Row) => where !== undefined && Object.entries(where).every(([key, value]) => String(row[key]) === String(value));

// What names the stored child a body item refers to: its href, else its key values (undefined: it names none).
// An href must name the whole way down: …/{recordid}/{child}/{childid}[/{grandchild}/{id}], the record's id in any
// of its forms, each ancestor the row this body is writing; anything else names no row here. The row itself is
// looked up among this parent's rows only (RowIndex, row-index.ts).
const childWhere = (child: Child, lineage: readonly Ancestor[], body: unknown, probe: ParsedItem): Row | undefined => {

    const object = child.object;
    if (probe.href) {
        const path = [...lineage, { name: child.name, object }];
        const segments = probe.href.split(/[?#]/)[0]!.split('/').map((segment) => safeDecode(segment));
        const tail = segments.slice(-2 * path.length);
        const named = tail.length === 2 * path.length && path.every((step, i) => {

            return tail[2 * i]!.toLowerCase() === step.name && (i === path.length - 1 || names(idWhere(step.object, tail[2 * i + 1]!), lineage[i]!.row));
        });
        return named ? idWhere(object, tail[tail.length - 1]!) : undefined;
    }

    return keyValues(object, body);
};

// Rows of a parent's child collection a statement reads at a time on SQLite (storedChildren).
const pageRows = 2000;

// A parent's stored child rows. On SQLite, where a statement runs on the event loop from its start to its end,
// they are read a page at a time in unique id order (the index of the join columns holds the rows in that order),
// the loop given a turn between pages: 32,000 tasks read in one statement held it 80–240 ms. Elsewhere rows are
// read as they arrive.
const storedChildren = async (scope: WriteScope, object: BusinessObject, fixed: Row, pause: Pause): Promise<Row[]> => {

    if (scope.db.kind !== 'sqlite') {
        return await scope.db.query(object.table).where(fixed) as Row[];
    }

    const rows: Row[] = [];
    for (;;) {
        const query = scope.db.query(object.table).where(fixed).orderBy(object.uniqueColumn).limit(pageRows);
        if (rows.length) {
            query.where(object.uniqueColumn, '>', rows[rows.length - 1]![object.uniqueColumn] as number);
        }

        const page = await query as Row[];
        rows.push(...page);
        if (page.length < pageRows) {
            return rows;
        }

        await pause();
    }
};

// Keys a statement looks up at a time in a merge's read of the rows its body names (namedChildren): as many as
// storedChildren reads rows to a page on SQLite, where a statement holds the event loop, and far below either
// database's limit of parameters: a merge of 32,000 tasks looks them up in 16 statements.
const keysPerStatement = pageRows;

// The stored child rows of a parent that `wheres` name (each a key or a unique id, as childWhere gives them), in
// statements of keysPerStatement keys: a merge keeps the rows its body leaves out, so it reads only those it names,
// through the unique index of the join columns and the key (or the unique id's). Adding one reading to a meter with
// 10,000 earlier ones read all 10,000 before (issue 35). Rows come back in unique id order, as storedChildren's do
// on SQLite, and RowIndex matches them as before (String()), so a key the database would compare otherwise names
// the same row it named when every row was read.
const namedChildren = async (scope: WriteScope, object: BusinessObject, fixed: Row, wheres: readonly Row[], pause: Pause): Promise<Row[]> => {

    const byColumns = new Map<string, { columns: string[]; values: Map<string, unknown[]> }>();
    for (const where of wheres) {
        const columns = Object.keys(where);
        const name = JSON.stringify(columns);
        const group = byColumns.get(name) ?? { columns, values: new Map<string, unknown[]>() };
        byColumns.set(name, group);
        const values = columns.map((column) => where[column]);
        group.values.set(JSON.stringify(values), values);
    }

    const rows = new Map<unknown, Row>();
    for (const { columns, values } of byColumns.values()) {
        const all = [...values.values()];
        for (let i = 0; i < all.length; i += keysPerStatement) {
            const batch = all.slice(i, i + keysPerStatement);
            const query = scope.db.query(object.table).where(fixed).orderBy(object.uniqueColumn);
            // A key of several columns is one row value: (a, b) in ((…), …) on PostgreSQL, in (values (…), …) on
            // SQLite (knex writes each), either way a search of the unique index.
            const named = columns.length === 1 ? query.whereIn(columns[0]!, batch.map(([value]) => value) as string[]) : query.whereIn(columns, batch as string[][]);
            // A row named both by its unique id (an href) and by its key is one row: the first read of it is kept.
            for (const row of await named as Row[]) {
                rows.set(row[object.uniqueColumn], rows.get(row[object.uniqueColumn]) ?? row);
            }

            await pause();
        }
    }

    return [...rows.values()];
};

const planChildren = async (scope: WriteScope, lineage: readonly Ancestor[], child: Child, parent: Row, items: unknown[], merge: boolean): Promise<ChildPlan> => {

    const object = child.object;
    const fixed = joinValues(child, parent);
    const pause = slicer();
    // A first, silent parse only to read the keys each item names.
    const probed: { body: unknown; probe: ParsedItem; where: Row | undefined }[] = [];
    for (const body of items) {
        await pause();
        const probe = parseItem(body, { ...settingsFor(scope, object, { fixed }), errors: [] });
        probed.push({ body, probe, where: childWhere(child, lineage, body, probe) });
    }

    // An update replaces the collection it names, so it reads all of it; a merge keeps the children the body leaves
    // out, and reads only those it names.
    const stored = merge ?
        await namedChildren(scope, object, fixed, probed.flatMap(({ where }) => (where ? [where] : [])), pause) :
        await storedChildren(scope, object, fixed, pause);
    const existing = new RowIndex(stored);
    const matched = new Set<Row>();
    const plans: Plan[] = [];
    for (const { body, probe, where } of probed) {
        await pause();
        const current = existing.find(where);
        if (current && matched.has(current)) {
            scope.errors.push({ attribute: object.primaryKey[0]!, objectPath: object.path, message: `The body names the same ${object.name} row twice; name each row once.`, reason: 'badRequest' });
        }
        else if (current) {
            matched.add(current);
            plans.push(await planUpdate(scope, object, current, body, merge, [...lineage, { name: child.name, object, row: current }]));
        }
        else if (probe.href) {
            scope.errors.push({ attribute: 'href', objectPath: object.path, message: `The href ${probe.href} names no ${object.name} of this record.`, reason: 'badRequest' });
        }
        else if (probe.action === 'delete') {
            scope.errors.push({ attribute: object.primaryKey[0]!, objectPath: object.path, message: `There is no ${object.name} with the keys given to delete.`, reason: 'badRequest' });
        }
        else {
            plans.push(await planInsert(scope, object, body, fixed));
        }
    }

    if (!merge) {
        for (const row of stored) {
            if (!matched.has(row)) {
                plans.push({ op: 'delete', object, current: row });
            }
        }
    }

    return { child, plans };
};

export const checkRowstamp = (current: Row, sent: string | undefined): boolean => sent === undefined || sent === String(current[rowstampColumn]);
