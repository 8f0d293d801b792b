import * as Path from 'node:path';

import * as Code from '@hapi/code';
import * as Lab from '@hapi/lab';

import { onEachDatabase } from '../helpers/experiments';
import { fixtures, maxauth, startTestServer, wilson, type TestServer } from '../helpers/server';


const lab = exports.lab = Lab.script();
const { test, before, after } = lab;
const { expect } = Code;

// `_weblink` in a select (CONTRACT §2): the record's link into its application in the Maximo UI,
// {uiBase}/{contextRoot}/ui/?event=loadapp&value={app}&uniqueid={unique id}. Osprey serves no UI, so it links into
// the one OSPREY_UI_BASE names, and refuses the term where none is configured rather than link into nothing.

const wos = '/maximo/oslc/os/mxapiwodetail';
const wo1000 = `${wos}/_QkVERk9SRC8xMDAw`;

onEachDatabase(lab, '_weblink', { settings: { uiBase: 'https://eam.example.com/' } }, (t) => {

    const get = (url: string, headers: Record<string, string> = wilson) => t.inject({ url, headers });

    test('links each record, and a related record, into its application by its unique id', async () => {

        const one = await get(`${wo1000}?oslc.select=wonum,workorderid,_weblink,asset._weblink,asset.assetuid`);
        expect(one.statusCode).to.equal(200);
        expect(one.result._weblink).to.equal(`https://eam.example.com/maximo/ui/?event=loadapp&value=wotrack&uniqueid=${one.result.workorderid}`);
        expect(one.result.asset._weblink).to.equal(`https://eam.example.com/maximo/ui/?event=loadapp&value=asset&uniqueid=${one.result.asset.assetuid}`);
        const page = await get(`${wos}?oslc.select=workorderid,_weblink--link&oslc.pageSize=3&relativeuri=1`);
        expect(page.result.member).to.have.length(3);
        for (const record of page.result.member) {
            expect(record.link).to.equal(`https://eam.example.com/maximo/ui/?event=loadapp&value=wotrack&uniqueid=${record.workorderid}`);
        }

        // Its schema says so.
        const schema = await get('/maximo/oslc/jsonschemas/mxapiwodetail?oslc.select=wonum,_weblink--link');
        expect(schema.result.properties.link).to.equal({ type: 'string', format: 'uri' });

        // Only when selected: not in `*`, nor without a select.
        expect((await get(`${wo1000}?oslc.select=*`)).result._weblink).to.not.exist();
        expect((await get(wo1000)).result._weblink).to.not.exist();
        // A write answers it when its properties name it.
        const created = await t.inject({ method: 'POST', url: wos, headers: { ...wilson, properties: 'workorderid,_weblink' }, payload: { siteid: 'BEDFORD', description: 'Linked' } });
        expect(created.statusCode).to.equal(201);
        expect(String(created.result._weblink)).to.endWith(`value=wotrack&uniqueid=${created.result.workorderid}`);
    });

    test('a child row has no link of its own', async () => {

        for (const url of [`${wo1000}?oslc.select=woactivity{taskid,_weblink}`, `${wo1000}/woactivity?oslc.select=_weblink`]) {
            const res = await get(url);
            expect(res.statusCode, url).to.equal(400);
            expect(res.result.Error.message, url).to.contain('_weblink').and.to.contain('WOACTIVITY rows have no link');
        }
    });
});

onEachDatabase(lab, '_weblink without a UI, or of a structure without an application', (t, database) => {

    let bare: TestServer;
    before(async () => {

        bare = await startTestServer(database, { demo: false, structures: Path.join(fixtures, 'valid'), adminUser: 'ADMIN', adminPassword: 'admin-secret-1', uiBase: 'http://ui.example.com' });
    });

    after(() => bare.stop());

    test('is refused by name, saying why', async () => {

        const res = await t.inject({ url: `${wo1000}?oslc.select=wonum,_weblink`, headers: wilson });
        expect(res.statusCode).to.equal(400);
        expect(res.result.Error.reasonCode).to.equal('BMXAA8744E');
        expect(res.result.Error.message).to.contain('_weblink').and.to.contain('OSPREY_UI_BASE');
        const noApp = await bare.inject({ url: '/maximo/oslc/os/mxtestjob?oslc.select=jobnum,_weblink', headers: maxauth('admin', 'admin-secret-1') });
        expect(noApp.statusCode).to.equal(400);
        expect(noApp.result.Error.message).to.contain('MXTESTJOB names no application');
        const pump = await bare.inject({ url: '/maximo/oslc/os/mxtestpump?oslc.select=_weblink', headers: maxauth('admin', 'admin-secret-1') });
        expect(pump.statusCode).to.equal(200);
    });
});
