import * as Code from '@hapi/code';
import * as Lab from '@hapi/lab';
import * as Fc from 'fast-check';

import { idWhere } from '../../src/read/execute/find';
import { buildStructure } from '../../src/structures/registry';
import type { StructureDef } from '../../src/structures/definition';
import { structureSchema } from '../../src/structures/schema';
import { onEachDatabase } from '../helpers/experiments';
import { maxadmin, wilson } from '../helpers/server';


const lab = exports.lab = Lab.script();
const { experiment, test } = lab;
const { expect } = Code;

// Issue 34: an id whose key value its column cannot hold names no record, so it is a 404, as Maximo answers for a
// record that cannot exist. Bound as it was, `_OTk5OTk5OTk5OTk5OTk5OTk5OTk5OTk-` (99999999999999999999999, an
// API key's bigint id of 1e+23) answered 500 on PostgreSQL ("value out of range"), as did a task number beyond
// an integer's range or not whole.

const base64 = (text: string) => `_${Buffer.from(text).toString('base64').replace(/\+/g, '_').replace(/\//g, '~').replace(/=/g, '-')}`;

const wos = '/maximo/oslc/os/mxapiwodetail';
const keys = '/maximo/oslc/os/mxapiapikey';

// Numbers no integer column holds, and text that is no number.
const unfit = ['99999999999999999999999', '99999999999999999999', '9007199254740992', '2147483648', '-2147483649', '2.5', '1.0000000000000002', '1e5', '0x10', ' 1', '', 'NaN', 'Infinity', '١٢', '4.99999999999999999999', '1.9999999999999999999', '05', '-0'];

experiment('the key values of an id', () => {

    const { value, error } = structureSchema.validate({
        name: 'MXKEYS', object: 'KEYS', uniqueColumn: 'small', primaryKey: ['whole', 'small', 'amount', 'day', 'at', 'flag', 'code'],
        attributes: {
            whole: { type: 'integer' }, small: { type: 'smallint' }, amount: { type: 'decimal', length: 5, scale: 2 }, day: { type: 'date' },
            at: { type: 'datetime' }, flag: { type: 'yorn' }, code: { type: 'upper', length: 4 }
        }
    });
    expect(error).to.not.exist();
    const object = buildStructure(value as StructureDef, '(test)').root;
    const good = ['7', '-32768', '123.45', '2026-02-28', '2026-02-28T10:11:12Z', 'Y', 'AB'];
    const where = (values: readonly string[]) => idWhere(object, base64(values.join('/')));

    test('are bound as their columns store them when they fit', () => {

        expect(where(good)).to.equal({ whole: 7, small: -32768, amount: 123.45, day: '2026-02-28', at: '2026-02-28T10:11:12.000Z', flag: '1', code: 'AB' });
        expect(where(['-2147483648', '32767', '-999.99', '0001-01-01', '9999-12-31T23:59:59Z', 'N', 'ABCD'])).to.include({ whole: -2147483648, small: 32767, amount: -999.99, flag: '0' });
        expect(idWhere(object, '32767')).to.equal({ small: 32767 });
    });

    test('name no record when one does not fit its column: beyond its range, not whole, too many places, no date', () => {

        const cases: [number, string][] = [
            [0, '2147483648'], [0, '1e+23'], [0, '2.5'], [0, 'x'], [0, '6.99999999999999999999'], [0, '07'], [0, '-0'], [1, '32768'], [1, '-32769'], [2, '1000.00'], [2, '1.234'], [2, '1e2'],
            [3, '2026-02-30'], [3, 'tomorrow'], [3, '10000-01-01'], [4, 'noon'], [5, 'maybe'], [6, 'A\u0000']
        ];
        for (const [index, text] of cases) {
            const values = [...good];
            values[index] = text;
            expect(where(values), `${object.primaryKey[index]}=${text}`).to.be.undefined();
        }

        // The unique id's form (digits only) is held to its column too: a smallint here.
        expect(idWhere(object, '32768')).to.be.undefined();
        expect(idWhere(object, '999999999999999')).to.be.undefined();
    });
});

