import * as Code from '@hapi/code';
import * as Lab from '@hapi/lab';
import * as Fc from 'fast-check';

import type { BusinessObject } from '../../src/structures/registry';
import { onEachDatabase } from '../helpers/experiments';
import { wilson } from '../helpers/server';


const lab = exports.lab = Lab.script();
const { test, before } = lab;
const { expect } = Code;

// Nothing a client puts in a write's body may produce a 500 or write part of what it asks: random JSON shaped
// like the structure's records (its attribute and child names, Maximo's own keys, values of every JSON type,
// dates out of range, NUL, lone surrogates, deep nesting) and bodies that are not JSON at all, sent as create,
// update, merge, sync and bulk. Each answer is a 2xx or a 4xx; after a 4xx the tables hold what they held before.
// OSPREY_FUZZ_RUNS raises the count (the default keeps the suite fast).
const runs = Number(process.env.OSPREY_FUZZ_RUNS ?? 150);

// The names Object.prototype holds, as keys and as values (issue 34: a bulk item whose method was constructor
// answered 500).
const prototypeNames = [...Object.getOwnPropertyNames(Object.prototype), 'prototype'];

const wos = '/maximo/oslc/os/mxapiwodetail';

// Strings a careless or hostile client sends: control characters, lone surrogates, SQL, dates beyond 0001–9999.
const strings = Fc.oneof(
    Fc.string({ maxLength: 30 }),
    Fc.constantFrom('', ' ', '\u0000', '\ud800', 'x\udfffy', '😀', '%', '_', '*', '"', '\'; drop table workorder; --', 'APPR', 'BEDFORD', 'NASHUA', 'EM', 'PM', '11430', 'BR120',
        '2026-01-01', '2026-02-30', '2026-01-01T10:00:00Z', '0000-01-01T00:00:00Z', '10000-01-01T00:00:00Z', '+010000-01-01', '99-05-01', '2026-13-01', 'true', '-1', '1e999', 'NaN'),
    Fc.string({ unit: 'binary', maxLength: 20 }),
    Fc.constantFrom(...prototypeNames)
);
const scalars = Fc.oneof(strings, Fc.integer(), Fc.double({ noNaN: true }), Fc.constantFrom(0, -1, 1.5, 2 ** 53, -(2 ** 63), 1e308), Fc.boolean(), Fc.constant(null));

// Objects keyed by the names the structure knows (in any case, with or without spi:), Maximo's own keys, and
// some names it does not; values are scalars, records of the children, or anything at all.
const recordOf = (object: BusinessObject, depth: number): Fc.Arbitrary<Record<string, unknown>> => {

    const attributes = object.columns.map((attr) => attr.name);
    const children = [...object.children.values()];
    const names = Fc.oneof(
        { weight: 6, arbitrary: Fc.constantFrom(...attributes) },
        { weight: 1, arbitrary: Fc.constantFrom(...attributes).map((name) => name.toUpperCase()) },
        { weight: 1, arbitrary: Fc.constantFrom(...attributes).map((name) => `spi:${name}`) },
        { weight: 1, arbitrary: Fc.constantFrom('_action', 'href', 'rdf:about', '_rowstamp', '_bulkid', 'localref', 'x', '') },
        { weight: 1, arbitrary: Fc.constantFrom(...prototypeNames) }
    );
    const value = depth > 0 && children.length ? Fc.oneof({ weight: 8, arbitrary: scalars }, { weight: 1, arbitrary: Fc.jsonValue({ maxDepth: 3 }) }) : scalars;
    const plain = Fc.dictionary(names, value, { maxKeys: 8 });
    if (depth === 0 || !children.length) {
        return plain;
    }

    const child = Fc.constantFrom(...children).chain((each) => Fc.tuple(Fc.constant(each.name), Fc.oneof(Fc.array(recordOf(each.object, depth - 1), { maxLength: 3 }), scalars)));
    return Fc.tuple(plain, Fc.array(child, { maxLength: 2 })).map(([record, kids]) => ({ ...record, ...Object.fromEntries(kids) }));
};

// A body sent as bytes: what it must be refused for, when it must.
interface Raw {
    readonly form: 'create' | 'update' | 'bulk';
    readonly payload: Buffer;
    readonly repeated: string | undefined;
    readonly bytes: boolean;
}

interface Write {
    readonly form: 'create' | 'update' | 'merge' | 'sync' | 'bulk' | 'text';
    readonly payload: unknown;
    readonly allOrNothing?: boolean;
}

