import { columnsOf, type MAttr, type MChild, type MObject, type MStructure } from './schema';


// The reference model of the write API: what every table holds, and what one request does to it, written from
// the README's promises (Reading and writing records, Bulk) for the attribute types the fixtures use. It
// interprets the same HTTP request the server gets and answers the status it must give and the tables after it.
//
// - A request is all or nothing: a refused write (4xx) changes no row.
// - Create: defaults for attributes left out, required ones present, keys new (400 otherwise); children are
//   created with the join columns of their parent; child items with `_action: "Delete"` are skipped.
// - Update (PATCH, PUT, x-method-override PATCH): a named child collection is replaced — items matched by their
//   keys (or href) are updated, the others created, stored rows the body leaves out are deleted, with their own
//   children. Merge (patchtype MERGE, x-method-override MERGE) keeps the rows it leaves out. `_action: "Delete"`
//   on a child deletes it (400 when the parent has no such child); on the record it deletes the record.
// - A child row is identified by its parent and its key: the same task number under another order is another
//   row, which no write of this order may touch.
// - Delete: 404 when missing; a `restrict` relation with related records refuses (400); `cascade` deletes them.
// - SYNC updates (or merges) the record the body's keys name, or creates it.
// - BULK runs each item as the single request would, each committed on its own, or all in one with
//   `allornothing: 1`: then one failing item writes nothing, and the answer (still 200) gives that item its error
//   and every other a 424.
// - rowstamp: a body `_rowstamp` that is not current is a 409; a row the write does not name keeps its rowstamp,
//   a row it writes gets a greater one.

export type Json = string | number | boolean | null;

/** A datetime the server sets (statusdate, a history row's changedate): the model does not know the instant. */
export const serverTime = 'NOW';

export interface MRow {
    /** Stored business values (every column but the generated unique id). */
    v: Record<string, Json>;
    kids: Record<string, MRow[]>;
    /** The generated unique id, once the tables have shown it. */
    id?: number;
    /** The rowstamp the tables showed after the last step. */
    stamp?: string;
    /** JSON of `v` after the last step, to tell a changed row from an unchanged one. */
    seen?: string;
    /** Named by the current step's write (updated): its rowstamp must grow. */
    written?: boolean;
}

export interface State {
    /** structure id → its records */
    records: Record<string, MRow[]>;
    /** autokey counters by object, attribute and scope */
    counters: Record<string, number>;
    /** transactionids remembered, as `userid/structure/id` */
    transactions: string[];
}

export interface ModelRequest {
    readonly method: 'POST' | 'PATCH' | 'PUT' | 'DELETE';
    /** structure id (lower case) */
    readonly structure: string;
    /** member id of the URL */
    readonly id?: string;
    /** lower-case names */
    readonly headers: Readonly<Record<string, string>>;
    readonly payload?: unknown;
}

export interface Expected {
    readonly status: number;
    /** A bulk's item statuses, in order. */
    readonly items?: readonly { status: number; bulkid?: unknown }[];
}

export class Refusal extends Error {

    constructor(readonly status: number, message: string) {

        super(message);
    }
}

// A request the model cannot tell the outcome of: the generator must not make it.
export class Unpredictable extends Error { }

const refuse = (status: number, message: string): never => {

    throw new Refusal(status, message);
};

export const emptyState = (structures: ReadonlyMap<string, MStructure>): State => ({ records: Object.fromEntries([...structures.keys()].map((id) => [id, []])), counters: {}, transactions: [] });

const cloneState = (state: State): State => structuredClone(state);

// ---- values -------------------------------------------------------------------------------------------------

type Parsed = { ok: true; value: Json } | { ok: false };

const bad: Parsed = { ok: false };
const ok = (value: Json): Parsed => ({ ok: true, value });

const numberOf = (raw: unknown, pattern: RegExp): number => (typeof raw === 'number' ? raw : typeof raw === 'string' && pattern.test(raw) ? Number(raw) : NaN);

const truthy = [true, 1, '1', 'Y', 'y', 'true'];
const falsy = [false, 0, '0', 'N', 'n', 'false'];

