import * as Code from '@hapi/code';
import * as Lab from '@hapi/lab';

import { unservedRoutes } from '../src/http/unserved';
import { onEachDatabase } from './helpers/experiments';
import { maxadmin, wilson } from './helpers/server';


const lab = exports.lab = Lab.script();
const { test, before } = lab;
const { expect } = Code;

const home = '/maximo/oslc';

// Maximo services Osprey does not provide (src/http/unserved.ts): 501 in Maximo's shape, naming the service.
onEachDatabase(lab, 'services not provided', (t) => {

    let lines: string[];
    before(() => {

        lines = [];
        t.server.events.on({ name: 'request', channels: 'app' }, (_request, event) => lines.push(JSON.stringify(event.data)));
    });

    const expectNotProvided = (res: any, names: string, label = names) => {

        expect(res.statusCode, label).to.equal(501);
        expect(res.result.Error).to.include({ reasonCode: 'BMXAA1726E', statusCode: '501' });
        const message: string = res.result.Error.message;
        expect(message, label).to.startWith('BMXAA1726E - Osprey does not provide ');
        expect(message, label).to.contain(names);
        expect(String(res.result.Error.extendedError.moreInfo.href)).to.endWith('/error/messages/BMXAA1726E');
    };

    test('every route of the list answers 501 naming its service, by any method, once logged in', async () => {

        for (const route of unservedRoutes) {
            const path = route.path.replace(/\{\w+\*\}/, 'some/thing');
            const url = route.root ? path : `${home}${path}`;
            for (const method of ['GET', 'POST', 'PUT', 'PATCH', 'DELETE']) {
                const res = await t.inject({ method, url: `${url}?action=wsmethod:x&lean=1&anything=1`, headers: { ...wilson, 'x-method-override': 'EXECUTE', 'content-type': 'text/plain' }, payload: method === 'GET' || method === 'DELETE' ? undefined : 'not json' });
                expectNotProvided(res, route.service, `${method} ${url}`);
            }

            expect((await t.inject({ url })).statusCode, url).to.equal(401);
        }

        // The 501 is no fault: its message is answered, and no error (with a stack) is logged for it.
        expect(lines.filter((line) => line.includes('Osprey does not provide'))).to.equal([]);
    });

    test('a path served by other methods answers 405 naming them; a path of no route, 404 (found by a hostile probe)', async () => {

        const wrong = async (method: string, url: string, allow: string, headers: Record<string, string> = maxadmin) => {

            const res = await t.inject({ method, url, headers });
            expect(res.statusCode, `${method} ${url}`).to.equal(405);
            expect(res.headers.allow).to.equal(allow);
            expect(res.result.Error).to.include({ reasonCode: 'BMXAA1722E', statusCode: '405' });
            expect(res.result.Error.message).to.contain(`${method} is not served on ${url.split('?')[0]}; it answers ${allow}.`);
        };

        await wrong('GET', '/maximo/api/apitoken/get', 'POST', wilson);
        await wrong('DELETE', '/maximo/api/apitoken/get', 'POST', wilson);
        await wrong('GET', '/maximo/oslc/loginlocks/users/lockme', 'DELETE');
        await wrong('PATCH', '/maximo/oslc/loginlocks/users/lockme', 'DELETE');
        // A route that refuses a method by name says which it is served by too (found by a second probe).
        const refusedByName = async (method: string, url: string, allow: string) => {

            const res = await t.inject({ method, url, headers: maxadmin });
            expect(res.statusCode, `${method} ${url}`).to.equal(405);
            expect(res.headers.allow, `${method} ${url}`).to.equal(allow);
        };

        const wo = `${home}/os/mxapiwodetail/_QkVERk9SRC8xMDAw`;
        await refusedByName('PUT', `${wo}/doclinks`, 'GET, POST');
        await refusedByName('PUT', `${home}/service/system?action=wsmethod:getDate`, 'GET, POST');
        await refusedByName('POST', `${home}/oas`, 'GET');
        const head = await t.inject({ method: 'HEAD', url: `${home}/service/system?action=wsmethod:getDate`, headers: maxadmin });
        expect(head.statusCode).to.equal(200);
        expect(head.payload).to.equal('');

        const none = await t.inject({ url: `${home}/no/such/thing`, headers: maxadmin });
        expect(none.statusCode).to.equal(404);
        expect(none.headers.allow).to.not.exist();
        // An action where no route runs one is still refused as an action.
        const action = await t.inject({ method: 'DELETE', url: `${home}/os/mxapiwodetail?action=wsmethod:changeStatus`, headers: maxadmin });
        expect(action.statusCode).to.equal(400);
        expect(action.result.Error.message).to.contain('wsmethod:changeStatus');
    });

    test('the structures of Maximo services answer 501 on every route, before their parameters or actions are read', async () => {

        const cases: [string, string, string?][] = [
            ['GET', `${home}/os/mxapiautoscript?oslc.select=autoscript,source&oslc.pageSize=1000`, 'the automation script service (mxapiautoscript)'],
            ['POST', `${home}/os/MXAPIAUTOSCRIPT`, 'automation script'],
            ['POST', `${home}/os/mxl_apps/WOTRACK?action=approve`, 'the application XML service (MXL_APPS)'],
            ['DELETE', `${home}/os/MXL_APPS/WOTRACK`, 'MXL_APPS'],
            ['GET', `${home}/os/mxintobject/_X?oslc.select=*`, 'structures are YAML files under structures/'],
            ['GET', `/maximo/api/os/MXL_CONDITION?oslc.where=conditionnum="C1"`, 'the condition expression service (MXL_CONDITION)'],
            ['GET', `${home}/jsonschemas/mxapiautoscript`, 'automation script'],
            ['GET', `${home}/apimeta/MXL_APPS`, 'MXL_APPS']
        ];
        for (const [method, url, names] of cases) {
            const res = await t.inject({ method, url, headers: maxadmin, payload: method === 'POST' ? {} : undefined });
            expectNotProvided(res, names!, `${method} ${url}`);
        }

        // A structure that is not there at all is still the 404 it always was.
        expect((await t.inject({ url: `${home}/os/mxapiautoscripts`, headers: wilson })).statusCode).to.equal(404);
    });
});

