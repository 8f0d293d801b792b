import * as Zlib from 'node:zlib';

import * as Code from '@hapi/code';
import * as Lab from '@hapi/lab';

import type { BusinessObject } from '../../src/structures/registry';
import { onEachDatabase } from '../helpers/experiments';
import { maxadmin } from '../helpers/server';


const lab = exports.lab = Lab.script();
const { test, before } = lab;
const { expect } = Code;

// Issue 34: inputs read strictly. A JSON body that is not UTF-8, an object that names one attribute or child twice
// (literally, in another case or with `spi:`) and a number with more digits than its attribute declares are each a
// 400 that names the problem, and nothing is written; a query whose escapes are not UTF-8 is a 400 too.

const wos = '/maximo/oslc/os/mxapiwodetail';
const json = { ...maxadmin, 'content-type': 'application/json' };

// `{"description":"a` then the bytes, then `b"}`: the bytes sit at offset 17.
const withBytes = (bytes: number[], head = '{"description":"a', tail = 'b"}') => Buffer.concat([Buffer.from(head), Buffer.from(bytes), Buffer.from(tail)]);

const invalid: [string, number[]][] = [
    ['0xFF', [0xff]],
    ['an overlong NUL (C0 80)', [0xc0, 0x80]],
    ['a CESU-8 surrogate (ED A0 80)', [0xed, 0xa0, 0x80]],
    ['a truncated sequence (E2 82)', [0xe2, 0x82]],
    ['a Latin-1 é (E9)', [0xe9]],
    ['a code point past U+10FFFF (F4 90 80 80)', [0xf4, 0x90, 0x80, 0x80]]
];