// A JSON value checked against its attribute: text of at most `length` characters (upper is upper-cased),
// integers (numeric text too), decimals within their precision and scale, yorn as booleans, 1/0, "Y"/"N";
// null and "" are null.
export const parseValue = (attr: MAttr, raw: unknown): Parsed => {

    if (raw === null || raw === '') {
        return ok(null);
    }

    switch (attr.type) {
        case 'upper':
        case 'aln':
            if (typeof raw !== 'string' || raw.length > (attr.length ?? 30) || raw.includes('\u0000')) {
                return bad;
            }

            return ok(attr.type === 'upper' ? raw.toUpperCase() : raw);
        case 'integer':
        case 'bigint': {
            const value = numberOf(raw, /^-?\d+$/);
            const limit = attr.type === 'integer' ? 2 ** 31 : Number.MAX_SAFE_INTEGER;
            return Number.isInteger(value) && value >= -limit && value < limit ? ok(value) : bad;
        }

        case 'decimal': {
            const value = numberOf(raw, /^-?\d+(\.\d+)?$/);
            const scale = attr.scale ?? 2;
            const limit = 10 ** ((attr.length ?? 15) - scale);
            const decimals = (String(value).split('.')[1] ?? '').length;
            return Number.isFinite(value) && Math.abs(value) < limit && decimals <= scale ? ok(value) : bad;
        }

        case 'yorn':
            return truthy.includes(raw as never) ? ok(true) : falsy.includes(raw as never) ? ok(false) : bad;
        case 'datetime':
            return typeof raw === 'string' && !Number.isNaN(Date.parse(raw)) ? ok(serverTime) : bad;
    }
};

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

// ---- ids ----------------------------------------------------------------------------------------------------

export const base64Id = (values: readonly (string | number)[]): string => {

    const text = values.map((value) => String(value).replace(/[%/~]/g, (char) => `%${char.charCodeAt(0).toString(16).toUpperCase()}`)).join('/');
    return `_${Buffer.from(text, 'utf8').toString('base64').replace(/[=+/]/g, (char) => ({ '=': '-', '+': '_', '/': '~' })[char]!)}`;
};

export const pairsId = (keys: readonly string[], values: readonly (string | number)[]): string => keys.map((key, i) => `${key}:${String(values[i])}`).join('|');

// What a member id names: the unique id, or key values as text.
const decodeId = (object: MObject, id: string): { unique: number } | { values: string[] } | undefined => {

    if (/^\d{1,15}$/.test(id)) {
        return { unique: Number(id) };
    }

    if (id.startsWith('_')) {
        const values = Buffer.from(id.slice(1).replace(/[-_~]/g, (char) => ({ '-': '=', '_': '+', '~': '/' })[char]!), 'base64').toString('utf8').split('/')
            .map((value) => value.replace(/%([0-9A-F]{2})/g, (_, hex: string) => String.fromCharCode(parseInt(hex, 16))));
        return values.length === object.key.length ? { values } : undefined;
    }

    const pairs = new Map(id.split('|').map((pair) => [pair.slice(0, pair.indexOf(':')).toLowerCase(), pair.slice(pair.indexOf(':') + 1)]));
    return object.key.every((key) => pairs.has(key)) && pairs.size === object.key.length ? { values: object.key.map((key) => pairs.get(key)!) } : undefined;
};

const keyOfRow = (object: MObject, row: MRow, key: string): Json | undefined => (key === object.unique ? row.id : row.v[key]);

// The row of `rows` an id names. A key value compares as stored: a number key as a number, text exactly.
// One step of the way from a record down to a child row.
interface Step {
    readonly name: string;
    readonly object: MObject;
    readonly row: MRow;
}

const findById = (object: MObject, rows: readonly MRow[], id: string): MRow | undefined => {

    const decoded = decodeId(object, id);
    if (!decoded) {
        return undefined;
    }

    if ('unique' in decoded) {
        return rows.find((row) => row.id === decoded.unique);
    }

    return rows.find((row) => object.key.every((key, i) => {

        const attr = object.attrs.get(key)!;
        const text = decoded.values[i]!;
        if (attr.type === 'integer' || attr.type === 'bigint' || attr.type === 'decimal') {
            return /^-?\d+(\.\d+)?$/.test(text) && Number(text) === Number(keyOfRow(object, row, key));
        }

        return String(keyOfRow(object, row, key)) === text;
    }));
};

// The key values a body names, typed as stored; undefined unless all are there and valid.
const keyValues = (object: MObject, body: unknown): Record<string, Json> | undefined => {

    if (!isObject(body)) {
        return undefined;
    }

    const given = new Map(Object.entries(body).map(([key, value]) => [normalName(key), value]));
    const keys: Record<string, Json> = {};
    for (const key of object.key) {
        const raw = given.get(key);
        const parsed = raw === undefined ? bad : parseValue(object.attrs.get(key)!, raw);
        if (!parsed.ok || parsed.value === null) {
            return undefined;
        }

        keys[key] = parsed.value;
    }

    return keys;
};

