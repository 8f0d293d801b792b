import * as Path from 'node:path';

import * as Code from '@hapi/code';
import * as Lab from '@hapi/lab';

import { testDatabases } from '../helpers/databases';
import { onEachDatabase } from '../helpers/experiments';
import { maxadmin, startTestServer, wilson, type TestServer } from '../helpers/server';


const lab = exports.lab = Lab.script();
const { experiment, test, before, after } = lab;
const { expect } = Code;

const plugin = Path.join(__dirname, '..', 'fixtures', 'plugins', 'services');
const home = '/maximo/oslc';
const system = (method: string, query = '') => `${home}/service/system?action=wsmethod:${method}${query}`;

const expectError = (res: any, status: number, ...names: string[]) => {

    expect(res.statusCode, res.payload).to.equal(status);
    for (const name of names) {
        expect(res.result.Error.message).to.contain(name);
    }
};

// The built-in system service (plugins/services/system.ts) and the system properties (src/services/properties.ts).
onEachDatabase(lab, 'the system service', { settings: { plugins: [plugin], maxPageSize: 500 } }, (t) => {

    const set = (name: string, value: unknown, headers = maxadmin) => t.inject({ method: 'POST', url: system('setProperty'), headers: { ...headers, 'x-method-override': 'PATCH' }, payload: { propName: name, propValue: value, serverName: 'COMMON', serverHost: '' } });
    const get = async (name: string) => (await t.inject({ url: system('getProperty', `&propName=${name}`), headers: wilson })).result;

    test('getDate answers the server\'s date and time as {"return": ISO 8601 with its offset}', async () => {

        const asked = Date.now();
        const res = await t.inject({ url: system('getDate'), headers: wilson });
        expect(res.statusCode).to.equal(200);
        expect(Object.keys(res.result)).to.equal(['return']);
        expect(res.result.return).to.match(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\+00:00$/);
        const at = Date.parse(res.result.return);
        expect(at).to.be.within(Math.floor(asked / 1000) * 1000, Date.now());
    });

    test('isManage is false; OS security is on (mxe.int.enableosauth is 1, fixed)', async () => {

        expect((await t.inject({ url: system('isManage'), headers: wilson })).result).to.equal({ return: false });
        expect(await get('mxe.int.enableosauth')).to.equal({ return: '1' });
        expectError(await set('mxe.int.enableosauth', 0), 400, 'The system property mxe.int.enableosauth is fixed');
        expectError(await t.inject({ url: system('liveRefreshProperty', '&propName=mxe.int.enableosauth'), headers: maxadmin }), 400, 'is fixed');
        expect(await get('mxe.int.enableosauth')).to.equal({ return: '1' });
    });

    test('getPropertyNames lists every declared property, secret ones too; this node\'s limits are fixed properties', async () => {

        const res = await t.inject({ url: system('getPropertyNames'), headers: wilson });
        expect(res.result).to.equal(['mxe.adminEmail', 'mxe.int.enableosauth', 'osprey.maxAnswerRows', 'osprey.maxBody', 'osprey.maxPageSize', 'osprey.sessionMinutes', 'osprey.statementTimeoutMs', 'test.enabled', 'test.ratio', 'test.startup', 'test.token']);
        expect(await get('osprey.maxPageSize')).to.equal({ return: '500' });
        expect(await get('OSPREY.MAXPAGESIZE')).to.equal({ return: '500' });
    });

    test('getProperty answers the value as a string, the default while none is set, null without a default', async () => {

        expect(await get('mxe.adminEmail')).to.equal({ return: '' });
        expect(await get('test.startup')).to.equal({ return: '5' });
        expect(await get('test.enabled')).to.equal({ return: '0' });
        expect(await get('test.ratio')).to.equal({ return: null });
    });

    test('an undeclared property is a 404 naming it; a secret one is a 403, by getProperty and by getProperties', async () => {

        for (const name of ['mxe.db.url', '__proto__', 'constructor']) {
            expectError(await t.inject({ url: system('getProperty', `&propName=${name}`), headers: wilson }), 404, `No system property ${name} is declared`);
            expectError(await set(name, 'x'), 404, `No system property ${name} is declared`);
        }

        expectError(await t.inject({ url: system('getProperty', `&propName=${'p'.repeat(150)}`), headers: wilson }), 404, `No system property ${'p'.repeat(100)}… is declared`);

        expectError(await t.inject({ url: system('getProperty', '&propName=test.token'), headers: maxadmin }), 403, 'The system property test.token is secret');
        expectError(await t.inject({ url: system('getProperties', '&propNames=mxe.adminEmail,test.token'), headers: maxadmin }), 403, 'test.token is secret');
        expectError(await t.inject({ url: system('getProperty'), headers: wilson }), 400, 'The argument propName of system.getProperty is refused: "propName" is required');
    });

    test('getProperties answers the named values by name, and without names every value but the secret ones', async () => {

        const named = await t.inject({ url: system('getProperties', '&propNames=mxe.int.enableosauth, osprey.maxPageSize'), headers: wilson });
        expect(named.result).to.equal({ 'mxe.int.enableosauth': '1', 'osprey.maxPageSize': '500' });
        const listed = await t.inject({ method: 'POST', url: system('getProperties'), headers: wilson, payload: { propNames: ['test.startup'] } });
        expect(listed.result).to.equal({ 'test.startup': '5' });
        const all = (await t.inject({ url: system('getProperties'), headers: wilson })).result;
        expect(Object.keys(all)).to.equal(['mxe.adminEmail', 'mxe.int.enableosauth', 'osprey.maxAnswerRows', 'osprey.maxBody', 'osprey.maxPageSize', 'osprey.sessionMinutes', 'osprey.statementTimeoutMs', 'test.enabled', 'test.ratio', 'test.startup']);
        expect(JSON.stringify(all)).to.not.contain('hidden');
    });

    test('setProperty: administrators set a value, checked against the type; others are refused 403 and nothing is stored', async () => {

        const rows = () => t.server.app.osprey.knex('osprey_property').select('name', 'value', 'changeby').orderBy('name');
        expectError(await set('mxe.adminEmail', 'x@example.com', wilson), 403, 'The method setProperty of the service system is for administrators, and WILSON is not one.');
        expect(await rows()).to.equal([]);
        // Another site's page can make a browser send a GET or a body-less POST with the session cookie, unasked:
        // such a call sets nothing, told by Sec-Fetch-Site or by an Origin of another host.
        const query = `${system('setProperty')}&propName=mxe.adminEmail&propValue=evil%40example.com`;
        for (const [method, headers] of [['GET', { 'sec-fetch-site': 'cross-site' }], ['GET', { 'sec-fetch-site': 'same-site' }], ['POST', { origin: 'http://evil.example' }], ['POST', { 'sec-fetch-site': 'same-site' }]] as const) {
            expectError(await t.inject({ method, url: query, headers: { ...maxadmin, ...headers } }), 403, 'The action wsmethod:setProperty is not accepted from another site\'s page');
        }

        expect(await rows()).to.equal([]);

        const res = await set('mxe.adminEmail', 'admin@example.com');
        expect(res.statusCode).to.equal(200);
        expect(res.payload).to.equal('');
        expect(await get('mxe.adminEmail')).to.equal({ return: 'admin@example.com' });

        expect((await set('test.startup', '12')).statusCode).to.equal(200);
        expect((await set('test.ratio', 0.25)).statusCode).to.equal(200);
        expect((await set('test.enabled', 'true')).statusCode).to.equal(200);
        expect(await get('test.startup')).to.equal({ return: '12' });
        expect(await get('test.ratio')).to.equal({ return: '0.25' });
        expect(await get('test.enabled')).to.equal({ return: '1' });
        // The server reads each as its type, the secret one too.
        expect((await t.inject({ url: `${home}/service/calc?action=wsmethod:secretOf`, headers: maxadmin })).result).to.equal({ token: 'hidden-default', startup: 12, ratio: 0.25, enabled: true });

        // Numbers and booleans sent as JSON: as their text, where the type takes them.
        expect((await set('mxe.adminEmail', 5)).statusCode).to.equal(200);
        expect(await get('mxe.adminEmail')).to.equal({ return: '5' });
        expect((await set('mxe.adminEmail', true)).statusCode).to.equal(200);
        expect(await get('mxe.adminEmail')).to.equal({ return: 'true' });
        for (const [value, text] of [[0, '0'], [true, '1'], ['FALSE', '0'], [1, '1']] as const) {
            expect((await set('test.enabled', value)).statusCode).to.equal(200);
            expect(await get('test.enabled'), String(value)).to.equal({ return: text });
        }

        expect((await set('mxe.adminEmail', 'admin@example.com')).statusCode).to.equal(200);
        const refusals: [string, unknown, string][] = [
            ['test.startup', true, 'it is a whole number, not true'],
            ['test.ratio', false, 'it is a number, not false'],
            ['test.startup', 'twelve', 'test.startup is an integer property, and it is a whole number, not "twelve"'],
            ['test.startup', 1.5, 'it is a whole number, not 1.5'],
            ['test.ratio', 'x', 'test.ratio is a decimal property'],
            ['test.enabled', 'yes', 'it is 1 or 0 (true or false), not "yes"'],
            // Text both databases store as sent: PostgreSQL refuses NUL, and a lone surrogate is no character.
            ['mxe.adminEmail', 'a\u0000b', 'without NUL characters'],
            ['mxe.adminEmail', '\ud800x', 'lone surrogate']
        ];
        for (const [name, value, message] of refusals) {
            const refused = await set(name, value);
            expectError(refused, 400, 'The argument propValue of system.setProperty is refused', message);
            expect(refused.result.Error.errorattrname).to.equal('propValue');
        }

        expectError(await t.inject({ method: 'POST', url: system('setProperty'), headers: maxadmin, payload: { propName: 'mxe.adminEmail', propValue: 'a', serverName: 'SERVER1' } }), 400, 'The argument serverName', 'serverName is COMMON');
        expectError(await t.inject({ method: 'POST', url: system('setProperty'), headers: maxadmin, payload: { propName: 'mxe.adminEmail' } }), 400, '"propValue" is required');
        expectError(await t.inject({ method: 'POST', url: system('setProperty'), headers: maxadmin, payload: { propName: 'mxe.adminEmail', propValue: 'a', extra: 1 } }), 400, 'The argument extra');
        expect(await rows()).to.equal([
            { name: 'mxe.adminEmail', value: 'admin@example.com', changeby: 'MAXADMIN' },
            { name: 'test.enabled', value: '1', changeby: 'MAXADMIN' },
            { name: 'test.ratio', value: '0.25', changeby: 'MAXADMIN' },
            { name: 'test.startup', value: '12', changeby: 'MAXADMIN' }
        ]);

        // A secret can be set, and is still not answered.
        expect((await set('test.token', 'new-token')).statusCode).to.equal(200);
        expectError(await t.inject({ url: system('getProperty', '&propName=test.token'), headers: maxadmin }), 403, 'secret');
        expect((await t.inject({ url: `${home}/service/calc?action=wsmethod:secretOf`, headers: maxadmin })).result.token).to.equal('new-token');
    });

    test('liveRefreshProperty: 200 for a live property, 400 for one read at start, 403 to others, 404 undeclared', async () => {

        const refresh = (name: string, headers = maxadmin) => t.inject({ method: 'POST', url: system('liveRefreshProperty'), headers: { ...headers, 'x-method-override': 'PATCH' }, payload: { propName: name } });
        const res = await refresh('mxe.adminEmail');
        expect(res.statusCode).to.equal(200);
        expectError(await refresh('test.startup'), 400, 'The system property test.startup is not live');
        expectError(await refresh('mxe.adminEmail', wilson), 403, 'liveRefreshProperty');
        expectError(await refresh('no.such'), 404, 'No system property no.such');
    });
});