onEachDatabase(lab, 'ids that do not fit their columns', (t) => {

    test('an API key id of 1e+23, a task number beyond an integer, not whole or not a number: 404, and nothing is written', async () => {

        const first = await t.inject({ url: `${wos}?oslc.select=wonum,woactivity{taskid}&oslc.pageSize=1&oslc.where=${encodeURIComponent('woactivity.taskid>0')}`, headers: maxadmin });
        const href = first.result.member[0].href as string;
        const record = new URL(href).pathname;
        const before = await t.inject({ url: `${record}?oslc.select=*,woactivity{*}`, headers: maxadmin });

        for (const id of ['_OTk5OTk5OTk5OTk5OTk5OTk5OTk5OTk-', ...unfit.map(base64), '999999999999999']) {
            const res = await t.inject({ url: `${keys}/${id}`, headers: maxadmin });
            expect(res.statusCode, `${id}: ${res.payload}`).to.equal(404);
            expect(res.result.Error.reasonCode).to.equal('BMXAA8727E');
        }

        for (const taskid of unfit) {
            const id = base64(taskid);
            for (const request of [
                { url: `${record}/woactivity/${id}` },
                { url: `${record}/woactivity/${id}/getlist~status` },
                { method: 'POST', url: `${record}/woactivity/${id}`, headers: { 'x-method-override': 'PATCH' }, payload: { description: 'never' } },
                { method: 'DELETE', url: `${record}/woactivity/${id}` }
            ]) {
                const res = await t.inject({ ...request, headers: { ...maxadmin, ...request.headers } });
                // A PATCH of a child row is a 405: child rows are written through their record.
                expect([400, 404, 405], `${request.method ?? 'GET'} ${request.url}: ${res.payload}`).to.include(res.statusCode);
                expect(res.result.Error.reasonCode).to.not.equal('BMXAA1724E');
            }

            // A work order named by keys that cannot be its own: the site and number as text always fit, so the
            // numbered forms are sent as its unique id.
            const patch = await t.inject({ method: 'POST', url: `${wos}/${base64(`BEDFORD/${taskid}`)}`, headers: { ...maxadmin, 'x-method-override': 'PATCH' }, payload: { description: 'never' } });
            expect(patch.statusCode, patch.payload).to.equal(404);
        }

        // A bulk names records by href: each item that cannot name one is a 404 of its own.
        const bulk = await t.inject({ method: 'POST', url: keys.replace('mxapiapikey', 'mxapiwodetail'), headers: { ...maxadmin, 'x-method-override': 'BULK' }, payload: unfit.map((text) => ({ _action: 'Update', href: `${wos}/${base64(`BEDFORD/${text}`)}`, description: 'never' })) });
        expect(bulk.statusCode, bulk.payload).to.equal(200);
        expect(bulk.result.map((item: { _responsemeta: { status: string } }) => item._responsemeta.status)).to.equal(unfit.map(() => '404'));

        expect((await t.inject({ url: `${record}?oslc.select=*,woactivity{*}`, headers: maxadmin })).result).to.equal(before.result);
    });

    test('numbers in any id form are 200 or 404, never 500', async () => {

        const numbers = Fc.oneof(
            Fc.bigInt({ min: -(10n ** 30n), max: 10n ** 30n }).map(String),
            Fc.double({ noNaN: true }).map(String),
            Fc.tuple(Fc.integer(), Fc.nat({ max: 99999 })).map(([whole, part]) => `${whole}.${part}`),
            Fc.constantFrom(...unfit)
        );
        const ids = Fc.tuple(numbers, Fc.constantFrom('base64', 'pairs', 'plain')).map(([value, form]) => (form === 'base64' ? base64(value) : form === 'pairs' ? `apikeytokenid:${encodeURIComponent(value)}` : encodeURIComponent(value)));
        await Fc.assert(Fc.asyncProperty(ids, Fc.constantFrom(keys, `${wos}/_QkVERk9SRC8xMDAx/woactivity`), async (id, collection) => {

            const res = await t.inject({ url: `${collection}/${id}`, headers: maxadmin });
            if (res.statusCode !== 200 && res.statusCode !== 404) {
                throw new Error(`${collection}/${id} answered ${res.statusCode}: ${res.payload}`);
            }
        }), { numRuns: 200 });
    });

    test('a where comparing a number column with a number it cannot hold answers no rows, not a 500', async () => {

        for (const where of ['workorderid=1e+23', 'workorderid=99999999999999999999', 'wopriority=1e+23', 'wopriority=2.5', 'wopriority>-1e+300', 'workorderid in [1e+23,2.5]', 'woactivity{taskid=99999999999999999999}', 'estdur=1e+30']) {
            const res = await t.inject({ url: `${wos}?oslc.where=${encodeURIComponent(where)}&oslc.pageSize=1`, headers: wilson });
            expect(res.statusCode, `${where}: ${res.payload}`).to.equal(200);
            if (!where.includes('>')) {
                expect(res.result.member, where).to.equal([]);
            }
        }
    });
});