onEachDatabase(lab, 'fuzzing write bodies', { timeout: 60_000 + runs * 200 }, (t) => {

    let writes: Fc.Arbitrary<Write>;
    let raws: Fc.Arbitrary<Raw>;
    let target: string;
    const tables: { table: string; key: string }[] = [];

    before(async () => {

        const root = t.server.app.osprey.registry.get('MXAPIWODETAIL')!.root;
        const collect = (object: BusinessObject) => {

            tables.push({ table: object.table, key: object.uniqueColumn });
            object.children.forEach((child) => collect(child.object));
        };

        collect(root);
        const record = recordOf(root, 2);
        const texts = Fc.oneof(Fc.string({ maxLength: 40 }), Fc.jsonValue({ maxDepth: 2 }).map((value) => JSON.stringify(value).slice(0, -1)), Fc.constantFrom('{', '[', '{"a":', '{"description":"\\ud800"}', '\u0000', '[1,2', '{"a":1}}', 'null', '"text"', '1e99999'));
        writes = Fc.oneof(
            record.map((payload) => ({ form: 'create' as const, payload })),
            record.map((payload) => ({ form: 'update' as const, payload })),
            record.map((payload) => ({ form: 'merge' as const, payload })),
            record.map((payload) => ({ form: 'sync' as const, payload: { siteid: 'BEDFORD', wonum: 'FUZZ-1', ...payload } })),
            Fc.tuple(Fc.array(Fc.oneof(record, scalars), { maxLength: 4 }), Fc.boolean()).map(([payload, allOrNothing]) => ({ form: 'bulk' as const, payload, allOrNothing })),
            // Items in IBM's Java client's form, whose _meta names the operation and the record.
            Fc.tuple(Fc.array(Fc.tuple(record, Fc.oneof(Fc.constantFrom(...prototypeNames), Fc.constantFrom('Add', 'Update', 'Merge', 'Delete')), Fc.oneof(Fc.constant(undefined), Fc.constantFrom(...prototypeNames).map((name) => `${wos}/${name}`))), { minLength: 1, maxLength: 3 }), Fc.boolean())
                .map(([items, allOrNothing]) => ({ form: 'bulk' as const, payload: items.map(([data, method, uri]) => ({ _data: data, _meta: { method, ...uri ? { uri } : {} } })), allOrNothing })),
            texts.map((payload) => ({ form: 'text' as const, payload }))
        );

        // Records written as text with a key sent again (in another case, or with spi:) or with bytes that are no UTF-8.
        const again = Fc.tuple(Fc.nat(), Fc.constantFrom((name: string) => name, (name: string) => name.toUpperCase(), (name: string) => `spi:${name}`, (name: string) => `SPI:${name.toUpperCase()}`));
        const bad = Fc.constantFrom([0xff], [0xc0, 0x80], [0xed, 0xa0, 0x80], [0xe2, 0x82], [0xe9], [0xf8, 0x88, 0x80, 0x80, 0x80], [0x80]);
        raws = Fc.tuple(Fc.constantFrom('create' as const, 'update' as const, 'bulk' as const), record, Fc.option(again, { nil: undefined }), Fc.option(bad, { nil: undefined })).map(([form, body, twice, bytes]) => {

            const keys = Object.keys(body);
            let text = JSON.stringify(body);
            let repeated: string | undefined;
            if (twice && keys.length) {
                const key = keys[twice[0] % keys.length]!;
                repeated = key;
                text = `${text.slice(0, -1)},${JSON.stringify(twice[1](key.toLowerCase().replace(/^spi:/, '')))}:${JSON.stringify(body[key]) ?? 'null'}}`;
            }

            const payload = bytes ? Buffer.concat([Buffer.from('{"description":"x'), Buffer.from(bytes), Buffer.from(`y"${text === '{}' ? '' : ','}${text.slice(1)}`)]) : Buffer.from(text);
            return { form, payload: form === 'bulk' ? Buffer.concat([Buffer.from('['), payload, Buffer.from(']')]) : payload, repeated, bytes: bytes !== undefined };
        });

        // The record the updates and merges are sent to: one of WILSON's own, with tasks and labor.
        const made = await t.inject({ method: 'POST', url: wos, headers: { ...wilson, properties: 'wonum' }, payload: { siteid: 'BEDFORD', description: 'Fuzz target', woactivity: [{ taskid: 10 }], wplabor: [{ laborcode: 'WILSON', craft: 'MECH' }] } });
        expect(made.statusCode, made.payload).to.equal(201);
        target = new URL(made.headers.location as string).pathname;
    });

    // Every row of the tables a work order writes, in a stable order: the state a refused write must leave as it was.
    const snapshot = async () => {

        const knex = t.server.app.osprey.knex;
        const state: Record<string, unknown[]> = {};
        for (const { table, key } of tables) {
            state[table] = await knex(table).select().orderBy(key);
        }

        return JSON.stringify(state);
    };

    // The tables' state as a run last saw it, while no write since may have changed it (the last write was
    // refused and the tables were found as they were): the next run starts from it instead of reading every
    // table again. A snapshot is most of a run's time (30–40 ms here).
    let verified: string | undefined;
    const stateBefore = async () => {

        const state = verified ?? await snapshot();
        verified = undefined;
        return state;
    };

    // After a write that must have changed nothing: the tables are as they were, and that state is kept.
    const unchanged = async (state: string) => {

        const after = await snapshot();
        if (after !== state) {
            return false;
        }

        verified = after;
        return true;
    };

    const send = (write: Write) => {

        const headers: Record<string, string> = { ...wilson };
        switch (write.form) {
            case 'create': return t.inject({ method: 'POST', url: wos, headers, payload: write.payload as object });
            case 'update': return t.inject({ method: 'POST', url: target, headers: { ...headers, 'x-method-override': 'PATCH' }, payload: write.payload as object });
            case 'merge': return t.inject({ method: 'POST', url: target, headers: { ...headers, 'x-method-override': 'PATCH', patchtype: 'MERGE' }, payload: write.payload as object });
            case 'sync': return t.inject({ method: 'POST', url: wos, headers: { ...headers, 'x-method-override': 'SYNC' }, payload: write.payload as object });
            case 'bulk': return t.inject({ method: 'POST', url: wos, headers: { ...headers, 'x-method-override': 'BULK', ...write.allOrNothing ? { allornothing: '1' } : {} }, payload: write.payload as object });
            case 'text': return t.inject({ method: 'POST', url: wos, headers: { ...headers, 'content-type': 'application/json' }, payload: write.payload as string });
        }
    };

    // Found by the fuzzing below at 10,000 runs: a SYNC whose key held NUL was a 500 on PostgreSQL.
    test('a key holding NUL names no record: SYNC, a bulk update and a bulk delete are 400s, and nothing changes', async () => {

        const state = await snapshot();
        const sync = await t.inject({ method: 'POST', url: wos, headers: { ...wilson, 'x-method-override': 'SYNC' }, payload: { siteid: '\u0000', wonum: 'FUZZ-1' } });
        expect(sync.statusCode, sync.payload).to.equal(400);
        const bulk = await t.inject({ method: 'POST', url: wos, headers: { ...wilson, 'x-method-override': 'BULK' }, payload: [{ siteid: 'BEDFORD', wonum: 'a\u0000', _action: 'Update' }, { siteid: '\u0000', wonum: '1001', _action: 'Delete' }] });
        expect(bulk.statusCode, bulk.payload).to.equal(200);
        expect(bulk.result.map((item: { _responsemeta: { status: string } }) => item._responsemeta.status)).to.equal(['400', '400']);
        expect(await snapshot()).to.equal(state);
    });

    test('every write form answers 2xx or 4xx, and a refused write changes nothing', async () => {

        const seen: Record<string, number> = {};
        await Fc.assert(Fc.asyncProperty(writes, async (write) => {

            const state = await stateBefore();
            const res = await send(write);
            const describe = `${write.form} ${JSON.stringify(write.payload)?.slice(0, 300)} answered ${res.statusCode}: ${res.payload.slice(0, 300)}`;
            if (res.statusCode >= 500 || res.statusCode < 200) {
                throw new Error(describe);
            }

            seen[`${write.form} ${res.statusCode}`] = (seen[`${write.form} ${res.statusCode}`] ?? 0) + 1;
            if (res.statusCode >= 400 && !await unchanged(state)) {
                throw new Error(`${describe}; and the tables changed`);
            }

            // A bulk answers each item; an all-or-nothing bulk with a refused item wrote nothing.
            if (write.form === 'bulk' && res.statusCode === 200 && write.allOrNothing && (res.result as { _responsemeta: { status: string } }[]).some((item) => Number(item._responsemeta.status) >= 400) && !await unchanged(state)) {
                throw new Error(`${describe}; an all-or-nothing bulk with a refused item changed the tables`);
            }
        }), { numRuns: runs, includeErrorInReport: true });

        if (process.env.OSPREY_FUZZ_RUNS) {
            process.stdout.write(`\n${runs} write bodies answered: ${JSON.stringify(seen)}\n`);
        }

        // The bodies reached past the parser: some writes were done, some refused.
        const statuses = Object.keys(seen).map((key) => Number(key.split(' ')[1]));
        expect(statuses.some((status) => status < 300), JSON.stringify(seen)).to.be.true();
        expect(statuses.some((status) => status === 400), JSON.stringify(seen)).to.be.true();
    });
    // Issue 34: what the strict reader refuses is refused whatever else the body holds, before anything is written.
    test('a body with bytes that are no UTF-8, or a key sent twice, is a 400 saying so, and nothing changes', async () => {

        await Fc.assert(Fc.asyncProperty(raws, async (raw) => {

            const state = await stateBefore();
            const headers = { ...wilson, 'content-type': 'application/json', ...raw.form === 'bulk' ? { 'x-method-override': 'BULK' } : {} };
            const res = await t.inject({ method: raw.form === 'update' ? 'PATCH' : 'POST', url: raw.form === 'update' ? target : wos, headers, payload: raw.payload });
            const describe = `${raw.form} ${raw.payload.toString('latin1').slice(0, 300)} answered ${res.statusCode}: ${res.payload.slice(0, 300)}`;
            if (res.statusCode >= 500 || res.statusCode < 200) {
                throw new Error(describe);
            }

            if (raw.bytes || raw.repeated !== undefined) {
                expect(res.statusCode, describe).to.equal(400);
                expect(res.result.Error.message, describe).to.match(raw.bytes ? /is not UTF-8 text: the bytes at offset 1[78] / : /names .* twice in one object|__proto__/);
            }

            if (res.statusCode >= 400 && !await unchanged(state)) {
                throw new Error(`${describe}; and the tables changed`);
            }
        }), { numRuns: runs, includeErrorInReport: true });
    });
});