const normalName = (key: string) => key.toLowerCase().replace(/^spi:/, '');

// ---- one item of a body -------------------------------------------------------------------------------------

interface Item {
    values: Record<string, Json>;
    /** non-persistent attributes (a status change's memo) */
    transient: Record<string, Json>;
    kids: Map<string, unknown[]>;
    action?: 'delete';
    rowstamp?: string;
    href?: string;
    failed: Set<string>;
}

interface Errors {
    list: string[];
}

const ignored = (name: string) => name === 'localref' || name === '_id' || name === '_bulkid' || name.endsWith('_collectionref');

const parseItem = (object: MObject, body: unknown, settings: { current?: Record<string, Json>; fixed?: Record<string, Json> }, errors: Errors): Item => {

    const item: Item = { values: {}, transient: {}, kids: new Map(), failed: new Set() };
    const fail = (attr: string, message: string) => {

        item.failed.add(attr);
        errors.list.push(`${object.name}.${attr}: ${message}`);
    };

    if (!isObject(body)) {
        fail('', `not an object: ${JSON.stringify(body)}`);
        return item;
    }

    const { current, fixed = {} } = settings;
    for (const [key, raw] of Object.entries(body)) {
        const name = normalName(key);
        if (name === '_action') {
            if (String(raw).toLowerCase() === 'delete') {
                item.action = 'delete';
            }
            else if (!['add', 'update', 'change', 'addchange', 'replace', 'merge'].includes(String(raw).toLowerCase())) {
                fail('_action', `unknown _action ${JSON.stringify(raw)}`);
            }

            continue;
        }

        if (name === '_rowstamp') {
            item.rowstamp = raw === null || raw === undefined ? undefined : String(raw);
            continue;
        }

        if (name === 'href') {
            item.href = typeof raw === 'string' ? raw : undefined;
            continue;
        }

        if (ignored(name)) {
            continue;
        }

        if (object.children.has(name)) {
            item.kids.set(name, Array.isArray(raw) ? raw : [raw]);
            continue;
        }

        const attr = object.attrs.get(name);
        if (!attr) {
            fail(name, 'unknown attribute');
            continue;
        }

        const parsed = parseValue(attr, raw);
        if (!parsed.ok) {
            fail(name, `bad value ${JSON.stringify(raw)}`);
            continue;
        }

        const value = parsed.value;
        if (name in fixed) {
            if (value !== null && value !== fixed[name]) {
                fail(name, 'set from the parent');
            }

            continue;
        }

        if (current && value === current[name]) {
            continue;
        }

        if (attr.generated || attr.readonly || name === object.unique) {
            if (value === null && !current) {
                continue;
            }

            fail(name, 'read-only');
            continue;
        }

        if (current && object.key.includes(name)) {
            fail(name, 'a key cannot change');
            continue;
        }

        if (value === null && (attr.required || object.key.includes(name))) {
            fail(name, 'required');
            continue;
        }

        (attr.persistent ? item.values : item.transient)[name] = value;
    }

    return item;
};

// On create: YAML defaults, and every required attribute present (or numbered by autokey).
const completeNew = (object: MObject, item: Item, fixed: Record<string, Json>, errors: Errors) => {

    for (const attr of object.attrs.values()) {
        if (!attr.persistent || attr.name in item.values || item.failed.has(attr.name) || attr.name in fixed || attr.generated || attr.name === object.unique) {
            continue;
        }

        if (attr.default !== undefined) {
            const parsed = parseValue(attr, attr.default);
            item.values[attr.name] = parsed.ok ? parsed.value : null;
            continue;
        }

        if ((attr.required || object.key.includes(attr.name)) && !attr.autokey) {
            errors.list.push(`${object.name}.${attr.name}: required`);
        }
    }
};

const joinValues = (child: MChild, parent: Record<string, Json>): Record<string, Json> => Object.fromEntries(Object.entries(child.join).map(([from, to]) => [to, parent[from] ?? null]));

const isDeleteItem = (body: unknown) => isObject(body) && String(body._action).toLowerCase() === 'delete';

// ---- the write engine's promises ----------------------------------------------------------------------------

