import * as Util from 'node:util';

import * as fc from 'fast-check';

import type { TestServer } from '../../helpers/server';
import { base64Id, pairsId, Reference, type MRow, type ModelRequest, type State } from './reference';
import { type MObject, type MStructure } from './schema';
import { clearTables, compareTables, dumpTables, showDump, type Dump } from './tables';


// Random sequences of writes over the fixture structures (test/fixtures/model), run through the real server and
// through the reference model; after every step the status and every row of every table must be what the model
// says. The arbitraries make specs (plain data, readable when a counterexample is printed); a spec becomes a
// concrete request at run time, against the model's state, so that it can name the generated ids of rows that
// earlier steps created.

export const admin = { maxauth: Buffer.from('ADMIN:admin-secret-1').toString('base64') };
export const adminSettings = { demo: false, adminUser: 'ADMIN', adminPassword: 'admin-secret-1' };

export interface ModelBox {
    state: State;
}

// ---- the system under test ----------------------------------------------------------------------------------

export const requestUrl = (request: ModelRequest): string => `/maximo/oslc/os/${request.structure}${request.id === undefined ? '' : `/${encodeURIComponent(request.id)}`}`;

export class Harness {

    readonly reference: Reference;
    /** How many requests of each kind got each status (bulk items counted apart): what the runs exercised. */
    readonly stats = new Map<string, number>();
    /** Requests sent, over every sequence. */
    requests = 0;
    #log: string[] = [];
    #dump: Dump = { tables: {}, transactions: [], counters: [] };

    constructor(readonly t: TestServer, readonly structures: ReadonlyMap<string, MStructure>) {

        this.reference = new Reference(structures, 'ADMIN');
    }

    // Between sequences: no rows (cheaper than a new server).
    async reset(): Promise<void> {

        await clearTables(this.t.server.app.osprey.knex, this.structures);
        this.#log = [];
        this.#dump = await dumpTables(this.t.server.app.osprey.knex, this.structures);
    }

