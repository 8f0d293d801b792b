import * as Code from '@hapi/code';
import * as Lab from '@hapi/lab';

import { onEachDatabase } from '../helpers/experiments';
import { maxadmin, wilson } from '../helpers/server';


const lab = exports.lab = Lab.script();
const { test } = lab;
const { expect } = Code;

const wos = '/maximo/oslc/os/mxapiwodetail';

onEachDatabase(lab, 'creating records', (t) => {

    const count = async (table: string, where: Record<string, unknown> = {}) => Number((await t.server.app.osprey.knex(table).where(where).count({ n: '*' }))[0]!.n);

    test('a work order without wonum gets the next number of its site, with Location and no body', async () => {

        const numbers = await t.server.app.osprey.knex('workorder').where({ siteid: 'BEDFORD' }).pluck('wonum') as string[];
        const highest = Math.max(...numbers.map(Number).filter(Number.isFinite));
        const res = await t.inject({ method: 'POST', url: wos, headers: wilson, payload: { siteid: 'BEDFORD', description: 'Replace seal' } });
        expect(res.statusCode).to.equal(201);
        expect(res.payload).to.equal('');
        const location = res.headers.location as string;
        expect(location).to.match(/^http:\/\/[^/]+\/maximo\/oslc\/os\/mxapiwodetail\/_/);
        const read = await t.inject({ url: new URL(location).pathname, headers: wilson });
        expect(read.statusCode).to.equal(200);
        expect(read.result).to.include({ siteid: 'BEDFORD', description: 'Replace seal', status: 'WAPPR', changeby: 'WILSON' });
        expect(Number(read.result.wonum)).to.be.above(highest);
        expect(read.result.reportdate).to.match(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\+00:00$/);
        expect(read.result.statusdate).to.exist();
        // The history starts with the first status.
        const history = await t.inject({ url: `${new URL(location).pathname}/wostatus`, headers: wilson });
        expect(history.result.member.map((row: { status: string }) => row.status)).to.equal(['WAPPR']);
    });

    test('properties answers the created record; children in the body are created with it', async () => {

        const res = await t.inject({
            method: 'POST', url: `${wos}?lean=1`,
            headers: { ...wilson, properties: 'wonum,siteid,status,woactivity{taskid,description},wplabor{*}' },
            payload: {
                siteid: 'nashua', description: 'Overhaul', worktype: 'pm', assetnum: '11001',
                woactivity: [{ taskid: 10, description: 'Drain' }, { taskid: 20, description: 'Refill' }],
                wplabor: [{ laborcode: 'wilson', regularhrs: 2.5 }]
            }
        });
        expect(res.statusCode).to.equal(201);
        const record = res.result;
        expect(record).to.include({ siteid: 'NASHUA', status: 'WAPPR' });
        expect(record.description).to.not.exist();
        expect(record.woactivity.map((row: { taskid: number }) => row.taskid)).to.equal([10, 20]);
        expect(record.woactivity[0].href.startsWith(`${record.href}/woactivity/_`)).to.be.true();
        expect(record.wplabor[0]).to.include({ laborcode: 'WILSON', regularhrs: 2.5, quantity: 1, wonum: record.wonum, siteid: 'NASHUA' });
        expect(res.headers.location).to.equal(record.href);
        expect(await count('woactivity', { parent: record.wonum, siteid: 'NASHUA' })).to.equal(2);
    });

    test('fifty concurrent creates get fifty distinct numbers', async () => {

        const results = await Promise.all(Array.from({ length: 50 }, (_, i) => t.inject({ method: 'POST', url: wos, headers: { ...wilson, properties: 'wonum' }, payload: { siteid: 'BEDFORD', description: `Concurrent ${i}` } })));
        expect(results.map((res) => res.statusCode)).to.equal(Array(50).fill(201));
        const numbers = new Set(results.map((res) => res.result.wonum));
        expect(numbers.size).to.equal(50);
    });

    test('a given key is kept; a duplicate key is refused and changes nothing', async () => {

        const first = await t.inject({ method: 'POST', url: wos, headers: wilson, payload: { wonum: 'X-100', siteid: 'BEDFORD' } });
        expect(first.statusCode).to.equal(201);
        const again = await t.inject({ method: 'POST', url: wos, headers: wilson, payload: { wonum: 'x-100', siteid: 'BEDFORD', description: 'again' } });
        expect(again.statusCode).to.equal(400);
        expect(again.result.Error.reasonCode).to.equal('BMXAA4129E');
        expect(await count('workorder', { wonum: 'X-100' })).to.equal(1);
    });

    test('unknown, generated and read-only attributes are refused by name', async () => {

        for (const [payload, attribute, code] of [
            [{ siteid: 'BEDFORD', colour: 'red' }, 'colour', 'BMXAA4203E'],
            [{ siteid: 'BEDFORD', workorderid: 5 }, 'workorderid', 'BMXAA4214E'],
            [{ siteid: 'BEDFORD', statusdate: '2026-01-01T00:00:00Z' }, 'statusdate', 'BMXAA4214E'],
            [{ siteid: 'BEDFORD', woactivity: [{ taskid: 1, parent: '77' }] }, 'parent', 'BMXAA4214E']
        ] as const) {
            const res = await t.inject({ method: 'POST', url: wos, headers: wilson, payload });
            expect(res.statusCode, attribute).to.equal(400);
            expect(res.result.Error).to.include({ reasonCode: code, errorattrname: attribute });
        }
    });

    test('types, lengths, scale, required, domains and lookups are checked', async () => {

        const cases: [Record<string, unknown>, string, string][] = [
            [{ siteid: 'BEDFORD', wopriority: 'high' }, 'wopriority', 'must be a number'],
            [{ siteid: 'BEDFORD', wopriority: 1.5 }, 'wopriority', 'must be an integer'],
            [{ siteid: 'BEDFORD', description: 'x'.repeat(101) }, 'description', 'less than or equal to 100'],
            [{ siteid: 'BEDFORD', estdur: 1.234 }, 'estdur', 'no more than 2 decimal places'],
            [{ siteid: 'BEDFORD', schedstart: 'soon' }, 'schedstart', 'ISO 8601'],
            [{ description: 'no site' }, 'siteid', 'required'],
            [{ siteid: 'BEDFORD', worktype: 'XX' }, 'worktype', 'domain WORKTYPE'],
            [{ siteid: 'BEDFORD', status: 'BOGUS' }, 'status', 'domain WOSTATUS'],
            [{ siteid: 'BEDFORD', assetnum: 'NOPE' }, 'assetnum', 'list of values'],
            [{ siteid: 'BEDFORD', woactivity: [{ description: 'no task id' }] }, 'taskid', 'required']
        ];
        for (const [payload, attribute, text] of cases) {
            const res = await t.inject({ method: 'POST', url: wos, headers: wilson, payload });
            expect(res.statusCode, attribute).to.equal(400);
            expect(res.result.Error.errorattrname, attribute).to.equal(attribute);
            expect(res.result.Error.message, attribute).to.contain(text);
        }
    });

    test('a work order asset must belong to the work order site', async () => {

        const asset = await t.server.app.osprey.knex('asset').where({ siteid: 'NASHUA' }).whereNot({ status: 'DECOMMISSIONED' }).first();
        const elsewhere = await t.inject({ method: 'POST', url: wos, headers: wilson, payload: { siteid: 'BEDFORD', assetnum: asset.assetnum } });
        expect(elsewhere.statusCode).to.equal(400);
        expect(elsewhere.result.Error.errorattrname).to.equal('assetnum');
        const here = await t.inject({ method: 'POST', url: wos, headers: wilson, payload: { siteid: 'NASHUA', assetnum: asset.assetnum.toLowerCase() } });
        expect(here.statusCode).to.equal(201);
        // The lookup's query is compiled once per site: each site keeps its own, and both see the data as it is now.
        const again = await t.inject({ method: 'POST', url: wos, headers: wilson, payload: { siteid: 'BEDFORD', assetnum: asset.assetnum } });
        expect(again.statusCode).to.equal(400);
        await t.server.app.osprey.knex('asset').where({ assetuid: asset.assetuid }).update({ status: 'DECOMMISSIONED' });
        const retired = await t.inject({ method: 'POST', url: wos, headers: wilson, payload: { siteid: 'NASHUA', assetnum: asset.assetnum } });
        expect(retired.statusCode).to.equal(400);
        expect(retired.result.Error.message).to.contain('status!="DECOMMISSIONED"');
        await t.server.app.osprey.knex('asset').where({ assetuid: asset.assetuid }).update({ status: asset.status });
    });

    test('batcherror collects every attribute error of the record, children included', async () => {

        const earlier = await count('workorder');
        const res = await t.inject({
            method: 'POST', url: wos, headers: { ...wilson, batcherror: '1' },
            payload: { siteid: 'BEDFORD', wopriority: 'x', colour: 1, woactivity: [{ taskid: 'ten' }] }
        });
        expect(res.statusCode).to.equal(400);
        // IBM's guide (batcherror): attrerrors beside the first Error, each entry an Error of its own.
        const error = res.result.Error;
        expect(error.errorattrname).to.equal('wopriority');
        expect(error.attrerrors).to.not.exist();
        const all = res.result.attrerrors.map((item: { Error: Record<string, string> }) => item.Error);
        expect(all.map((item: Record<string, string>) => item.errorattrname)).to.equal(['wopriority', 'colour', 'taskid']);
        expect(all[2].errorobjpath).to.equal('MXAPIWODETAIL.woactivity');
        expect(all[0]).to.include({ reasonCode: 'BMXAA4214E', statusCode: '400' });
        expect(await count('workorder')).to.equal(earlier);
    });

    test('a non-persistent attribute is accepted and never stored; a failing child rolls the record back', async () => {

        const memo = await t.inject({ method: 'POST', url: wos, headers: { ...wilson, properties: '*' }, payload: { siteid: 'BEDFORD', memo: 'created by test' } });
        expect(memo.statusCode).to.equal(201);
        expect(memo.result.memo).to.not.exist();
        const history = await t.server.app.osprey.knex('wostatus').where({ wonum: memo.result.wonum, siteid: 'BEDFORD' }).first();
        expect(history.memo).to.equal('created by test');

        const earlier = { wo: await count('workorder'), tasks: await count('woactivity') };
        const res = await t.inject({ method: 'POST', url: wos, headers: wilson, payload: { siteid: 'BEDFORD', woactivity: [{ taskid: 10 }, { taskid: 10 }] } });
        expect(res.statusCode).to.equal(400);
        expect(res.result.Error.reasonCode).to.equal('BMXAA4129E');
        expect({ wo: await count('workorder'), tasks: await count('woactivity') }).to.equal(earlier);
    });

    test('the body must be a JSON object; writes need the insert right', async () => {

        const array = await t.inject({ method: 'POST', url: wos, headers: wilson, payload: [{ siteid: 'BEDFORD' }] });
        expect(array.statusCode).to.equal(400);
        // Not JSON: refused before anything runs (test/http/hostile-headers.test.ts says why).
        const text = await t.inject({ method: 'POST', url: wos, headers: { ...wilson, 'content-type': 'text/plain' }, payload: 'siteid=BEDFORD' });
        expect(text.statusCode).to.equal(415);
        const broken = await t.inject({ method: 'POST', url: wos, headers: { ...wilson, 'content-type': 'application/json' }, payload: '{"siteid":' });
        expect(broken.statusCode).to.equal(400);
        const asset = await t.inject({ method: 'POST', url: '/maximo/oslc/os/mxapiasset', headers: wilson, payload: { assetnum: 'A1', siteid: 'BEDFORD' } });
        expect(asset.statusCode).to.equal(403);
        expect(asset.result.Error.reasonCode).to.equal('BMXAA9301E');
        const admin = await t.inject({ method: 'POST', url: '/maximo/api/os/mxapiasset', headers: maxadmin, payload: { assetnum: 'a1', siteid: 'bedford', description: 'New pump' } });
        expect(admin.statusCode).to.equal(201);
        expect(admin.headers.location).to.contain('/maximo/api/os/mxapiasset/_');
        const unknown = await t.inject({ method: 'POST', url: '/maximo/oslc/os/mxnothing', headers: maxadmin, payload: {} });
        expect(unknown.statusCode).to.equal(404);
    });
});
