import * as Code from '@hapi/code';
import * as Lab from '@hapi/lab';

import { onEachDatabase } from '../helpers/experiments';
import { wilson } from '../helpers/server';


const lab = exports.lab = Lab.script();
const { test } = lab;
const { expect } = Code;

const wos = '/maximo/oslc/os/mxapiwodetail';
const wo1000 = `${wos}/_QkVERk9SRC8xMDAw`;                   // BEDFORD/1000

interface Collection {
    href: string;
    member: Record<string, any>[];
    responseInfo: { totalCount?: number; nextPage?: { href: string } };
}

onEachDatabase(lab, 'lookups', (t) => {

    const get = async (url: string) => await t.inject({ url, headers: wilson });
    const list = async (url: string): Promise<Collection> => {

        const res = await get(url);
        expect(res.statusCode, res.payload).to.equal(200);
        return res.result as Collection;
    };

    const assetnums = async (where: (query: any) => any) => (await where(t.server.app.osprey.knex('asset')).orderBy('assetnum').pluck('assetnum')) as string[];

    test('a record\'s lookup lists the records its where allows, with the record\'s values as parameters', async () => {

        const expected = await assetnums((q) => q.where({ siteid: 'BEDFORD' }).whereNot({ status: 'DECOMMISSIONED' }));
        const page = await list(`${wo1000}/getlist~assetnum?oslc.select=assetnum,siteid,status&oslc.pageSize=500&collectioncount=1`);
        expect(page.href).to.equal(`http://127.0.0.1:8080${wo1000}/getlist~assetnum`);
        expect(page.responseInfo.totalCount).to.equal(expected.length);
        expect(page.member.map((asset) => asset.assetnum)).to.equal(expected);
        expect(page.member.every((asset) => asset.siteid === 'BEDFORD' && asset.status !== 'DECOMMISSIONED')).to.be.true();
        expect(page.member[0]!.href).to.match(/^http:\/\/127\.0\.0\.1:8080\/maximo\/oslc\/os\/mxapiasset\/_/);

        // Every value listed is one a write of the record accepts, and a value left out is refused.
        const listed = page.member[1]!.assetnum;
        const accepted = await t.inject({ method: 'PATCH', url: wo1000, headers: wilson, payload: { assetnum: listed } });
        expect(accepted.statusCode).to.equal(204);
        const [decommissioned] = await assetnums((q) => q.where({ siteid: 'BEDFORD', status: 'DECOMMISSIONED' }));
        const refused = await t.inject({ method: 'PATCH', url: wo1000, headers: wilson, payload: { assetnum: decommissioned } });
        expect(refused.statusCode).to.equal(400);

        // Paging, the client's own where and ordering work as on any collection.
        const first = await list(`${wo1000}/getlist~assetnum?oslc.pageSize=2`);
        expect(first.member).to.have.length(2);
        expect(Object.keys(first.member[0]!)).to.equal(['href']);
        const second = await list(new URL(first.responseInfo.nextPage!.href).pathname + new URL(first.responseInfo.nextPage!.href).search);
        expect(second.member[0]!.href).to.not.equal(first.member[1]!.href);
        const narrowed = await list(`${wo1000}/getlist~assetnum?oslc.where=${encodeURIComponent('description="%pump%"')}&oslc.select=assetnum,description&oslc.orderBy=-assetnum&oslc.pageSize=500`);
        expect(narrowed.member.length).to.be.above(0);
        expect(narrowed.member.every((asset) => /pump/i.test(asset.description))).to.be.true();
        expect(narrowed.member.map((asset) => asset.assetnum)).to.equal(expected.filter((num) => narrowed.member.some((asset) => asset.assetnum === num)).reverse());
        expect((await get(`${wo1000}/getlist~assetnum?count=1`)).result).to.equal({ totalCount: expected.length });
    });

    test('zombie lists without a record; newmbo with the values of setupdata', async () => {

        const everySite = await assetnums((q) => q.whereNot({ status: 'DECOMMISSIONED' }));
        const zombie = await list(`${wos}/zombie/getlist~assetnum?oslc.select=assetnum&oslc.pageSize=1000&collectioncount=1`);
        expect(zombie.responseInfo.totalCount).to.equal(everySite.length);

        const nashua = await assetnums((q) => q.where({ siteid: 'NASHUA' }).whereNot({ status: 'DECOMMISSIONED' }));
        const setup = encodeURIComponent(JSON.stringify({ siteid: 'nashua', description: 'not yet saved' }));
        const newmbo = await list(`/maximo/api/os/mxapiwodetail/newmbo/getlist~assetnum?setupdata=${setup}&oslc.select=assetnum,siteid&oslc.pageSize=1000`);
        expect(newmbo.member.map((asset) => asset.assetnum)).to.equal(nashua);
        expect(newmbo.member[0]!.href).to.contain('/maximo/api/os/mxapiasset/');

        const locations = Number((await t.server.app.osprey.knex('locations').count({ n: '*' }))[0]!.n);
        expect((await get(`${wos}/newmbo/getlist~location?count=1`)).result).to.equal({ totalCount: locations });

        const bad = await get(`${wos}/newmbo/getlist~assetnum?setupdata=${encodeURIComponent('{"siteid":')}`);
        expect(bad.statusCode).to.equal(400);
        const unknown = await get(`${wos}/newmbo/getlist~assetnum?setupdata=${encodeURIComponent('{"nosuch":1,"wopriority":"x"}')}`);
        expect(unknown.statusCode).to.equal(400);
        expect(unknown.result.attrerrors).to.have.length(2);
        const invalid = await get(`${wos}/newmbo/getlist~assetnum?setupdata=${encodeURIComponent('{"wopriority":"x"}')}`);
        expect(invalid.result.Error.errorattrname).to.equal('wopriority');
    });

    test('a domain-bound attribute lists its domain\'s values, of the record or of a child row', async () => {

        const statuses = await list(`${wo1000}/getlist~status`);
        expect(statuses.member.map((entry) => entry.value)).to.equal(['WAPPR', 'APPR', 'WSCH', 'WMATL', 'INPRG', 'COMP', 'CLOSE', 'CAN']);
        // A synonym value without a declared internal value is its own (as {attr}_maxvalue renders it).
        expect(statuses.member[0]).to.equal({ value: 'WAPPR', description: 'Waiting on Approval', maxvalue: 'WAPPR' });
        const assetStatuses = `/maximo/oslc/os/mxapiasset/zombie/getlist~status`;
        const notReady = await list(`${assetStatuses}?oslc.where=${encodeURIComponent('maxvalue="NOT READY"')}&oslc.select=value`);
        expect(notReady.member.map((entry) => entry.value).sort()).to.equal(['BROKEN', 'NOT READY']);
        // _dropnulls=0 keeps a null as records do; internalvalues=1 adds to records only, and is refused here.
        const withNulls = await list(`${wos}/zombie/getlist~worktype?oslc.select=value,maxvalue&_dropnulls=0&oslc.pageSize=1`);
        expect(withNulls.member).to.equal([{ value: withNulls.member[0]!.value, maxvalue: null }]);
        const internal = await t.inject({ url: `${wo1000}/getlist~status?internalvalues=1`, headers: wilson });
        expect(internal.statusCode).to.equal(400);
        expect(internal.result.Error.message).to.contain('maxvalue');

        const filteredStatuses = await list(`${wos}/zombie/getlist~status?oslc.where=${encodeURIComponent('description="%pro%"')}&oslc.select=value,valueid&collectioncount=1`);
        expect(filteredStatuses.member).to.equal([{ value: 'WAPPR', valueid: 1 }, { value: 'APPR', valueid: 2 }, { value: 'INPRG', valueid: 5 }]);
        expect(filteredStatuses.responseInfo.totalCount).to.equal(3);

        const task = (await list(`${wo1000}/woactivity?oslc.select=taskid`)).member[0]!;
        const ordered = await list(`${new URL(task.href).pathname}/getlist~status?oslc.orderBy=-value&oslc.pageSize=2&oslc.select=value`);
        expect(ordered.member).to.equal([{ value: 'WSCH' }, { value: 'WMATL' }]);
        expect(ordered.responseInfo.nextPage).to.exist();

        const types = await list(`${wos}/zombie/getlist~worktype?oslc.where=${encodeURIComponent('value in ["PM","EM"]')}`);
        expect(types.member.map((entry) => entry.value)).to.equal(['PM', 'EM']);
    });

    test('what has no list, or no record, is a clear error', async () => {

        const cases: [string, number, string][] = [
            [`${wo1000}/getlist~description`, 400, 'has no list of values'],
            [`${wo1000}/getlist~nosuch`, 400, 'is not an attribute'],
            [`${wos}/_QkVERk9SRC85OTk5OTk-/getlist~assetnum`, 404, 'BMXAA8727E'],
            [`${wo1000}/nochild/_MTA-/getlist~status`, 404, 'no child object'],
            [`${wo1000}/woactivity/_OTk5/getlist~status`, 404, 'has no WOACTIVITY'],
            [`${wos}/zombie/woactivity/_MTA-/getlist~status`, 400, 'not of a child object'],
            [`${wo1000}/getlist~assetnum?oslc.where=${encodeURIComponent('nosuch=1')}`, 400, 'BMXAA8744E'],
            [`${wo1000}/getlist~status?oslc.select=nosuch`, 400, 'BMXAA8744E'],
            [`${wo1000}/getlist~assetnum?oslc.pageSize=0`, 400, '']
        ];
        for (const [url, status, text] of cases) {
            const res = await get(url);
            expect(res.statusCode, url).to.equal(status);
            expect(res.payload, url).to.contain(text);
        }
    });
});