onEachDatabase(lab, 'inputs read strictly', (t) => {

    let target = '';
    const tables: { table: string; key: string }[] = [];

    before(async () => {

        const collect = (object: BusinessObject) => {

            tables.push({ table: object.table, key: object.uniqueColumn });
            object.children.forEach((child) => collect(child.object));
        };

        collect(t.server.app.osprey.registry.get('MXAPIWODETAIL')!.root);
        const made = await t.inject({ method: 'POST', url: wos, headers: { ...maxadmin, properties: 'wonum' }, payload: { siteid: 'BEDFORD', description: 'Strict target', estdur: 1.5, woactivity: [{ taskid: 10, description: 'Drain' }] } });
        expect(made.statusCode, made.payload).to.equal(201);
        target = new URL(made.headers.location as string).pathname;
    });

    // Every row of every table a work order writes (the record, its children, every other record): what a refused
    // write must leave as it was.
    const snapshot = async () => {

        const knex = t.server.app.osprey.knex;
        const state: Record<string, unknown[]> = {};
        for (const { table, key } of tables) {
            state[table] = await knex(table).select().orderBy(key);
        }

        return JSON.stringify(state);
    };

    // A refusal: a 400 whose message holds the words. Each test takes a snapshot before its refusals and compares
    // after them (a refused write that had changed anything would show, as no later refusal can undo it).
    const refused = async (send: () => Promise<{ statusCode: number; payload: string; result: any }>, ...words: string[]) => {

        const res = await send();
        expect(res.statusCode, res.payload).to.equal(400);
        for (const word of words) {
            expect(res.result.Error.message, res.payload).to.contain(word);
        }

        return res;
    };

    test('a body that is not UTF-8 is a 400 naming the byte offset, on a create, an update, a bulk, an action and an API token', async () => {

        const state = await snapshot();
        const keys = await t.server.app.osprey.knex('apikeytoken').select().orderBy('apikeytokenid');
        for (const [, bytes] of invalid) {
            const body = withBytes(bytes);
            await refused(() => t.inject({ method: 'POST', url: wos, headers: json, payload: Buffer.concat([Buffer.from('{"siteid":"BEDFORD",'), body.subarray(1)]) }), 'not UTF-8', 'offset 36', `(${bytes[0]!.toString(16).toUpperCase()}`);
            await refused(() => t.inject({ method: 'PATCH', url: target, headers: json, payload: body }), 'not UTF-8', 'offset 17');
            await refused(() => t.inject({ method: 'POST', url: target, headers: { ...json, 'x-method-override': 'PATCH' }, payload: body }), 'not UTF-8');
            await refused(() => t.inject({ method: 'POST', url: wos, headers: { ...json, 'x-method-override': 'BULK' }, payload: Buffer.concat([Buffer.from('['), body, Buffer.from(']')]) }), 'not UTF-8', 'offset 18');
            await refused(() => t.inject({ method: 'POST', url: `${target}?action=wsmethod:changeStatus`, headers: json, payload: withBytes(bytes, '{"status":"APPR","memo":"') }), 'not UTF-8', 'offset 25');
            await refused(() => t.inject({ method: 'POST', url: '/maximo/oslc/apitoken/create', headers: json, payload: withBytes(bytes, '{"expiration":60,"x":"') }), 'not UTF-8');
        }

        expect(await snapshot()).to.equal(state);
        expect(await t.server.app.osprey.knex('apikeytoken').select().orderBy('apikeytokenid')).to.equal(keys);

        // A compressed body is read once decompressed, as strictly.
        await refused(() => t.inject({ method: 'PATCH', url: target, headers: { ...json, 'content-encoding': 'gzip' }, payload: Zlib.gzipSync(withBytes([0xff])) }), 'not UTF-8', 'offset 17');
        expect(await snapshot()).to.equal(state);
        const gzipped = await t.inject({ method: 'PATCH', url: target, headers: { ...json, 'content-encoding': 'gzip', properties: 'description' }, payload: Zlib.gzipSync('{"description":"gzipped"}') });
        expect(gzipped.statusCode, gzipped.payload).to.equal(200);
        expect(gzipped.result.description).to.equal('gzipped');

        // JSON is UTF-8: a body said to be in another charset is a 415 naming it, whatever its bytes; UTF-8 said
        // in any spelling, or no charset, is read.
        const beforeCharsets = await snapshot();
        for (const charset of ['utf-16', 'iso-8859-1', '"windows-1252"']) {
            const res = await t.inject({ method: 'PATCH', url: target, headers: { ...json, 'content-type': `application/json; charset=${charset}` }, payload: '{"description":"latin"}' });
            expect(res.statusCode, charset).to.equal(415);
            expect(res.result.Error.message, charset).to.contain(`charset=${charset.replace(/"/g, '')} is not read`);
        }

        expect(await snapshot()).to.equal(beforeCharsets);
        for (const charset of ['utf-8', 'UTF8', '"UTF-8"']) {
            const res = await t.inject({ method: 'PATCH', url: target, headers: { ...json, 'content-type': `application/json;charset=${charset}`, properties: 'description' }, payload: '{"description":"said utf-8"}' });
            expect(res.statusCode, `${charset} ${res.payload}`).to.equal(200);
        }

        // Well-formed text beyond ASCII is kept as sent, and a value may hold U+FFFD itself.
        const kept = await t.inject({ method: 'PATCH', url: target, headers: { ...json, properties: 'description' }, payload: Buffer.from('{"description":"café \uFFFD 🛠️"}') });
        expect(kept.statusCode, kept.payload).to.equal(200);
        expect(kept.result.description).to.equal('café \uFFFD 🛠️');
    });

    test('an object naming one attribute or child twice is a 400 naming it, in any case, with spi: or escaped', async () => {

        const state = await snapshot();
        const twice = [
            '{"description":"one","description":"two"}',
            '{"description":"one","DESCRIPTION":"two"}',
            '{"Description":"one","spi:description":"two"}',
            '{"description":"one","\\u0064escription":"two"}',
            '{"description":"one","SPI:DESCRIPTION":"two"}'
        ];
        for (const payload of twice) {
            const res = await refused(() => t.inject({ method: 'PATCH', url: target, headers: json, payload }), 'names description twice');
            expect(res.result.Error.errorattrname).to.equal('description');
            await refused(() => t.inject({ method: 'POST', url: wos, headers: json, payload: payload.replace('{', '{"siteid":"BEDFORD",') }), 'names description twice');
            await refused(() => t.inject({ method: 'POST', url: wos, headers: { ...json, 'x-method-override': 'BULK' }, payload: `[${payload}]` }), 'names description twice');
        }

        await refused(() => t.inject({ method: 'PATCH', url: target, headers: json, payload: '{"woactivity":[{"taskid":20}],"WOACTIVITY":[{"taskid":30}]}' }), 'names woactivity twice');
        await refused(() => t.inject({ method: 'PATCH', url: target, headers: json, payload: '{"woactivity":[{"taskid":10,"description":"a","Description":"b"}]}' }), 'names description twice');
        await refused(() => t.inject({ method: 'PATCH', url: target, headers: json, payload: '{"estdur":2,"estdur":3}' }), 'names estdur twice', 'at byte 1', 'at byte 12');
        expect(await snapshot()).to.equal(state);

        // One name in different objects, and keys hidden in string values, are no duplicate.
        const fine = await t.inject({ method: 'PATCH', url: target, headers: { ...json, properties: 'description,woactivity{description}' }, payload: '{"description":"say \\"description\\": x","woactivity":[{"taskid":10,"description":"description"}]}' });
        expect(fine.statusCode, fine.payload).to.equal(200);
        expect(fine.result.description).to.equal('say "description": x');
        expect(fine.result.woactivity[0].description).to.equal('description');
    });

    test('a number with more digits than its attribute declares is a 400 naming the attribute', async () => {

        // ESTDUR is a decimal of length 10 and scale 2; WOPRIORITY an integer.
        const state = await snapshot();
        for (const estdur of [1e-7, 1.5e-7, 1.234, '1e-7', '1.234', 0.001, 123456789, 1e21]) {
            await refused(() => t.inject({ method: 'PATCH', url: target, headers: maxadmin, payload: { estdur } }), 'ESTDUR');
            await refused(() => t.inject({ method: 'POST', url: wos, headers: maxadmin, payload: { siteid: 'BEDFORD', estdur } }), 'ESTDUR');
        }

        for (const wopriority of [1.5, '1.5', 1e-7]) {
            await refused(() => t.inject({ method: 'PATCH', url: target, headers: maxadmin, payload: { wopriority } }), 'WOPRIORITY');
        }

        // Digits beyond what a double holds, which JSON.parse would round into a value that fits (a hostile probe
        // stored 1 for 1.00000000000000000001, 3 for a priority of 2.9999999999999999999 and 0 for 1e-400).
        for (const [body, name] of [
            ['{"estdur":1.00000000000000000001}', 'estdur'], ['{"estdur":1e-400}', 'estdur'], ['{"wopriority":2.9999999999999999999}', 'wopriority'],
            ['{"wopriority":9007199254740993}', 'wopriority'], ['{"woactivity":[{"taskid":10.0000000000000000001,"description":"x"}]}', 'taskid']
        ]) {
            await refused(() => t.inject({ method: 'PATCH', url: target, headers: { ...json, 'x-method-override': 'PATCH', patchtype: 'MERGE' }, payload: body! }), `for ${name}`, 'more digits than a number can hold exactly');
        }

        await refused(() => t.inject({ method: 'POST', url: wos, headers: { ...json, 'x-method-override': 'BULK' }, payload: '[{"_action":"Update","href":"' + target + '","estdur":3.00000000000000000001}]' }), 'for estdur');
        expect(await snapshot()).to.equal(state);

        // What fits is stored as sent, and reads back alike on both databases.
        for (const [estdur, stored] of [[1e2, 100], [12.5, 12.5], ['2.50', 2.5], [99999999.99, 99999999.99], [1.2e-1, 0.12], [0, 0]] as const) {
            const res = await t.inject({ method: 'PATCH', url: target, headers: { ...maxadmin, properties: 'estdur' }, payload: { estdur } });
            expect(res.statusCode, res.payload).to.equal(200);
            expect(res.result.estdur).to.equal(stored);
            expect((await t.inject({ url: `${target}?oslc.select=estdur`, headers: maxadmin })).result.estdur).to.equal(stored);
        }
    });

    test('a query whose percent-escapes are not UTF-8 is a 400; a literal % and UTF-8 escapes are read as before', async () => {

        for (const [query, escapes] of [['oslc.where=description%3D%22%FF%22', '%FF'], ['oslc.where=description%3D%22%C0%80%22', '%C0%80'], ['oslc.select=wonum&x%ED%A0%80=1', '%ED%A0%80'], ['oslc.where=description%3D%22%E2%82%22', '%E2%82']]) {
            const res = await t.inject({ url: `${wos}?${query}`, headers: maxadmin });
            expect(res.statusCode, query).to.equal(400);
            expect(res.result.Error.message).to.contain('not UTF-8');
            expect(res.result.Error.message).to.contain(escapes);
        }

        const state = await snapshot();
        const write = await refused(() => t.inject({ method: 'PATCH', url: `${target}?properties=%FF`, headers: maxadmin, payload: { description: 'never' } }), 'not UTF-8');
        expect(write.result.Error.reasonCode).to.equal('BMXAA4153E');
        expect(await snapshot()).to.equal(state);
        for (const query of ['oslc.where=description%3D%22caf%C3%A9%22', 'oslc.where=description%3D%22100%25%22', 'oslc.where=description%3D%22%ZZ%22', 'oslc.where=description%3D%22%F0%9F%9B%A0%22']) {
            const res = await t.inject({ url: `${wos}?${query}&oslc.select=wonum`, headers: maxadmin });
            expect(res.statusCode, query).to.equal(200);
        }
    });
    test('a lookup\'s setupdata naming one attribute twice is a 400 naming it', async () => {

        for (const setup of ['{"siteid":"BEDFORD","SITEID":"NASHUA"}', '{"siteid":"BEDFORD","siteid":"NASHUA"}', '{"spi:siteid":"BEDFORD","siteid":"NASHUA"}']) {
            const res = await refused(() => t.inject({ url: `${wos}/newmbo/getlist~assetnum?setupdata=${encodeURIComponent(setup)}&oslc.pageSize=1`, headers: maxadmin }), 'setupdata names siteid twice');
            expect(res.result.Error.errorattrname).to.equal('siteid');
        }

        const once = await t.inject({ url: `${wos}/newmbo/getlist~assetnum?setupdata=${encodeURIComponent('{"siteid":"NASHUA"}')}&oslc.pageSize=1`, headers: maxadmin });
        expect(once.statusCode, once.payload).to.equal(200);
    });
});