// Without a plugin that takes them (the demo's meters example is not loaded with OSPREY_DEMO=0), meter readings
// are refused by name (src/write/attribute-writes.ts; test/plugins/meters.test.ts has them recorded).
onEachDatabase(lab, 'meter readings not provided', { settings: { demo: false, adminUser: 'MAXADMIN', adminPassword: 'maxadmin' } }, (t) => {

    const expectNotProvided = (res: any, names: string) => {

        expect(res.statusCode).to.equal(501);
        expect(res.result.Error).to.include({ reasonCode: 'BMXAA1726E', statusCode: '501' });
        expect(res.result.Error.message).to.contain(names);
    };

    test('a meter reading is refused by name, with batcherror too, and nothing is written', async () => {

        const created = await t.inject({ method: 'POST', url: `${home}/os/mxapiasset`, headers: maxadmin, payload: { assetnum: 'U-1', siteid: 'BEDFORD', assetmeter: [{ metername: 'RUNHOURS', lastreading: 5 }] } });
        expect(created.statusCode).to.equal(201);
        const asset = `${home}/os/mxapiasset/assetnum:U-1|siteid:BEDFORD`;
        const read = async () => (await t.inject({ url: `${asset}?oslc.select=assetmeter{metername,lastreading}`, headers: maxadmin })).result.assetmeter;
        const earlier = await read();
        const res = await t.inject({ method: 'POST', url: asset, headers: { ...maxadmin, 'x-method-override': 'PATCH', patchtype: 'MERGE' }, payload: { assetmeter: [{ metername: 'NEWMETER', newreading: 12 }] } });
        expectNotProvided(res, 'meter readings (newreading of ASSETMETER)');
        expect(res.result.Error.errorattrname).to.equal('newreading');
        const batched = await t.inject({ method: 'POST', url: asset, headers: { ...maxadmin, 'x-method-override': 'PATCH', patchtype: 'MERGE', batcherror: '1' }, payload: { priority: 'high', assetmeter: [{ metername: 'NEWMETER', newreading: 12 }] } });
        expect(batched.result.attrerrors.map((entry: any) => [entry.Error.errorattrname, entry.Error.statusCode])).to.equal([['priority', '400'], ['newreading', '501']]);
        expect(await read()).to.equal(earlier);

        // Another object's unknown attribute is still the 400 it always was.
        const unknown = await t.inject({ method: 'PATCH', url: asset, headers: maxadmin, payload: { newreading: 1 } });
        expect(unknown.statusCode).to.equal(400);
        expect(unknown.result.Error.reasonCode).to.equal('BMXAA4203E');
        // So is a name an object has by inheritance, on the object whose other name is refused by name.
        // (__proto__ is refused earlier still, by the JSON parser, as a prototype poisoning attempt.)
        for (const name of ['constructor', 'toString', '__proto__']) {
            const inherited = await t.inject({ method: 'PATCH', url: asset, headers: { ...maxadmin, 'content-type': 'application/json' }, payload: `{"assetmeter":[{"metername":"NEWMETER","${name}":"1"}]}` });
            expect(inherited.statusCode, name).to.equal(400);
            expect(inherited.result.Error.reasonCode, name).to.equal(name === '__proto__' ? 'BMXAA4153E' : 'BMXAA4203E');
        }

        expect(await read()).to.equal(earlier);
    });
});