// Where a new row goes: the rows it joins (its parent's rows of the collection, or the structure's records),
// and for a child the join of its collection. Generated numbers count among them.
interface Place {
    readonly rows: MRow[];
    readonly join?: Readonly<Record<string, string>>;
    /** the structure, when the row is a record (its statuses apply) */
    readonly structure?: MStructure;
}

// `If-Match` of a single update or delete.
const ifMatchOf = (headers: Readonly<Record<string, string>>) => headers['if-match']?.replace(/^W\//, '').replace(/"/g, '').trim();

export class Reference {

    constructor(readonly structures: ReadonlyMap<string, MStructure>, readonly userid: string) { }

    // The status the request must get and the state after it (the same object when nothing may change).
    run(state: State, request: ModelRequest): { expected: Expected; state: State } {

        const override = (request.headers['x-method-override'] ?? '').toUpperCase();
        let method: string = request.method;
        let mergeOverride = false;
        if (method === 'POST' && ['PATCH', 'PUT', 'DELETE', 'MERGE'].includes(override)) {
            mergeOverride = override === 'MERGE';
            method = override === 'MERGE' ? 'PATCH' : override;
        }

        const merge = (request.headers.patchtype ?? '').toUpperCase() === 'MERGE' || mergeOverride;
        const structure = this.structures.get(request.structure)!;
        const transactionId = request.headers.transactionid;
        if (method === 'POST' && request.id === undefined && override === 'BULK') {
            return this.bulk(state, structure, request, transactionId);
        }

        // The body is read before the transaction starts.
        if (method !== 'DELETE' && request.payload !== undefined && !isObject(request.payload)) {
            return { expected: { status: 400 }, state };
        }

        const body = () => (request.payload ?? {}) as Record<string, unknown>;
        return this.transaction(state, (next) => {

            this.recordTransaction(next, structure, transactionId);
            if (method === 'POST' && request.id === undefined) {
                return override === 'SYNC' ? this.sync(next, structure, body(), merge) : this.create(next, structure, body());
            }

            if ((method === 'PATCH' || method === 'PUT') && request.id !== undefined) {
                return this.update(next, structure, request.id, body(), merge, ifMatchOf(request.headers));
            }

            if (method === 'DELETE' && request.id !== undefined) {
                return this.deleteById(next, structure, request.id, ifMatchOf(request.headers));
            }

            throw new Unpredictable(`no model for ${request.method} ${override}`);
        });
    }

    // A transactionid is remembered with the write that carries it, as its user's on its structure: a repeat is a 409.
    private recordTransaction(state: State, structure: MStructure, id: string | undefined, record = true) {

        if (id === undefined) {
            return;
        }

        const key = `${this.userid}/${structure.id}/${id}`;
        if (state.transactions.includes(key)) {
            refuse(409, `transaction ${id} again`);
        }

        if (record) {
            state.transactions.push(key);
        }
    }

    // One transaction: the changes of `work` on a copy, or none when it refuses.
    private transaction(state: State, work: (next: State) => number): { expected: Expected; state: State } {

        const next = cloneState(state);
        try {
            return { expected: { status: work(next) }, state: next };
        }
        catch (error) {
            if (error instanceof Refusal) {
                return { expected: { status: error.status }, state };
            }

            throw error;
        }
    }

    private create(state: State, structure: MStructure, body: unknown): number {

        const errors: Errors = { list: [] };
        const root = structure.root;
        const records = state.records[structure.id]!;
        const row = this.insert(state, root, body, {}, { rows: records, structure }, errors);
        this.throwErrors(errors);
        if (records.some((other) => root.key.every((key) => other.v[key] === row.v[key]))) {
            refuse(400, `duplicate ${root.name} ${JSON.stringify(root.key.map((key) => row.v[key]))}`);
        }

        records.push(row);
        this.checkUnique(root, row);
        return 201;
    }

    private throwErrors(errors: Errors) {

        if (errors.list.length) {
            refuse(400, errors.list.join('; '));
        }
    }

    // A new row and its children (a child item with _action Delete is skipped); the caller puts it in its place.
    private insert(state: State, object: MObject, body: unknown, fixed: Record<string, Json>, place: Place, errors: Errors): MRow {

        const item = parseItem(object, body, { fixed }, errors);
        completeNew(object, item, fixed, errors);
        const status = place.structure && this.checkStatus(place.structure, undefined, item, errors);
        const v: Record<string, Json> = {};
        for (const column of columnsOf(object)) {
            v[column] = column in fixed ? fixed[column]! : item.values[column] ?? null;
        }

        for (const attr of object.attrs.values()) {
            if (attr.autokey && v[attr.name] === null && !item.failed.has(attr.name)) {
                v[attr.name] = this.nextNumber(state, object, attr, v, place);
            }
        }

        const row: MRow = { v, kids: Object.fromEntries([...object.children.keys()].map((name) => [name, []])) };
        for (const [name, items] of item.kids) {
            const child = object.children.get(name)!;
            for (const childBody of items) {
                if (!isDeleteItem(childBody)) {
                    row.kids[name]!.push(this.insert(state, child.object, childBody, joinValues(child, v), { rows: row.kids[name]!, join: child.join }, errors));
                }
            }
        }

        if (status) {
            this.addHistory(place.structure!, row, item);
        }

        return row;
    }

    // A status written must follow the YAML's transitions (on create: be one of its statuses); it stamps
    // statusdate. True when a status is written (and a history row follows).
    private checkStatus(structure: MStructure, current: MRow | undefined, item: Item, errors: Errors): boolean {

        const name = structure.statusAttribute;
        if (!structure.statuses || !(name in item.values)) {
            return false;
        }

        const to = String(item.values[name]);
        const next = current ? Object.hasOwn(structure.statuses, String(current.v[name])) ? structure.statuses[String(current.v[name])]! : [] : undefined;
        if (next ? !next.includes(to) : !Object.hasOwn(structure.statuses, to)) {
            errors.list.push(`${structure.root.name}.${name}: ${current ? `${String(current.v[name])} cannot change to ${to}` : `${to} is not a status`}`);
            return false;
        }

        if (structure.root.attrs.get('statusdate')?.persistent) {
            item.values.statusdate = serverTime;
        }

        return true;
    }

    // The history row of a status written, with the memo of the write.
    private addHistory(structure: MStructure, row: MRow, item: Item) {

        const child = structure.statusHistory ? structure.root.children.get(structure.statusHistory) : undefined;
        if (!child) {
            return;
        }

        const object = child.object;
        const values: Record<string, Json> = { [structure.statusAttribute]: row.v[structure.statusAttribute] ?? null, changedate: serverTime, changeby: this.userid, memo: item.transient.memo ?? null };
        const v: Record<string, Json> = Object.fromEntries(columnsOf(object).map((column) => [column, null]));
        Object.assign(v, joinValues(child, row.v));
        for (const [name, value] of Object.entries(values)) {
            if (object.attrs.get(name)?.persistent) {
                v[name] = value;
            }
        }

        row.kids[child.name]!.push({ v, kids: Object.fromEntries([...object.children.keys()].map((name) => [name, []])) });
    }

    // autokey: numbers count per scope (the row's other identity values: a child's parent, a record's other
    // keys) in a counter kept across deletes, from the highest number stored in the scope when it is first
    // used; a number typed in by hand is skipped.
    private nextNumber(state: State, object: MObject, attr: MAttr, v: Record<string, Json>, place: Place): Json {

        const { prefix, start } = attr.autokey!;
        const scope = [...new Set([...Object.values(place.join ?? {}), ...object.key])].filter((name) => name !== attr.name);
        const rows = place.rows.filter((row) => scope.every((name) => row.v[name] === v[name]));
        const counter = `${object.name}.${attr.name} ${JSON.stringify(scope.map((name) => v[name]))}`;
        const numberIn = (value: Json) => {

            const text = String(value);
            return text.startsWith(prefix) && /^\d{1,15}$/.test(text.slice(prefix.length)) ? Number(text.slice(prefix.length)) : 0;
        };

        state.counters[counter] ??= Math.max(start - 1, ...rows.map((row) => numberIn(row.v[attr.name]!)));
        for (;;) {
            const last = ++state.counters[counter];
            const candidate = attr.type === 'integer' || attr.type === 'bigint' ? last : `${prefix}${last}`;
            if (!rows.some((row) => String(row.v[attr.name]) === String(candidate))) {
                return candidate;
            }
        }
    }

    // The unique index: a child's key once per parent.
    private checkUnique(object: MObject, row: MRow) {

        for (const [name, child] of object.children) {
            const keys = child.object.key.filter((key) => key !== child.object.unique);
            if (keys.length) {
                const seen = new Set<string>();
                for (const kid of row.kids[name]!) {
                    const key = JSON.stringify(keys.map((attr) => kid.v[attr]));
                    if (seen.has(key)) {
                        refuse(400, `duplicate ${child.object.name} ${key}`);
                    }

                    seen.add(key);
                }
            }

            for (const kid of row.kids[name]!) {
                this.checkUnique(child.object, kid);
            }
        }
    }

    // The record an id names, then If-Match (404 before 412).
    private find(state: State, structure: MStructure, id: string, ifMatch?: string): MRow {

        const row = findById(structure.root, state.records[structure.id]!, id) ?? refuse(404, `no ${structure.root.name} ${id}`);
        if (ifMatch && ifMatch !== '*' && (row.written || ifMatch !== row.stamp)) {
            refuse(412, `If-Match ${ifMatch}`);
        }

        return row;
    }

    private update(state: State, structure: MStructure, id: string, body: unknown, merge: boolean, ifMatch?: string): number {

        return this.updateRow(state, structure, this.find(state, structure, id, ifMatch), body, merge);
    }

    private updateRow(state: State, structure: MStructure, current: MRow, body: unknown, merge: boolean): number {

        const errors: Errors = { list: [] };
        const outcome = this.updateItem(state, structure.root, current, body, merge, structure, errors);
        this.throwErrors(errors);
        if (outcome === 'delete') {
            this.deleteRecord(state, structure, current, 0);
            return 204;
        }

        this.checkUnique(structure.root, current);
        return 204;
    }

    // Updates `current` in place (the state is a copy); 'delete' when the item asks its row to be deleted.
    // `structure` is given for the record itself (not a child): its rowstamp and statuses apply.
    // `lineage` is the way down from the record to a child row (each step with the name its href gives it).
    private updateItem(state: State, object: MObject, current: MRow, body: unknown, merge: boolean, structure: MStructure | undefined, errors: Errors, lineage: readonly Step[] = []): 'delete' | undefined {

        const isRoot = structure !== undefined;

        const item = parseItem(object, body, { current: { ...current.v, [object.unique]: current.id ?? null } }, errors);
        // A stale _rowstamp refuses a delete as it refuses an update.
        if (isRoot && item.rowstamp !== undefined && (current.written || item.rowstamp !== current.stamp)) {
            refuse(409, `stale _rowstamp ${item.rowstamp}`);
        }

        if (item.action === 'delete') {
            return 'delete';
        }

        const status = structure !== undefined && this.checkStatus(structure, current, item, errors);
        Object.assign(current.v, item.values);
        current.written = true;
        const here = lineage.length ? lineage : [{ name: structure!.id, object, row: current }];
        for (const [name, items] of item.kids) {
            this.updateChildren(state, here, object.children.get(name)!, current, items, merge, errors);
        }

        // The server writes it before the children; here it comes after them, so that a collection the body
        // replaces (read before the write) does not take it either.
        if (status) {
            this.addHistory(structure, current, item);
        }

        return undefined;
    }

    private updateChildren(state: State, lineage: readonly Step[], child: MChild, parent: MRow, items: unknown[], merge: boolean, errors: Errors) {

        const object = child.object;
        const fixed = joinValues(child, parent.v);
        const existing = [...parent.kids[child.name]!];
        const matched = new Set<MRow>();
        for (const body of items) {
            const probe = parseItem(object, body, { fixed }, { list: [] });
            const current = this.matchChild(lineage, child, existing, body, probe);
            if (current) {
                if (matched.has(current)) {
                    throw new Unpredictable(`two items name one ${object.name}`);
                }

                matched.add(current);
                if (this.updateItem(state, object, current, body, merge, undefined, errors, [...lineage, { name: child.name, object, row: current }]) === 'delete') {
                    parent.kids[child.name] = parent.kids[child.name]!.filter((row) => row !== current);
                }
            }
            else if (probe.href !== undefined) {
                errors.list.push(`${object.name}: the href ${probe.href} names no row of this record`);
            }
            else if (probe.action === 'delete') {
                errors.list.push(`${object.name}: no row with the keys given to delete`);
            }
            else {
                const rows = parent.kids[child.name]!;
                rows.push(this.insert(state, object, body, fixed, { rows, join: child.join }, errors));
            }
        }

        if (!merge) {
            parent.kids[child.name] = parent.kids[child.name]!.filter((row) => !existing.includes(row) || matched.has(row));
        }
    }

    // The stored child an item names: by its href, else by its key values. The href names the whole way down
    // (…/{os}/{record id}/{child}/{id}/{grandchild}/{id}), each step a row this body writes; the record may be
    // named in any of its id forms, the child names in any case.
    private matchChild(lineage: readonly Step[], child: MChild, existing: readonly MRow[], body: unknown, probe: Item): MRow | undefined {

        if (probe.href !== undefined) {
            const path = [...lineage, { name: child.name, object: child.object }];
            const tail = probe.href.split(/[?#]/)[0]!.split('/').slice(-2 * path.length);
            const named = tail.length === 2 * path.length && path.every((step, i) => tail[2 * i]!.toLowerCase() === step.name && (i === path.length - 1 || findById(step.object, [lineage[i]!.row], tail[2 * i + 1]!) !== undefined));
            return named ? findById(child.object, existing, tail[tail.length - 1]!) : undefined;
        }

        const keys = keyValues(child.object, body);
        return keys ? existing.find((row) => child.object.key.every((key) => String(keyOfRow(child.object, row, key)) === String(keys[key]))) : undefined;
    }

    private deleteById(state: State, structure: MStructure, id: string, ifMatch?: string): number {

        this.deleteRecord(state, structure, this.find(state, structure, id, ifMatch), 0);
        return 204;
    }

    // Relations first: restrict refuses while related records exist, cascade deletes them; then the record
    // with all its children.
    private deleteRecord(state: State, structure: MStructure, row: MRow, depth: number) {

        if (depth > 8) {
            refuse(400, 'cascade too deep');
        }

        for (const relation of structure.relations) {
            if (relation.onDelete === 'ignore') {
                continue;
            }

            const pairs = Object.entries(relation.join).map(([from, to]) => [to, row.v[from] ?? null] as const);
            if (pairs.some(([, value]) => value === null)) {
                continue;
            }

            const target = this.structures.get(relation.target)!;
            const related = state.records[target.id]!.filter((other) => pairs.every(([to, value]) => other.v[to] === value));
            if (!related.length) {
                continue;
            }

            if (relation.onDelete === 'restrict') {
                refuse(400, `${related.length} ${target.id} record(s) restrict deleting through ${relation.name}`);
            }

            for (const other of related) {
                if (state.records[target.id]!.includes(other)) {
                    this.deleteRecord(state, target, other, depth + 1);
                }
            }
        }

        state.records[structure.id] = state.records[structure.id]!.filter((other) => other !== row);
    }

    private sync(state: State, structure: MStructure, body: unknown, merge: boolean): number {

        const root = structure.root;
        const keys = keyValues(root, body);
        const current = keys && state.records[structure.id]!.find((row) => root.key.every((key) => row.v[key] === keys[key]));
        if (!current) {
            return this.create(state, structure, body);
        }

        return this.updateRow(state, structure, current, body, merge);
    }

    // ---- bulk ---------------------------------------------------------------------------------------------

    private bulk(state: State, structure: MStructure, request: ModelRequest, transactionId: string | undefined): { expected: Expected; state: State } {

        const raws = request.payload;
        if (!Array.isArray(raws)) {
            return { expected: { status: 400 }, state };
        }

        const allOrNothing = ['1', 'true'].includes(request.headers.allornothing ?? '');
        if (allOrNothing) {
            let items: { status: number; bulkid?: unknown }[] = [];
            let failed: { index: number; status: number } | undefined;
            const outcome = this.transaction(state, (next) => {

                this.recordTransaction(next, structure, transactionId);
                items = raws.map((raw, index) => {

                    try {
                        return { status: this.bulkItem(next, structure, raw), bulkid: bulkIdOf(raw) };
                    }
                    catch (error) {
                        failed = error instanceof Refusal ? { index, status: error.status } : undefined;
                        throw error;
                    }
                });
                return 200;
            });
            if (outcome.expected.status === 200 || !failed) {
                return outcome.expected.status === 200 ? { expected: { status: 200, items }, state: outcome.state } : outcome;
            }

            // Nothing written: the failing item's status, 424 (not written) for every other.
            const { index: at, status } = failed;
            return { expected: { status: 200, items: raws.map((raw, index) => ({ status: index === at ? status : 424, bulkid: bulkIdOf(raw) })) }, state };
        }

        // Without allornothing each item commits alone, with its own transactionid `ID#n` (n from 1); ID itself
        // remembered refuses the bulk whole.
        const checked = this.transaction(state, (next) => {

            this.recordTransaction(next, structure, transactionId, false);
            return 200;
        });
        if (checked.expected.status !== 200) {
            return checked;
        }

        let current = state;
        const items: { status: number; bulkid?: unknown }[] = [];
        for (const [index, raw] of raws.entries()) {
            const outcome = this.transaction(current, (next) => {

                this.recordTransaction(next, structure, transactionId === undefined ? undefined : `${transactionId}#${index + 1}`);
                return this.bulkItem(next, structure, raw);
            });
            items.push({ status: outcome.expected.status, bulkid: bulkIdOf(raw) });
            current = outcome.state;
        }

        return { expected: { status: 200, items }, state: current };
    }

    // An item `{...record, _action, href}`, or `{_data: {...}, _meta: {method, uri, patchtype}}`.
    private bulkItem(state: State, structure: MStructure, raw: unknown): number {

        if (!isObject(raw)) {
            refuse(400, 'a bulk item is an object');
        }

        let operation: Operation;
        let body: Record<string, unknown>;
        let id: string | undefined;
        const item = raw as Record<string, unknown>;
        if ('_data' in item || '_meta' in item) {
            const data = item._data ?? {};
            const meta = item._meta ?? {};
            if (!isObject(data) || !isObject(meta)) {
                refuse(400, '_data and _meta are objects');
            }

            const method = operationOf((meta as Record<string, unknown>).method);
            operation = method === 'update' && String((meta as Record<string, unknown>).patchtype ?? '').toUpperCase() === 'MERGE' ? 'merge' : method;
            body = data as Record<string, unknown>;
            id = this.hrefId(structure, (meta as Record<string, unknown>).uri);
        }
        else {
            const { _action: action, ...rest } = item;
            operation = operationOf(action);
            body = rest;
            id = this.hrefId(structure, body.href);
            if (action === undefined && id !== undefined) {
                refuse(400, 'an item that names a record by href needs an _action');
            }
        }

        if (operation === 'add') {
            return this.create(state, structure, body);
        }

        if (operation === 'addchange' && id === undefined) {
            return this.sync(state, structure, body, false);
        }

        const target = id ?? this.keyId(structure, body);
        if (operation === 'delete') {
            return this.deleteById(state, structure, target);
        }

        return this.update(state, structure, target, body, operation === 'merge');
    }

    private hrefId(structure: MStructure, href: unknown): string | undefined {

        if (href === undefined || href === null) {
            return undefined;
        }

        const segments = typeof href === 'string' ? href.split(/[?#]/)[0]!.split('/').filter(Boolean) : [];
        const os = segments.findIndex((segment) => segment.toLowerCase() === 'os');
        if (!segments.length || (os >= 0 && (segments.length !== os + 3 || segments[os + 1]!.toLowerCase() !== structure.id))) {
            refuse(400, `${JSON.stringify(href)} is not an href of ${structure.id}`);
        }

        return decodeURIComponent(segments[segments.length - 1]!);
    }

    // A bulk item without an href names its record by all of its key values, typed as the attributes are (upper
    // case for upper), as SYNC does.
    private keyId(structure: MStructure, body: Record<string, unknown>): string {

        const given = new Map(Object.entries(body).map(([key, value]) => [key.toLowerCase(), value]));
        const values = structure.root.key.map((key) => given.get(key));
        if (values.some((value) => value === undefined || value === null)) {
            refuse(400, 'a bulk update names its record by href or all of its keys');
        }

        return base64Id(structure.root.key.map((key, i) => {

            const parsed = parseValue(structure.root.attrs.get(key)!, values[i]);
            return parsed.ok && parsed.value !== null ? String(parsed.value) : String(values[i]);
        }));
    }
}

type Operation = 'add' | 'update' | 'merge' | 'delete' | 'addchange';

const operations: Record<string, Operation> = {
    add: 'add', create: 'add', post: 'add',
    update: 'update', change: 'update', replace: 'update', patch: 'update', put: 'update',
    merge: 'merge',
    delete: 'delete',
    addchange: 'addchange', sync: 'addchange'
};

const operationOf = (name: unknown): Operation => (name === undefined ? 'add' : operations[String(name).toLowerCase()] ?? refuse(400, `unknown bulk operation ${String(name)}`));

const bulkIdOf = (raw: unknown) => (isObject(raw) ? raw._bulkid ?? (isObject(raw._meta) ? raw._meta._bulkid : undefined) : undefined);
