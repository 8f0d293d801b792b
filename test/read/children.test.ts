import * as Code from '@hapi/code';
import * as Lab from '@hapi/lab';

import { onEachDatabase } from '../helpers/experiments';
import { wilson } from '../helpers/server';


const lab = exports.lab = Lab.script();
const { test, before } = lab;
const { expect } = Code;

const wos = '/maximo/oslc/os/mxapiwodetail';
const days = 86_400_000;

// A record's child collection pages, filters, orders and counts like a collection, over the child object.
onEachDatabase(lab, 'child collections as collections', (t) => {

    let path: string;               // the work order whose tasks are listed
    let href: string;               // and its href
    let now: number;
    // taskid → [status, estdur, description, schedstart offset in days]
    const tasks: [number, string, number | null, string, number][] = [
        [10, 'APPR', 1, 'inspect pump', -3],
        [20, 'WAPPR', 4, 'replace seal', -40],
        [30, 'APPR', 2.5, 'test pump', 5],
        [40, 'COMP', null, 'clean site', -10],
        [50, 'APPR', 8, 'order parts', -100],
        [60, 'WAPPR', 0.5, 'pump alignment', 20],
        [70, 'COMP', 3, 'report', -1]
    ];

    before(async () => {

        now = Date.now();
        const woactivity = tasks.map(([taskid, status, estdur, description, offset]) => ({ taskid, status, estdur, description, schedstart: new Date(now + offset * days).toISOString() }));
        const res = await t.inject({ method: 'POST', url: wos, headers: { ...wilson, properties: 'wonum' }, payload: { siteid: 'BEDFORD', description: 'child paging', woactivity } });
        expect(res.statusCode, res.payload).to.equal(201);
        href = res.headers.location as string;
        path = new URL(href).pathname;
        // Another work order with the same task numbers: its tasks never show under the first.
        const other = await t.inject({ method: 'POST', url: wos, headers: wilson, payload: { siteid: 'BEDFORD', description: 'other', woactivity: woactivity.map((task) => ({ ...task, description: 'other' })) } });
        expect(other.statusCode, other.payload).to.equal(201);
    });

    const get = (url: string) => t.inject({ url, headers: wilson });
    const page = async (query: string) => {

        const res = await get(`${path}/woactivity?${query}`);
        expect(res.statusCode, res.payload).to.equal(200);
        return res.result;
    };

    const taskids = async (query: string) => (await page(query)).member.map((member: any) => member.taskid);
    const relative = (url: string) => `${new URL(url).pathname}${new URL(url).search}`;

    test('without parameters: every child row, whole, in the unique id\'s order, on one page', async () => {

        const result = await page('');
        expect(result.href).to.equal(`${href}/woactivity`);
        expect(result.member.map((member: any) => member.taskid)).to.equal([10, 20, 30, 40, 50, 60, 70]);
        expect(result.member[0]).to.include({ taskid: 10, status: 'APPR', estdur: 1, description: 'inspect pump' });
        expect(result.member[0].href).to.equal(`${href}/woactivity/_MTA-`);
        expect(result.member[0].localref).to.equal(result.member[0].href);
        expect(result.responseInfo).to.equal({ href: `${href}/woactivity`, pagenum: 1 });
    });

    test('oslc.pageSize and pageno page it with nextPage, previousPage, totalCount and totalPages', async () => {

        const first = await page('oslc.pageSize=3&collectioncount=1');
        expect(first.member.map((member: any) => member.taskid)).to.equal([10, 20, 30]);
        expect(first.responseInfo).to.include({ pagenum: 1, totalCount: 7, totalPages: 3 });
        expect(first.responseInfo.previousPage).to.not.exist();
        const second = (await get(relative(first.responseInfo.nextPage.href))).result;
        expect(second.member.map((member: any) => member.taskid)).to.equal([40, 50, 60]);
        expect(second.responseInfo).to.include({ pagenum: 2, totalCount: 7, totalPages: 3 });
        expect(relative(second.responseInfo.previousPage.href)).to.equal(`${path}/woactivity?oslc.pageSize=3&collectioncount=1&pageno=1`);
        const third = (await get(relative(second.responseInfo.nextPage.href))).result;
        expect(third.member.map((member: any) => member.taskid)).to.equal([70]);
        expect(third.responseInfo.nextPage).to.not.exist();
        expect(third.responseInfo.pagenum).to.equal(3);
        expect(await taskids('oslc.pageSize=3&pageno=4')).to.equal([]);
        expect(await page('count=1')).to.equal({ totalCount: 7 });
        expect(await page(`count=1&oslc.where=${encodeURIComponent('status="APPR"')}`)).to.equal({ totalCount: 3 });
    });

    test('oslc.where and oslc.orderBy resolve against the child object', async () => {

        expect(await taskids(`oslc.where=${encodeURIComponent('status="APPR"')}`)).to.equal([10, 30, 50]);
        expect(await taskids(`oslc.where=${encodeURIComponent('estdur>2 and status!="COMP"')}&oslc.orderBy=-estdur`)).to.equal([50, 20, 30]);
        expect(await taskids(`oslc.where=${encodeURIComponent('description="%pump%"')}&oslc.orderBy=-taskid`)).to.equal([60, 30, 10]);
        expect(await taskids(`oslc.where=${encodeURIComponent('estdur="*"')}&oslc.orderBy=%2Bestdur&oslc.pageSize=2&pageno=2`)).to.equal([30, 70]);
        expect(await taskids(`oslc.where=${encodeURIComponent('status="COMP" and estdur>7')}&opmode=or`)).to.equal([40, 50, 70]);
        expect(await taskids('tlrange=-2W&tlattribute=schedstart')).to.equal([10, 40, 70]);
        expect(await taskids('oslc.searchTerms=seal&searchAttributes=description')).to.equal([20]);
        // A null sorts after every value ascending.
        expect(await taskids('oslc.orderBy=%2Bestdur,taskid')).to.equal([60, 10, 30, 70, 20, 50, 40]);
        const selected = await page('oslc.select=taskid,status&oslc.pageSize=1');
        expect(Object.keys(selected.member[0]).sort()).to.equal(['_rowstamp', 'href', 'localref', 'status', 'status_description', 'taskid']);
    });

    test('stablepaging walks the child rows once', async () => {

        const seen: number[] = [];
        let res = await get(`${path}/woactivity?oslc.pageSize=3&stablepaging=1&oslc.orderBy=-estdur`);
        for (;;) {
            expect(res.statusCode, res.payload).to.equal(200);
            seen.push(...res.result.member.map((member: any) => member.taskid));
            const next = res.result.responseInfo.nextPage?.href as string | undefined;
            if (!next) {
                break;
            }

            expect(next).to.contain('stableId=');
            res = await get(relative(next));
        }

        expect(seen).to.equal([40, 50, 20, 70, 30, 10, 60]);
    });

    test('names the child object lacks, and bad paging, are 400s naming the parameter; the record is still a 404', async () => {

        for (const [query, parameter, detail] of [
            [`oslc.where=${encodeURIComponent('wonum="1000"')}`, 'oslc.where', 'wonum is not an attribute of WOACTIVITY'],
            [`oslc.where=${encodeURIComponent('asset.status="OPERATING"')}`, 'oslc.where', 'asset is not an attribute, child object or relationship of WOACTIVITY'],
            ['oslc.orderBy=wopriority', 'oslc.orderBy', 'wopriority is not an attribute of WOACTIVITY'],
            ['oslc.orderBy=asset.description', 'oslc.orderBy', 'asset.description is not an attribute of WOACTIVITY'],
            ['oslc.select=wonum', 'oslc.select', 'wonum'],
            ['tlrange=-1M&tlattribute=reportdate', 'tlattribute', 'reportdate is not a date attribute of WOACTIVITY'],
            ['oslc.searchTerms=pump', 'oslc.searchTerms', 'WOACTIVITY declares no search attributes']
        ]) {
            const res = await get(`${path}/woactivity?${query}`);
            expect(res.statusCode, query).to.equal(400);
            expect(res.result.Error.reasonCode, query).to.equal('BMXAA8744E');
            expect(res.result.Error.message, query).to.contain(`${parameter}: ${detail}`);
        }

        // A saved query selects records of the structure, not rows of a child: the parameter gate refuses it.
        const saved = await get(`${path}/woactivity?savedQuery=WOBYASSET`);
        expect(saved.statusCode).to.equal(400);
        expect(saved.result.Error.message).to.contain('savedQuery is not carried out on a child collection');

        const forged = await get(`${path}/woactivity?stablepaging=1&stableId=forged`);
        expect(forged.statusCode).to.equal(400);
        expect(forged.result.Error.message).to.contain('stableId');
        for (const query of ['oslc.pageSize=0', 'pageno=0', 'oslc.pageSize=1001']) {
            const res = await get(`${path}/woactivity?${query}`);
            expect(res.statusCode, query).to.equal(400);
            expect(res.result.Error.message, query).to.contain(query.startsWith('pageno') ? 'pageno' : 'pageSize');
        }

        const missing = await get(`${wos}/_QkVERk9SRC85OTk5/woactivity?oslc.pageSize=2`);
        expect(missing.statusCode).to.equal(404);
    });

    test('the /{child}/{childid} member form is one child row, as before', async () => {

        const paged = await get(`${path}/woactivity/_MzA-?oslc.pageSize=1&pageno=5`);
        expect(paged.statusCode, paged.payload).to.equal(400);
        expect(paged.result.Error.message).to.contain('oslc.pageSize is not carried out on a child row');
        const res = await get(`${path}/woactivity/_MzA-`);
        expect(res.statusCode, res.payload).to.equal(200);
        expect(res.result).to.include({ taskid: 30, description: 'test pump' });
        expect(res.result.responseInfo).to.not.exist();
    });

    test('a child row links no collections of its own: only a record\'s child collections have a route', async () => {

        const asset = (await get('/maximo/oslc/os/mxapiasset?oslc.where=assetnum="11000"&oslc.select=*')).result.member[0];
        expect(asset.assetmeter_collectionref).to.equal(`${asset.href}/assetmeter`);
        const meters = await get(`${new URL(asset.assetmeter_collectionref).pathname}`);
        expect(meters.statusCode).to.equal(200);
        const meter = meters.result.member[0];
        expect(Object.keys(meter).filter((key) => key.endsWith('_collectionref'))).to.equal([]);
        expect((await get(new URL(meter.href).pathname)).result.meterreading_collectionref).to.not.exist();
        // The readings are read in the record.
        const nested = await get(`${new URL(asset.href).pathname}?oslc.select=assetmeter{metername,meterreading{reading}}`);
        expect(nested.statusCode).to.equal(200);
        expect(nested.result.assetmeter).to.not.be.empty();
    });
});