    // One request through the server and the model; throws when they disagree.
    async step(model: ModelBox, request: ModelRequest, label: string): Promise<void> {

        const { expected, state } = this.reference.run(model.state, request);
        const url = requestUrl(request);
        const res = await this.t.inject({ method: request.method, url, headers: { ...admin, ...request.headers }, payload: request.payload as object });
        const line = `${request.method} ${url} ${JSON.stringify(request.headers)} ${JSON.stringify(request.payload) ?? ''}`;
        const fail = (what: string, details: string[] = []) => {

            throw new Error([
                what,
                `  step: ${label}`,
                `  request: ${line}`,
                `  expected: ${JSON.stringify(expected)}`,
                `  answer: ${res.statusCode} ${res.payload.slice(0, 800)}`,
                ...details,
                'the sequence (requests and their statuses):',
                ...this.#log.map((entry, i) => `  ${i + 1}. ${entry}`),
                `  ${this.#log.length + 1}. ${line} → ${res.statusCode}`
            ].join('\n'));
        };

        if (res.statusCode !== expected.status) {
            fail(`status ${res.statusCode}, the model says ${expected.status}`, ['tables before the request:', showDump(this.structures, this.#dump)]);
        }

        if (expected.items) {
            const items = (res.result as { _responsemeta: { status: string; _bulkid?: unknown } }[]).map((item) => ({ status: Number(item._responsemeta.status), bulkid: item._responsemeta._bulkid }));
            if (!Util.isDeepStrictEqual(items, expected.items.map((item) => ({ status: item.status, bulkid: item.bulkid })))) {
                fail(`bulk item statuses ${JSON.stringify(items)}, the model says ${JSON.stringify(expected.items)}`, ['tables before the request:', showDump(this.structures, this.#dump)]);
            }
        }

        const dump = await dumpTables(this.t.server.app.osprey.knex, this.structures);
        if (expected.status >= 400 && !Util.isDeepStrictEqual(dump, this.#dump)) {
            fail('a refused write changed the tables', ['before:', showDump(this.structures, this.#dump), 'after:', showDump(this.structures, dump)]);
        }

        const problems = compareTables(this.structures, state, dump);
        if (problems.length) {
            fail('the tables differ from the model', [...problems.map((problem) => `  - ${problem}`), 'tables before the request:', showDump(this.structures, this.#dump), 'tables after it:', showDump(this.structures, dump)]);
        }

        ++this.requests;
        const kind = label.slice(0, label.indexOf(' '));
        const count = (key: string) => this.stats.set(key, (this.stats.get(key) ?? 0) + 1);
        count(`${kind} ${res.statusCode}`);
        for (const item of expected.items ?? []) {
            count(`bulk item ${item.status}`);
        }

        if (request.structure === 'mxmorder' && state.records.mxmlog!.length < model.state.records.mxmlog!.length) {
            count(`${kind}: cascade to logs`);
        }

        model.state = state;
        this.#dump = dump;
        this.#log.push(`${line} → ${res.statusCode}`);
    }
}

type Command = fc.AsyncCommand<ModelBox, Harness>;

class Step implements Command {

    // `when`: whether the step applies to the model's state (a write of a stored record needs one).
    constructor(readonly label: string, readonly build: (state: State) => ModelRequest, readonly when: (state: State) => boolean = () => true) { }

    check(model: Readonly<ModelBox>) {

        return this.when(model.state);
    }

    async run(model: ModelBox, harness: Harness) {

        await harness.step(model, this.build(model.state), this.label);
    }

    toString() {

        return this.label;
    }
}

// ---- values -------------------------------------------------------------------------------------------------

const sites = ['S1', 'S2'];
const ordnums = ['A', 'B'];
const host = 'http://127.0.0.1:8080/maximo/oslc/os';

const siteArb = fc.constantFrom(...sites);
const ordnumArb = fc.constantFrom(...ordnums);
const description = fc.constantFrom(undefined, null, '', 'pump', 'Seal leak', 'Überprüfung');
const priority = fc.constantFrom(undefined, null, 1, 5, '7', -2);
const done = fc.constantFrom(undefined, null, true, false, 1, 0, 'Y', 'n');
const hours = fc.constantFrom(undefined, null, 0, 1.5, 2.25, '8', 9999.99);
const note = fc.constantFrom(undefined, null, 'check', 'Torque 40');

// Sometimes (about one time in `n`), else undefined (left out of the body).
const sometimes = <T>(arbitrary: fc.Arbitrary<T>, n = 4) => fc.oneof({ weight: n - 1, arbitrary: fc.constant(undefined) }, { weight: 1, arbitrary });

// One mistake in a body, at one of its items (the root, a child, a grandchild, a bulk item): the kinds of
// invalid input the README promises to refuse.
const flawKinds = ['type', 'length', 'unknown', 'required', 'parent', 'junk', 'readonly'] as const;
type Flaw = { kind: typeof flawKinds[number]; at: number };
const flaw = sometimes(fc.record({ kind: fc.constantFrom(...flawKinds), at: fc.nat(12) }), 6);

// A child item names its row by key, by href (…/{parent id}/{child}/{id} with the key or unique id form), by an
// href of the same row of another record or of a row that does not exist (both refused), or not at all (a new
// task without taskid is numbered).
type HrefKind = 'key' | 'unique' | 'other' | 'missing';
interface StepSpec { stepnum: number; del?: boolean; href?: HrefKind; note?: unknown }
type TaskRef = { taskid: number } | { stored: number } | { auto: true };
interface TaskSpec { ref: TaskRef; del?: boolean; href?: HrefKind; description?: unknown; done?: unknown; steps?: StepSpec[] }
interface LaborSpec { ref: 'new' | 'own' | 'other' | 'missing'; index?: number; href?: boolean; del?: boolean; laborcode?: unknown; hours?: unknown }
interface OrderFields { description?: unknown; priority?: unknown; status?: unknown; memo?: unknown; tasks?: TaskSpec[]; labor?: LaborSpec[]; parentForm?: 'unique' | 'pairs' }

const hrefKind = fc.oneof({ weight: 4, arbitrary: fc.constantFrom('key' as const, 'unique' as const) }, { weight: 1, arbitrary: fc.constantFrom('other' as const, 'missing' as const) });

const stepSpec: fc.Arbitrary<StepSpec> = fc.record({
    stepnum: fc.constantFrom(1, 2),
    del: sometimes(fc.constant(true), 5),
    href: sometimes(hrefKind, 6),
    note
});

const taskSpec: fc.Arbitrary<TaskSpec> = fc.record({
    ref: fc.oneof(
        { weight: 6, arbitrary: fc.record({ taskid: fc.constantFrom(10, 20, 30) }) },
        { weight: 2, arbitrary: fc.record({ stored: fc.nat(3) }) },
        { weight: 1, arbitrary: fc.record({ auto: fc.constant(true as const) }) }
    ),
    del: sometimes(fc.constant(true), 5),
    href: sometimes(hrefKind, 6),
    description,
    done,
    steps: sometimes(fc.uniqueArray(stepSpec, { selector: (step) => step.stepnum, maxLength: 2 }), 2)
});

const laborSpec: fc.Arbitrary<LaborSpec> = fc.oneof(
    { weight: 5, arbitrary: fc.record({ ref: fc.constant('new' as const), laborcode: fc.constantFrom('ann', 'BOB'), hours }) },
    { weight: 4, arbitrary: fc.record({ ref: fc.constant('own' as const), index: fc.nat(3), href: fc.boolean(), del: sometimes(fc.constant(true), 3), laborcode: fc.constantFrom(undefined, 'cy'), hours }) },
    { weight: 1, arbitrary: fc.record({ ref: fc.constantFrom('other' as const, 'missing' as const), index: fc.nat(3), href: fc.boolean(), del: fc.boolean(), hours }) }
);

// Statuses: OPEN → HOLD, DONE; HOLD → OPEN; DONE is final (others are refused).
const status = sometimes(fc.constantFrom('OPEN', 'HOLD', 'hold', 'DONE', 'CLOSED'), 3);
const memo = sometimes(fc.constantFrom('why', 'approved'), 3);

// Also inputs that met bugs found by this test (fixed; model-regressions.test.ts): child hrefs naming their
// parent by its unique id or col:value pairs, a PATCH _action Delete with a _rowstamp, bulk items naming their
// record by lower-case keys.
const orderFields: fc.Arbitrary<OrderFields> = fc.record({
    description,
    priority,
    status,
    memo,
    tasks: sometimes(fc.array(taskSpec, { maxLength: 3 }), 2),
    labor: sometimes(fc.array(laborSpec, { maxLength: 2 }), 3),
    parentForm: sometimes(fc.constantFrom('unique' as const, 'pairs' as const), 8)
});

// transactionid: a few ids, so that repeats happen (409) and refused writes are seen not to use theirs up.
const transactionId = sometimes(fc.constantFrom('t1', 't2', 't3'), 6);
const ifMatch = sometimes(fc.constantFrom('current' as const, 'weak' as const, 'stale' as const, 'any' as const), 6);
const ifMatchHeader = (kind: 'current' | 'weak' | 'stale' | 'any' | undefined, row: MRow | undefined) => {

    switch (kind) {
        case 'current': return `"${row?.stamp ?? 1}"`;
        case 'weak': return `W/"${row?.stamp ?? 1}"`;
        case 'stale': return '"1"';
        case 'any': return '*';
        default: return undefined;
    }
};

const idForm = fc.constantFrom('base64' as const, 'base64' as const, 'pairs' as const, 'unique' as const);

// ---- bodies -------------------------------------------------------------------------------------------------

const defined = (body: Record<string, unknown>) => Object.fromEntries(Object.entries(body).filter(([, value]) => value !== undefined));

const findOrder = (state: State, siteid: string, ordnum: string) => state.records.mxmorder!.find((row) => row.v.siteid === siteid && row.v.ordnum === ordnum);

const orderId = (state: State, siteid: string, ordnum: string, form: 'base64' | 'pairs' | 'unique' = 'base64') => {

    const row = findOrder(state, siteid, ordnum);
    if (form === 'unique' && row?.id !== undefined) {
        return String(row.id);
    }

    return form === 'pairs' ? pairsId(['siteid', 'ordnum'], [siteid, ordnum]) : base64Id([siteid, ordnum]);
};

const orderHref = (siteid: string, ordnum: string) => `${host}/mxmorder/${base64Id([siteid, ordnum])}`;

// Where a child item of one order may point: its own rows, another order's href, a row id that is nowhere.
interface Pointers {
    readonly href: string;
    readonly other: string;
}

const childHref = (kind: HrefKind | undefined, pointers: Pointers, child: string, row: MRow | undefined, key: number | undefined) => {

    switch (kind) {
        case 'key':
        case 'unique':
            return row ? `${pointers.href}/${child}/${kind === 'unique' && row.id !== undefined ? row.id : base64Id([key!])}` : undefined;
        case 'other': return `${pointers.other}/${child}/${base64Id([key ?? 10])}`;
        case 'missing': return `${pointers.href}/${child}/${base64Id([99])}`;
        default: return undefined;
    }
};

const stepBody = (spec: StepSpec, task: MRow | undefined, pointers: Pointers) => {

    const step = task?.kids.step!.find((row) => row.v.stepnum === spec.stepnum);
    const body = defined({ stepnum: spec.stepnum, href: childHref(spec.href, pointers, 'step', step, spec.stepnum) });
    return spec.del ? { ...body, _action: 'Delete' } : defined({ ...body, note: spec.note });
};

// A task names a taskid once per body (two items naming one row is left unspecified): a repeated one is left out.
const taskBody = (spec: TaskSpec, order: MRow | undefined, pointers: Pointers, used: Set<unknown>) => {

    const tasks = order?.kids.task ?? [];
    const free = tasks.filter((row) => !used.has(row.v.taskid));
    const taskid = 'taskid' in spec.ref ? spec.ref.taskid : 'stored' in spec.ref ? (free.length ? free[spec.ref.stored % free.length]!.v.taskid as number : 10) : undefined;
    if (taskid !== undefined && used.has(taskid)) {
        return undefined;
    }

    used.add(taskid);
    const task = tasks.find((row) => row.v.taskid === taskid);
    const body = defined({ taskid, href: childHref(spec.href, pointers, 'task', task, taskid) });
    if (spec.del) {
        return { ...body, _action: 'Delete' };
    }

    const taskPointers = { href: `${pointers.href}/task/${base64Id([taskid ?? 10])}`, other: `${pointers.other}/task/${base64Id([taskid ?? 10])}` };
    return defined({ ...body, description: spec.description, done: spec.done, step: spec.steps?.map((step) => stepBody(step, task, taskPointers)) });
};

// `own` names a stored labor row of the order that no other item of the body names yet; with none left, the
// item is a new row. `other` names a labor row of another order (by its id or its href), `missing` one
// that does not exist.
const laborBody = (spec: LaborSpec, state: State, order: MRow | undefined, pointers: Pointers, used: Set<MRow>) => {

    const known = order?.kids.labor!.filter((row) => row.id !== undefined && !used.has(row)) ?? [];
    const others = state.records.mxmorder!.filter((row) => row !== order).flatMap((row) => row.kids.labor!.filter((labor) => labor.id !== undefined));
    let body: Record<string, unknown> = {};
    if (spec.ref === 'own' && known.length) {
        const row = known[spec.index! % known.length]!;
        used.add(row);
        body = spec.href ? { href: `${pointers.href}/labor/${base64Id([row.id!])}` } : { mlaborid: row.id };
    }
    else if (spec.ref === 'other' && others.length) {
        const row = others[spec.index! % others.length]!;
        body = spec.href ? { href: `${orderHref(String(row.v.siteid), String(row.v.ordnum))}/labor/${base64Id([row.id!])}` } : { mlaborid: row.id };
    }
    else if (spec.ref !== 'new' && spec.ref !== 'own') {
        body = spec.href ? { href: `${pointers.href}/labor/${base64Id([999999])}` } : { mlaborid: 999999 };
    }

    return spec.del ? { ...body, _action: 'Delete' } : defined({ ...body, laborcode: spec.laborcode, hours: spec.hours });
};

const orderBody = (state: State, siteid: string, ordnum: string, fields: OrderFields) => {

    const order = findOrder(state, siteid, ordnum);
    const other = state.records.mxmorder!.find((row) => row !== order) ?? { v: { siteid: siteid === 'S1' ? 'S2' : 'S1', ordnum } };
    const href = fields.parentForm && order ? `${host}/mxmorder/${orderId(state, siteid, ordnum, fields.parentForm)}` : orderHref(siteid, ordnum);
    const pointers = { href, other: orderHref(String(other.v.siteid), String(other.v.ordnum)) };
    const tasks = new Set<unknown>();
    const labor = new Set<MRow>();
    return defined({
        description: fields.description,
        priority: fields.priority,
        status: fields.status,
        memo: fields.memo,
        task: fields.tasks?.map((task) => taskBody(task, order, pointers, tasks)).filter((task) => task !== undefined),
        labor: fields.labor?.map((item) => laborBody(item, state, order, pointers, labor))
    });
};

// The items of a body with their business objects, parents first.
const itemsOf = (object: MObject, body: unknown, into: { object: MObject; item: Record<string, unknown> }[] = []) => {

    if (typeof body !== 'object' || body === null || Array.isArray(body)) {
        return into;
    }

    into.push({ object, item: body as Record<string, unknown> });
    for (const [name, child] of object.children) {
        const items = (body as Record<string, unknown>)[name];
        for (const item of Array.isArray(items) ? items : []) {
            itemsOf(child.object, item, into);
        }
    }

    return into;
};

const joinOf = (root: MObject, object: MObject): Record<string, string> | undefined => {

    for (const child of root.children.values()) {
        if (child.object === object) {
            return child.join;
        }

        const deeper = joinOf(child.object, object);
        if (deeper) {
            return deeper;
        }
    }

    return undefined;
};

// Puts the mistake into one item of the body (a copy); the model decides what it makes of it.
const withFlaw = (root: MObject, body: unknown, mistake: Flaw | undefined): unknown => {

    if (!mistake) {
        return body;
    }

    const copy = structuredClone(body);
    const data = (item: unknown) => (typeof item === 'object' && item !== null && '_data' in item ? item._data : item);
    const items = (Array.isArray(copy) ? copy : [copy]).flatMap((item) => itemsOf(root, data(item)));
    if (!items.length) {
        return copy;
    }

    const { object, item } = items[mistake.at % items.length]!;
    const attrs = [...object.attrs.values()].filter((attr) => !attr.generated && !attr.readonly);
    const pick = <T>(list: T[]) => list[mistake.at % list.length];
    const join = joinOf(root, object);
    switch (mistake.kind) {
        case 'type': {
            const attr = pick(attrs.filter((candidate) => !['upper', 'aln'].includes(candidate.type)));
            item[attr?.name ?? 'nosuch'] = attr?.type === 'yorn' ? 'maybe' : 'abc';
            break;
        }

        case 'length': {
            const attr = pick(attrs.filter((candidate) => ['upper', 'aln'].includes(candidate.type) && !object.key.includes(candidate.name)));
            item[attr?.name ?? 'nosuch'] = 'X'.repeat((attr?.length ?? 30) + 1);
            break;
        }

        case 'required': {
            const attr = pick(attrs.filter((candidate) => candidate.required));
            item[attr?.name ?? 'nosuch'] = null;
            break;
        }

        case 'parent': {
            const column = join ? pick(Object.values(join))! : 'nosuch';
            item[column] = object.attrs.get(column)?.type === 'integer' ? 99 : 'ZZ';
            break;
        }

        case 'junk': {
            const child = pick([...object.children.keys()]);
            item[child ?? 'nosuch'] = [...(Array.isArray(item[child!]) ? item[child!] as unknown[] : []), 7];
            break;
        }

        case 'readonly':
            item[object.unique] = 123456;
            break;

        default:
            item.bogus = 1;
    }

    return copy;
};

// ---- commands -----------------------------------------------------------------------------------------------

type ValueOf<A> = A extends fc.Arbitrary<infer T> ? T : never;

const label = (name: string, spec: object) => `${name} ${JSON.stringify(spec)}`;

const lower = (value: string, yes: boolean | undefined) => (yes ? value.toLowerCase() : value);

// Which record a command names, resolved against the model's state when it runs: one that is stored (most
// writes), one that is not (most creates), or given keys (which may or may not be stored: 404s, duplicates).
type Target = { stored: number } | { fresh: number } | { keys: [string, string] };

const storedTarget = (keys: fc.Arbitrary<[string, string]>) => fc.oneof({ weight: 6, arbitrary: fc.record({ stored: fc.nat(3) }) }, { weight: 1, arbitrary: fc.record({ keys }) });
const freshTarget = (keys: fc.Arbitrary<[string, string]>) => fc.oneof({ weight: 4, arbitrary: fc.record({ fresh: fc.nat(3) }) }, { weight: 1, arbitrary: fc.record({ keys }) });
const anyTarget = (keys: fc.Arbitrary<[string, string]>) => fc.oneof(storedTarget(keys), freshTarget(keys));

const resolve = (rows: readonly MRow[], attrs: [string, string], all: readonly [string, string][], target: Target): [string, string] => {

    if ('keys' in target) {
        return target.keys;
    }

    const stored = rows.map((row) => [row.v[attrs[0]], row.v[attrs[1]]] as [string, string]);
    const missing = all.filter(([a, b]) => !stored.some(([x, y]) => x === a && y === b));
    const [list, n] = 'stored' in target ? [stored.length ? stored : missing, target.stored] : [missing.length ? missing : stored, target.fresh];
    return list[n % list.length]!;
};

// A target that names a stored record applies once there is one.
const storedIn = (structure: string, target: Target) => {

    return (state: State) => !('stored' in target) || state.records[structure]!.length > 0;
};

const orderKeys = fc.tuple(siteArb, ordnumArb);
const allOrders = sites.flatMap((siteid) => ordnums.map((ordnum) => [siteid, ordnum] as [string, string]));
const resolveOrder = (state: State, target: Target) => resolve(state.records.mxmorder!, ['siteid', 'ordnum'], allOrders, target);

const lognums = ['L1', 'L2'];
const logKeys = fc.tuple(siteArb, fc.constantFrom(...lognums));
const allLogs = sites.flatMap((siteid) => lognums.map((lognum) => [siteid, lognum] as [string, string]));

const permitnums = ['P1', 'P2'];
const permitKeys = fc.tuple(fc.constantFrom(...permitnums), fc.constant(''));
const allPermits = permitnums.map((permitnum) => [permitnum, ''] as [string, string]);

// The order a permit or a log names: mostly a stored one, sometimes none or one that is not stored.
const namedOrder = fc.oneof({ weight: 3, arbitrary: storedTarget(orderKeys) }, { weight: 1, arbitrary: fc.constant(undefined) });
const namesOrder = (state: State, target: Target | undefined) => (target ? resolveOrder(state, target) : [null, undefined]);

export const commandArbitraries = (structures: ReadonlyMap<string, MStructure>): { opening: fc.Arbitrary<Command[]>; step: fc.Arbitrary<Command> } => {

    const order = structures.get('mxmorder')!.root;
    const permit = structures.get('mxmpermit')!.root;
    const log = structures.get('mxmlog')!.root;

    const create = fc.record({ order: freshTarget(orderKeys), lowerKeys: sometimes(fc.constant(true), 6), fields: orderFields, flaw, transactionId }).map((spec) => new Step(label('create', spec), (state) => {

        const [siteid, ordnum] = resolveOrder(state, spec.order);
        return {
            method: 'POST',
            structure: 'mxmorder',
            headers: defined({ transactionid: spec.transactionId }) as Record<string, string>,
            payload: withFlaw(order, { siteid: lower(siteid, spec.lowerKeys), ordnum: lower(ordnum, spec.lowerKeys), ...orderBody(state, siteid, ordnum, spec.fields) }, spec.flaw)
        };
    }));

    // PATCH (update), PUT, POST + x-method-override PATCH or PUT, and their merges: patchtype MERGE or
    // x-method-override MERGE.
    const update = fc.record({
        order: storedTarget(orderKeys),
        merge: fc.boolean(),
        via: fc.constantFrom('patch' as const, 'put' as const, 'post' as const, 'override' as const),
        idForm,
        rowstamp: sometimes(fc.constantFrom('current' as const, 'stale' as const), 5),
        echoKeys: sometimes(fc.constant(true), 5),
        ifMatch,
        fields: orderFields,
        flaw,
        transactionId
    }).map((spec) => new Step(label(spec.merge ? 'merge' : 'update', spec), (state) => {

        const [siteid, ordnum] = resolveOrder(state, spec.order);
        const override = spec.via === 'post' ? 'PATCH' : spec.via === 'override' ? (spec.merge ? 'MERGE' : 'PUT') : undefined;
        const headers = defined({
            'x-method-override': override,
            patchtype: spec.merge && override !== 'MERGE' ? 'MERGE' : undefined,
            'if-match': ifMatchHeader(spec.ifMatch, findOrder(state, siteid, ordnum)),
            transactionid: spec.transactionId
        }) as Record<string, string>;
        const method = override ? 'POST' : spec.via === 'put' ? 'PUT' : 'PATCH';
        const body: Record<string, unknown> = orderBody(state, siteid, ordnum, spec.fields);
        if (spec.rowstamp) {
            body._rowstamp = spec.rowstamp === 'current' ? findOrder(state, siteid, ordnum)?.stamp ?? '1' : '1';
        }

        if (spec.echoKeys) {
            Object.assign(body, { siteid, ordnum });
        }

        return { method, structure: 'mxmorder', id: orderId(state, siteid, ordnum, spec.idForm), headers, payload: withFlaw(order, body, spec.flaw) };
    }, storedIn('mxmorder', spec.order)));

    const sync = fc.record({ order: anyTarget(orderKeys), merge: fc.boolean(), lowerKeys: sometimes(fc.constant(true), 6), fields: orderFields, flaw, transactionId }).map((spec) => new Step(label('sync', spec), (state) => {

        const [siteid, ordnum] = resolveOrder(state, spec.order);
        return {
            method: 'POST',
            structure: 'mxmorder',
            headers: defined({ 'x-method-override': 'SYNC', patchtype: spec.merge ? 'MERGE' : undefined, transactionid: spec.transactionId }) as Record<string, string>,
            payload: withFlaw(order, { siteid: lower(siteid, spec.lowerKeys), ordnum: lower(ordnum, spec.lowerKeys), ...orderBody(state, siteid, ordnum, spec.fields) }, spec.flaw)
        };
    }));

    // DELETE, POST + x-method-override DELETE, PATCH with _action Delete.
    const remove = fc.record({
        order: storedTarget(orderKeys),
        via: fc.constantFrom('delete' as const, 'post' as const, 'patch' as const),
        idForm,
        ifMatch,
        rowstamp: sometimes(fc.constantFrom('current' as const, 'stale' as const), 4),
        transactionId
    }).map((spec) => new Step(label('delete', spec), (state): ModelRequest => {

        const [siteid, ordnum] = resolveOrder(state, spec.order);
        return {
            method: spec.via === 'delete' ? 'DELETE' : spec.via === 'post' ? 'POST' : 'PATCH',
            structure: 'mxmorder',
            id: orderId(state, siteid, ordnum, spec.idForm),
            headers: defined({
                'x-method-override': spec.via === 'post' ? 'DELETE' : undefined,
                'if-match': ifMatchHeader(spec.ifMatch, findOrder(state, siteid, ordnum)),
                transactionid: spec.transactionId
            }) as Record<string, string>,
            payload: spec.via === 'patch' ? defined({ _action: 'Delete', _rowstamp: spec.rowstamp && (spec.rowstamp === 'current' ? findOrder(state, siteid, ordnum)?.stamp : '1') }) : undefined
        };
    }, storedIn('mxmorder', spec.order)));

    // Items of every _action, naming their record by href or keys, as `{...record, _action, href}` or as
    // `{_data, _meta: {method, uri, patchtype}}`; each resolved against the state before the bulk (an item may
    // name a record an earlier item deleted or created).
    const bulkid = sometimes(fc.constantFrom('b1', 'b2'), 3);
    const meta = sometimes(fc.constant(true), 5);
    const lowerKeys = sometimes(fc.constant(true), 4);
    const bulkItem = fc.oneof(
        fc.record({ action: fc.constantFrom(undefined, 'Add'), order: freshTarget(orderKeys), fields: orderFields, bulkid, meta }),
        fc.record({ action: fc.constantFrom('Update', 'Merge', 'Delete', 'AddChange'), order: storedTarget(orderKeys), by: fc.constantFrom('href' as const, 'keys' as const), fields: orderFields, bulkid, meta, lowerKeys }),
        fc.record({ action: fc.constant('AddChange'), order: freshTarget(orderKeys), by: fc.constant('keys' as const), fields: orderFields, bulkid, meta })
    );
    const methods: Record<string, string[]> = { Add: ['POST', 'ADD'], Update: ['PATCH', 'PUT'], Merge: ['MERGE', 'PATCH+MERGE'], Delete: ['DELETE'], AddChange: ['SYNC', 'ADDCHANGE'] };
    const bulk = fc.record({ allornothing: sometimes(fc.constant(true), 3), items: fc.array(bulkItem, { minLength: 1, maxLength: 4 }), flaw, transactionId }).map((spec) => new Step(label('bulk', spec), (state) => ({
        method: 'POST',
        structure: 'mxmorder',
        headers: defined({ 'x-method-override': 'BULK', allornothing: spec.allornothing ? '1' : undefined, transactionid: spec.transactionId }) as Record<string, string>,
        payload: withFlaw(order, spec.items.map((item, i) => {

            const [siteid, ordnum] = resolveOrder(state, item.order);
            const href = 'by' in item && item.by === 'href' ? orderHref(siteid, ordnum) : undefined;
            const fields = item.action === 'Delete' ? {} : orderBody(state, siteid, ordnum, item.fields);
            const keys = href ? {} : 'lowerKeys' in item && item.lowerKeys ? { siteid: siteid.toLowerCase(), ordnum: ordnum.toLowerCase() } : { siteid, ordnum };
            if (item.meta) {
                const choices = methods[item.action ?? 'Add']!;
                const [method, patchtype] = choices[i % choices.length]!.split('+');
                return { _data: { ...keys, ...fields }, _meta: defined({ method, patchtype, uri: href, _bulkid: item.bulkid }) };
            }

            return defined({ _action: item.action, href, ...keys, ...fields, _bulkid: item.bulkid });
        }), spec.flaw)
    })));

    // Permits restrict deleting the order they name.
    const permitCreate = fc.record({ action: fc.constant('create' as const), permit: freshTarget(permitKeys), order: namedOrder, description, flaw });
    const permitChange = fc.record({ action: fc.constantFrom('update' as const, 'delete' as const), permit: storedTarget(permitKeys), order: namedOrder, description, flaw });
    const permitStep = (arbitrary: fc.Arbitrary<ValueOf<typeof permitCreate> | ValueOf<typeof permitChange>>) => arbitrary.map((spec) => new Step(label('permit', spec), (state): ModelRequest => {

        const [permitnum] = resolve(state.records.mxmpermit!, ['permitnum', 'permitnum'], allPermits, spec.permit);
        const id = base64Id([permitnum]);
        if (spec.action === 'delete') {
            return { method: 'DELETE', structure: 'mxmpermit', id, headers: {} };
        }

        const [siteid, ordnum] = namesOrder(state, spec.order);
        const body = defined({ siteid, ordnum, description: spec.description });
        return spec.action === 'create' ?
            { method: 'POST', structure: 'mxmpermit', headers: {}, payload: withFlaw(permit, { permitnum, ...body }, spec.flaw) } :
            { method: 'PATCH', structure: 'mxmpermit', id, headers: {}, payload: withFlaw(permit, body, spec.flaw) };
    }, storedIn('mxmpermit', spec.permit)));

    // Logs are deleted with the order they name; their lines are keyed by numbers every log shares.
    const lineSpec = fc.record({ lineno: fc.constantFrom(1, 2), del: sometimes(fc.constant(true), 4), text: description });
    const logFields = { order: namedOrder, text: description, lines: sometimes(fc.uniqueArray(lineSpec, { selector: (line) => line.lineno, maxLength: 2 }), 2), flaw };
    const logCreate = fc.record({ action: fc.constant('create' as const), log: freshTarget(logKeys), ...logFields });
    const logChange = fc.record({ action: fc.constantFrom('update' as const, 'merge' as const, 'sync' as const, 'delete' as const), log: storedTarget(logKeys), ...logFields });
    const logStep = (arbitrary: fc.Arbitrary<ValueOf<typeof logCreate> | ValueOf<typeof logChange>>) => arbitrary.map((spec) => new Step(label('log', spec), (state): ModelRequest => {

        const [named, ordnum] = namesOrder(state, spec.order);
        const [stored, lognum] = resolve(state.records.mxmlog!, ['siteid', 'lognum'], allLogs, spec.log);
        // A new log of an order is a log of the order's site, so that deleting the order deletes it.
        const siteid = spec.action === 'create' && named ? named : stored;
        const id = base64Id([siteid, lognum]);
        if (spec.action === 'delete') {
            return { method: 'DELETE', structure: 'mxmlog', id, headers: {} };
        }

        const body = defined({
            ordnum,
            text: spec.text,
            line: spec.lines?.map((line) => (line.del ? { lineno: line.lineno, _action: 'Delete' } : defined({ lineno: line.lineno, text: line.text })))
        });
        const keys = { siteid, lognum };
        switch (spec.action) {
            case 'create': return { method: 'POST', structure: 'mxmlog', headers: {}, payload: withFlaw(log, { ...keys, ...body }, spec.flaw) };
            case 'sync': return { method: 'POST', structure: 'mxmlog', headers: { 'x-method-override': 'SYNC', patchtype: 'MERGE' }, payload: withFlaw(log, { ...keys, ...body }, spec.flaw) };
            default: return { method: 'PATCH', structure: 'mxmlog', id, headers: spec.action === 'merge' ? { patchtype: 'MERGE' } : {}, payload: withFlaw(log, body, spec.flaw) };
        }
    }, storedIn('mxmlog', spec.log)));

    return {
        // What a sequence opens with: records to work on (orders, and permits and logs naming them).
        opening: fc.array(fc.oneof({ weight: 3, arbitrary: create }, { weight: 1, arbitrary: permitStep(permitCreate) }, { weight: 1, arbitrary: logStep(logCreate) }), { maxLength: 4 }),
        step: fc.oneof(
            { weight: 5, arbitrary: create },
            { weight: 6, arbitrary: update },
            { weight: 2, arbitrary: sync },
            { weight: 3, arbitrary: remove },
            { weight: 3, arbitrary: bulk },
            { weight: 2, arbitrary: permitStep(fc.oneof({ weight: 2, arbitrary: permitCreate }, { weight: 1, arbitrary: permitChange })) },
            { weight: 2, arbitrary: logStep(fc.oneof({ weight: 2, arbitrary: logCreate }, { weight: 1, arbitrary: logChange })) }
        )
    };
};