// A property set on one node is read by another at its very next request: both read osprey_property.
for (const database of testDatabases) {
    experiment(`system properties on every node (${database.name})`, { timeout: 60_000 }, () => {

        let a: TestServer;
        let b: TestServer;

        before(async () => {

            a = await startTestServer(database, { plugins: [plugin] });
            b = await startTestServer(database, { databaseUrl: a.options.databaseUrl, plugins: [plugin] });
        });

        after(async () => {

            await b?.stop();
            await a?.stop();
        });

        test('set on A, read on B at once; set again on B, read on A', async () => {

            const set = (node: TestServer, value: string) => node.inject({ method: 'POST', url: system('setProperty'), headers: maxadmin, payload: { propName: 'mxe.adminEmail', propValue: value } });
            const get = async (node: TestServer) => (await node.inject({ url: system('getProperty', '&propName=mxe.adminEmail'), headers: wilson })).result.return;

            expect(await get(b)).to.equal('');
            expect((await set(a, 'first@example.com')).statusCode).to.equal(200);
            expect(await get(b)).to.equal('first@example.com');
            expect((await set(b, 'second@example.com')).statusCode).to.equal(200);
            expect(await get(a)).to.equal('second@example.com');
            expect(await b.server.property('mxe.adminEmail')).to.equal('second@example.com');
        });
    });
}
