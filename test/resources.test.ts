import * as Code from '@hapi/code';
import * as Lab from '@hapi/lab';

import { demoRows } from '../src/demo/seed';
import { onEachDatabase } from './helpers/experiments';
import { wilson } from './helpers/server';
import { tableCount } from './helpers/tables';


const lab = exports.lab = Lab.script();
const { test } = lab;
const { expect } = Code;

onEachDatabase(lab, 'record reads and the error edge', { settings: { maxBody: 2048 } }, (t) => {

    test('the demo data is loaded as listed in the README', async () => {

        const counts: Record<string, number> = {};
        for (const table of ['person', 'locations', 'asset', 'assetmeter', 'workorder', 'woactivity', 'wplabor', 'wpmaterial', 'wostatus']) {
            counts[table] = Number((await t.server.app.osprey.knex(table).count({ n: '*' }))[0]!.n);
        }

        expect(counts.person).to.be.at.least(20);
        expect(counts.locations).to.be.at.least(40);
        expect(counts.asset).to.be.at.least(200);
        expect(counts.workorder).to.be.at.least(500);
        expect(counts.woactivity).to.be.at.least(500);
        expect(counts.wostatus).to.be.at.least(counts.workorder!);
        expect(demoRows()).to.equal(demoRows());
    });

    test('a work order reads the same by all three id forms', async () => {

        const byBase64 = await t.inject({ url: '/maximo/oslc/os/mxapiwodetail/_QkVERk9SRC8xMDAw', headers: wilson });
        expect(byBase64.statusCode).to.equal(200);
        expect(byBase64.result).to.include({ wonum: '1000', siteid: 'BEDFORD', orgid: 'EAGLENA', _rowstamp: '1' });
        expect(byBase64.result.href).to.equal(`http://${byBase64.request.info.host}/maximo/oslc/os/mxapiwodetail/_QkVERk9SRC8xMDAw`);
        expect(byBase64.result.status_description).to.be.a.string();
        expect(byBase64.result.woactivity_collectionref).to.equal(`${byBase64.result.href}/woactivity`);
        expect(byBase64.headers.etag).to.equal('"1"');
        const byPairs = await t.inject({ url: '/maximo/oslc/os/MXAPIWODETAIL/wonum:1000%7Csiteid:BEDFORD', headers: wilson });
        expect(byPairs.result).to.equal(byBase64.result);
        const byUnique = await t.inject({ url: `/maximo/oslc/os/mxapiwodetail/${byBase64.result.workorderid}`, headers: wilson });
        expect(byUnique.result).to.equal(byBase64.result);
        const lean = await t.inject({ url: '/maximo/api/os/mxapiwodetail/_QkVERk9SRC8xMDAw?lean=1&ignorecollectionref=1&_dropnulls=0', headers: wilson });
        expect(lean.result.woactivity_collectionref).to.not.exist();
        expect(lean.result).to.include({ parent: null });
    });

    test('an unknown or malformed id is a 404', async () => {

        for (const id of ['_QkVERk9SRC85OTk5OQ--', '999999', 'wonum:1000', '_!!', 'siteid:~NULL~|wonum:1']) {
            const res = await t.inject({ url: `/maximo/oslc/os/mxapiwodetail/${id}`, headers: wilson });
            expect(res.statusCode, id).to.equal(404);
            expect(res.result.Error.reasonCode).to.equal('BMXAA8727E');
        }
    });

    test('a collection pages with responseInfo and counts', async () => {

        // The numbers come from the table, not from what the demo seed happens to hold; it must hold pages of 50
        // to page, and a last page that is not full.
        const assets = await tableCount(t, 'asset');
        const pages = Math.ceil(assets / 50);
        expect(assets % 50, 'a partial last page').to.not.equal(0);
        expect(pages).to.be.at.least(3);
        const first = await t.inject({ url: '/maximo/oslc/os/mxapiasset?oslc.pageSize=50&collectioncount=1&lean=1', headers: wilson });
        expect(first.statusCode).to.equal(200);
        expect(first.result.member).to.have.length(50);
        expect(Object.keys(first.result.member[0])).to.equal(['href']);
        expect(first.result.responseInfo).to.include({ pagenum: 1, totalCount: assets, totalPages: pages });
        expect(first.result.responseInfo.previousPage).to.not.exist();
        const next = new URL(first.result.responseInfo.nextPage.href);
        expect(next.searchParams.get('pageno')).to.equal('2');
        const last = await t.inject({ url: `/maximo/oslc/os/mxapiasset?oslc.pageSize=50&pageno=${pages}`, headers: wilson });
        expect(last.result.member).to.have.length(assets % 50);
        expect(last.result.responseInfo.nextPage).to.not.exist();
        expect(new URL(last.result.responseInfo.previousPage.href).searchParams.get('pageno')).to.equal(String(pages - 1));
        const count = await t.inject({ url: '/maximo/oslc/os/mxapiasset?count=1', headers: wilson });
        expect(count.result).to.equal({ totalCount: assets });
        const all = await t.inject({ url: '/maximo/api/os/mxapiperson', headers: wilson });
        expect(all.result.member.length as number).to.be.at.least(20);
    });

    test('bad paging parameters are 400s', async () => {

        for (const query of ['oslc.pageSize=0', 'oslc.pageSize=abc', 'pageno=0', 'oslc.pageSize=5000', 'pageno=1&pageno=2', 'oslc.pageSize=1.5', 'pageno=-1', 'pageno=1e3']) {
            const res = await t.inject({ url: `/maximo/oslc/os/mxapiasset?${query}`, headers: wilson });
            expect(res.statusCode, query).to.equal(400);
            expect(res.result.Error.statusCode).to.equal('400');
        }

        const named = await t.inject({ url: '/maximo/oslc/os/mxapiasset?pageno=x', headers: wilson });
        expect(named.result.Error.message).to.contain('pageno must be a whole number of 1 or more, given once; "x" is not.');
        const spaced = await t.inject({ url: '/maximo/oslc/os/mxapiasset?oslc.pageSize=%202%20&pageno=2&oslc.select=assetnum', headers: wilson });
        expect(spaced.statusCode).to.equal(200);
        expect(spaced.result.member.length).to.equal(2);
        expect(spaced.result.responseInfo.pagenum).to.equal(2);
    });

    test('errors from hapi itself come in the Maximo shape with a request id', async () => {

        const missing = await t.inject({ url: '/maximo/oslc/nothing/here', headers: wilson });
        expect(missing.statusCode).to.equal(404);
        expect(missing.result.Error.reasonCode).to.equal('BMXAA8727E');
        expect(missing.headers['x-request-id']).to.match(/^[0-9a-f-]{36}$/);
        const echoed = await t.inject({ url: '/maximo/oslc/whoami', headers: { ...wilson, 'x-request-id': 'abc-123' } });
        expect(echoed.headers['x-request-id']).to.equal('abc-123');
        const badJson = await t.inject({ method: 'POST', url: '/maximo/oslc/login', headers: { ...wilson, 'content-type': 'application/json' }, payload: 'x'.repeat(4096) });
        expect(badJson.statusCode).to.equal(413);
        expect(badJson.result.Error.reasonCode).to.equal('BMXAA1720E');
        const method = await t.inject({ method: 'DELETE', url: '/maximo/oslc/whoami', headers: wilson });
        expect(method.statusCode).to.equal(405);
        expect(method.result.Error.reasonCode).to.equal('BMXAA1722E');
        expect(method.headers.allow).to.equal('GET');
        expect(method.headers['x-request-id']).to.match(/^[0-9a-f-]{36}$/);
    });

    test('an internal error is a 500 without its message or stack, logged with the request id', async () => {

        t.server.route({ method: 'GET', path: '/maximo/test/boom', options: { auth: false, handler: () => {

            throw new Error('secret internals');
        } } });
        const res = await t.inject('/maximo/test/boom');
        expect(res.statusCode).to.equal(500);
        expect(res.result.Error.reasonCode).to.equal('BMXAA1724E');
        expect(res.result.Error.message).to.contain(res.headers['x-request-id'] as string);
        expect(res.payload).to.not.contain('secret internals');
        expect(res.payload).to.not.contain('.ts:');
    });
});
