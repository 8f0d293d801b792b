import * as Code from '@hapi/code';
import * as Lab from '@hapi/lab';

import { onEachDatabase } from './helpers/experiments';
import { maxadmin, wilson } from './helpers/server';


const lab = exports.lab = Lab.script();
const { test } = lab;
const { expect } = Code;

onEachDatabase(lab, 'information endpoints', { settings: { publicOrigins: ['http://127.0.0.1:8080', 'https://eam.example.com'] } }, (t, database) => {

    for (const home of ['api', 'oslc']) {
        test(`the ${home} home links every information document`, async () => {

            const res = await t.inject({ url: `/maximo/${home}?lean=1`, headers: wilson });
            expect(res.statusCode).to.equal(200);
            const base = `http://${res.request.info.host}/maximo/${home}`;
            expect(res.result.href).to.equal(base);
            expect(res.result.systeminfo.href).to.equal(`${base}/systeminfo`);
            expect(res.result.whoami.href).to.equal(`${base}/whoami`);
            expect(res.result.installedProducts.href).to.equal(`${base}/products`);
            expect(res.result.serverMembers.href).to.equal(`${base}/members`);
            expect(res.result.license.href).to.equal(`${base}/license`);
            expect(res.result.apimeta.href).to.equal(`${base}/apimeta`);
            expect(new Date(res.result.serverDateTime).getTime()).to.be.about(Date.now(), 60_000);
            expect(res.result.language).to.equal('EN');
            expect(res.result.version).to.equal(t.server.app.osprey.version);
            // A link is advertised only where it answers.
            for (const [name, link] of Object.entries(res.result as Record<string, { href?: string }>)) {
                if (name !== 'href' && name !== 'logout' && typeof link === 'object' && link?.href) {
                    const answer = await t.inject({ url: new URL(link.href).pathname, headers: wilson });
                    expect(answer.statusCode, link.href).to.be.below(400);
                }
            }

            // An error's moreInfo names its reason code's message, which answers.
            const missing = await t.inject({ url: `/maximo/${home}/os/mxapiasset/_Tk9ORQ--`, headers: wilson });
            expect(missing.statusCode).to.equal(404);
            const moreInfo = missing.result.Error.extendedError.moreInfo.href;
            expect(moreInfo).to.equal(`${base}/error/messages/BMXAA8727E`);
            const message = await t.inject({ url: new URL(moreInfo).pathname, headers: wilson });
            expect(message.result).to.include({ href: moreInfo, reasonCode: 'BMXAA8727E', statusCode: '404' });
            // On a path no route serves too: the home its path names (found by a hostile probe: always /oslc).
            const unrouted = await t.inject({ url: `/maximo/${home}/service/system/extra`, headers: wilson });
            expect(unrouted.statusCode).to.equal(404);
            expect(String(unrouted.result.Error.extendedError.moreInfo.href)).to.startWith(`${base}/error/messages/`);
            const atHome = await t.inject({ method: 'DELETE', url: `/maximo/${home}`, headers: wilson });
            expect(atHome.statusCode).to.be.within(404, 405);
            expect(String(atHome.result.Error.extendedError.moreInfo.href)).to.startWith(`${base}/error/messages/`);
            expect(String(message.result.message)).to.startWith('BMXAA8727E - ');
            const lower = await t.inject({ url: `/maximo/${home}/error/messages/bmxaa4153e`, headers: wilson });
            expect(lower.result).to.include({ reasonCode: 'BMXAA4153E', statusCode: '400' });
            const unknown = await t.inject({ url: `/maximo/${home}/error/messages/NOPE`, headers: wilson });
            expect(unknown.statusCode).to.equal(404);
            expect(unknown.result.Error.message).to.contain('NOPE is not a reason code');

            const os = await t.inject({ url: `/maximo/${home}/os`, headers: wilson });
            expect(os.result.member.map((entry: { name: string }) => entry.name)).to.equal(['MXAPIAPIKEY', 'MXAPIASSET', 'MXAPILOCATION', 'MXAPIMAXGROUP', 'MXAPIMAXUSER', 'MXAPIPERSON', 'MXAPIWFASSIGNMENT', 'MXAPIWODETAIL']);
            expect(os.result.member[1].href).to.equal(`${base}/os/mxapiasset`);
        });

        test(`whoami on ${home} returns the user's profile`, async () => {

            const res = await t.inject({ url: `/maximo/${home}/whoami`, headers: wilson });
            expect(res.statusCode).to.equal(200);
            expect(res.result).to.include({ userName: 'WILSON', userid: 'WILSON', loginID: 'WILSON', personid: 'WILSON', displayName: 'Mike Wilson', defaultSite: 'BEDFORD', insertSite: 'BEDFORD', defaultOrg: 'EAGLENA', insertOrg: 'EAGLENA', langcode: 'EN', isAdmin: false });
            expect(res.result.groups).to.equal([{ groupname: 'EVERYONE' }, { groupname: 'PLANNERS' }]);
        });
    }

    test('systeminfo names the product, runtime and database', async () => {

        const res = await t.inject({ url: '/maximo/oslc/systeminfo', headers: wilson });
        expect(res.statusCode).to.equal(200);
        expect(res.result.productName).to.equal('Osprey');
        expect(res.result.node.version).to.equal(process.version);
        expect(res.result.database.kind).to.equal(database.name);
        expect(res.result.database.dbVersion).to.match(/^\d+\.\d+/);
        expect(res.result.contextRoot).to.equal('maximo');
        expect(res.result.objectStructures).to.equal(8);
        expect(res.result.uptime).to.be.a.number();
    });

    test('products and license list the configured entries', async () => {

        const products = await t.inject({ url: '/maximo/api/products', headers: wilson });
        expect(products.result.member[0]).to.include({ name: 'Osprey', version: t.server.app.osprey.version });
        const license = await t.inject({ url: '/maximo/api/license', headers: wilson });
        expect(license.result.member).to.equal([{ component: 'Osprey', license: 'Apache-2.0' }]);
    });

    test('members lists this node; members/thisserver and members/{id} return it', async () => {

        const res = await t.inject({ url: '/maximo/oslc/members', headers: maxadmin });
        expect(res.statusCode).to.equal(200);
        expect(res.result.member).to.have.length(1);
        const me = res.result.member[0];
        expect(me).to.include({ id: t.server.app.osprey.members.id, pid: process.pid, thisServer: true });
        expect(me.host).to.be.a.string();
        // Where a node runs is an administrator's to read; anyone else sees which nodes are live.
        const planner = (await t.inject({ url: '/maximo/oslc/members', headers: wilson })).result.member[0];
        expect(planner).to.include({ id: me.id, thisServer: true, version: me.version });
        expect(Object.keys(planner)).to.not.include(['host', 'pid', 'address']);
        const thisServer = await t.inject({ url: '/maximo/oslc/members/thisserver', headers: wilson });
        expect(thisServer.result.pid).to.not.exist();
        expect(thisServer.result.id).to.equal(me.id);
        const byId = await t.inject({ url: `/maximo/api/members/${me.id}`, headers: wilson });
        expect(String(byId.result.href)).to.endWith(`/maximo/api/members/${me.id}`);
        const missing = await t.inject({ url: '/maximo/api/members/nope', headers: wilson });
        expect(missing.statusCode).to.equal(404);
        expect(missing.result.Error.reasonCode).to.equal('BMXAA8727E');
    });

    test('a node that stops beating leaves the members list', async () => {

        const knex = t.server.app.osprey.knex;
        await knex('osprey_member').insert({ id: 'other', host: 'elsewhere', pid: 1, address: null, version: '0', started: Date.now() - 60_000, heartbeat: Date.now() });
        const both = await t.inject({ url: '/maximo/oslc/members', headers: wilson });
        expect(both.result.member.map((item: { id: string }) => item.id)).to.include('other');
        await knex('osprey_member').where({ id: 'other' }).update({ heartbeat: Date.now() - 60_000 });
        const one = await t.inject({ url: '/maximo/oslc/members', headers: wilson });
        expect(one.result.member.map((item: { id: string }) => item.id)).to.not.include('other');
    });

    test('the heartbeat keeps this node listed and purges long-dead nodes', async () => {

        const knex = t.server.app.osprey.knex;
        await knex('osprey_member').insert({ id: 'dead', host: 'gone', pid: 2, address: null, version: '0', started: 0, heartbeat: 0 });
        await t.server.app.osprey.members.beat();
        expect(await knex('osprey_member').where({ id: 'dead' }).first()).to.not.exist();
        const row = await knex('osprey_member').where({ id: t.server.app.osprey.members.id }).first();
        expect(Number(row.heartbeat)).to.be.about(Date.now(), 5_000);
    });

    test('apimeta has one entry per structure with saved queries and shape', async () => {

        const res = await t.inject({ url: '/maximo/oslc/apimeta', headers: wilson });
        expect(res.statusCode).to.equal(200);
        expect(res.result.map((entry: { name: string }) => entry.name)).to.equal(['MXAPIAPIKEY', 'MXAPIASSET', 'MXAPILOCATION', 'MXAPIMAXGROUP', 'MXAPIMAXUSER', 'MXAPIPERSON', 'MXAPIWFASSIGNMENT', 'MXAPIWODETAIL']);
        const wo = res.result.find((entry: { name: string }) => entry.name === 'MXAPIWODETAIL');
        expect(wo).to.include({ appName: 'WOTRACK', uniqueid: 'workorderid', primarykeys: ['siteid', 'wonum'] });
        expect(String(wo.creationFactory[0].href)).to.endWith('/maximo/oslc/os/mxapiwodetail');
        expect(String(wo.resourceShape)).to.endWith('/maximo/oslc/jsonschemas/mxapiwodetail');
        expect(wo.queryCapability.map((query: { name: string }) => query.name)).to.include(['All', 'OPENWO', 'EMERGENCYWO', 'WOBYASSET']);
        const one = await t.inject({ url: '/maximo/api/apimeta/MxApiAsset', headers: wilson });
        expect(one.result.name).to.equal('MXAPIASSET');
        expect(String(one.result.href)).to.endWith('/maximo/api/apimeta/mxapiasset');
    });

    test('jsonschemas describes attributes, keys and children', async () => {

        const res = await t.inject({ url: '/maximo/api/jsonschemas/mxapiwodetail', headers: wilson });
        expect(res.statusCode).to.equal(200);
        expect(res.result.resource).to.equal('MXAPIWODETAIL');
        expect(res.result.pk).to.equal(['siteid', 'wonum']);
        expect(res.result.properties.wonum).to.include({ type: 'string', subType: 'UPPER', maxLength: 25 });
        expect(res.result.properties.status.enum).to.include(['WAPPR', 'APPR']);
        expect(res.result.properties.status.default).to.equal('WAPPR');
        expect(res.result.properties.reportdate.format).to.equal('date-time');
        expect(res.result.properties.estdur).to.include({ type: 'number', scale: 2 });
        expect(res.result.properties.workorderid.readOnly).to.be.true();
        expect(res.result.properties.memo.persistent).to.be.false();
        expect(res.result.properties.woactivity.type).to.equal('array');
        expect(res.result.properties.woactivity.items.pk).to.equal(['taskid']);
        expect(res.result.properties.doclinks.type).to.equal('array');
        expect(res.result.required).to.equal(['siteid']);
        const asset = await t.inject({ url: '/maximo/api/jsonschemas/mxapiasset', headers: wilson });
        expect(asset.result.properties.installdate.format).to.not.exist();
        expect(asset.result.properties.installdate.subType).to.equal('DATE');
        expect(asset.result.properties.description.searchType).to.equal('WILDCARD');
    });

    test('jsonmboschemas describes one business object\'s attributes, as jsonschemas does, without children', async () => {

        const structure = (await t.inject({ url: '/maximo/oslc/jsonschemas/mxapiasset', headers: wilson })).result;
        const asset = await t.inject({ url: '/maximo/api/jsonmboschemas/Asset', headers: wilson });
        expect(asset.statusCode).to.equal(200);
        expect(asset.result).to.include({ resource: 'ASSET', objectName: 'ASSET', uniqueid: 'assetuid', pk: ['siteid', 'assetnum'] });
        expect(asset.result.href).to.equal(`http://${asset.request.info.host}/maximo/api/jsonmboschemas/asset`);
        expect(Object.keys(asset.result.properties)).to.equal(Object.keys(structure.properties).filter((name) => structure.properties[name].type !== 'array'));
        const meter = (await t.inject({ url: '/maximo/oslc/jsonmboschemas/ASSETMETER', headers: wilson })).result;
        // Without its children (its readings), as the asset's has none of its own.
        const meterChild = structure.properties.assetmeter.items.properties;
        expect(meter.properties).to.equal(Object.fromEntries(Object.entries(meterChild).filter(([, property]: [string, any]) => property.type !== 'array')));
        expect(meterChild.meterreading.type).to.equal('array');
        const missing = await t.inject({ url: '/maximo/oslc/jsonmboschemas/nothere', headers: wilson });
        expect(missing.statusCode).to.equal(404);
        expect(missing.result.Error.message).to.contain('NOTHERE');
    });

    test('a schema is only of what the user may read: jsonschemas and jsonmboschemas of groups are a 403 to a planner', async () => {

        for (const url of ['/maximo/oslc/jsonschemas/mxapimaxgroup', '/maximo/oslc/jsonschemas/mxapimaxgroup?oslc.select=groupname', '/maximo/api/jsonmboschemas/maxgroup']) {
            const res = await t.inject({ url, headers: wilson });
            expect(res.statusCode, url).to.equal(403);
            expect(res.result.Error.message).to.contain('WILSON is not authorized to read');
            expect((await t.inject({ url, headers: maxadmin })).statusCode, url).to.equal(200);
        }
    });

    test('an unknown structure is a 404 in the Maximo error shape', async () => {

        for (const url of ['/maximo/api/apimeta/nothere', '/maximo/api/jsonschemas/nothere', '/maximo/oslc/os/nothere', '/maximo/oslc/os/nothere/1']) {
            const res = await t.inject({ url, headers: wilson });
            expect(res.statusCode).to.equal(404);
            expect(res.result.Error).to.include({ reasonCode: 'BMXAA8727E', statusCode: '404' });
            expect(res.result.Error.message).to.contain('NOTHERE');
        }
    });

    test('hrefs follow x-public-uri and relativeuri=1', async () => {

        const proxied = await t.inject({ url: '/maximo/oslc/whoami', headers: { ...wilson, 'x-public-uri': 'https://eam.example.com/' } });
        expect(proxied.result.href).to.equal('https://eam.example.com/maximo/oslc/whoami');
        const relative = await t.inject({ url: '/maximo/oslc/whoami?relativeuri=1', headers: maxadmin });
        expect(relative.result.href).to.equal('/maximo/oslc/whoami');
        expect(relative.result.isAdmin).to.be.true();
    });

    test('the health endpoint needs no login and checks the database', async () => {

        const res = await t.inject('/maximo/health');
        expect(res.statusCode).to.equal(200);
        expect(res.result).to.include({ status: 'ok', database: 'up' });
    });
});
