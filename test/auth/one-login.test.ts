import * as Http from 'node:http';

import * as Code from '@hapi/code';
import type * as Hapi from '@hapi/hapi';
import * as Lab from '@hapi/lab';

import { onEachDatabase } from '../helpers/experiments';
import { maxadmin, wilson } from '../helpers/server';


const lab = exports.lab = Lab.script();
const { test, before, beforeEach } = lab;
const { expect } = Code;

// Issue 34, a hostile probe: one request logs in as one user, however its credentials are sent. Repeated header
// lines (Node joins most of them into one string, and keeps only the first Authorization), credential headers
// Osprey cannot read beside one it can, and a form login's own fields beside other credentials are all two logins.

const b64 = (text: string) => Buffer.from(text).toString('base64');
const basic = (user: string, password: string) => `Basic ${b64(`${user}:${password}`)}`;
const cookieOf = (res: Hapi.ServerInjectResponse) => String(res.raw.res.getHeader('set-cookie') ?? '').split(';')[0]!;

interface Answer {
    readonly status: number;
    readonly body: any;
}

// A request over a real connection, each [name, value] its own header line.
const send = (port: number, path: string, lines: [string, string][], options: { method?: string; body?: string } = {}): Promise<Answer> => new Promise((resolve, reject) => {

    const request = Http.request({ host: '127.0.0.1', port, path, method: options.method ?? 'GET' });
    const grouped = new Map<string, string[]>();
    for (const [name, value] of lines) {
        grouped.set(name, [...grouped.get(name) ?? [], value]);
    }

    for (const [name, values] of grouped) {
        request.setHeader(name, values.length === 1 ? values[0]! : values);
    }

    request.on('error', reject);
    request.on('response', (res) => {

        let text = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (text += chunk));
        res.on('end', () => resolve({ status: res.statusCode!, body: text ? JSON.parse(text) : undefined }));
    });
    request.end(options.body);
});

const expectTwoLogins = (answer: Answer | Hapi.ServerInjectResponse, what: string) => {

    const status = 'status' in answer ? answer.status : answer.statusCode;
    const body = 'status' in answer ? answer.body : answer.result;
    expect(status, what).to.equal(400);
    expect(body.Error.reasonCode, what).to.equal('BMXAA4153E');
    expect(body.Error.message, what).to.contain('one credential');
};

onEachDatabase(lab, 'one login per request', { settings: { port: 0, loginAttempts: 3 } }, (t) => {

    let port: number;
    let adminKey: string;
    let wilsonKey: string;

    before(async () => {

        await t.server.start();
        port = t.server.info.port as number;
        adminKey = (await t.inject({ method: 'POST', url: '/maximo/oslc/apitoken/get', headers: maxadmin })).result.apikey;
        wilsonKey = (await t.inject({ method: 'POST', url: '/maximo/oslc/apitoken/get', headers: wilson })).result.apikey;
    });

    // Each test's failures are its own.
    beforeEach(() => t.server.app.osprey.knex('osprey_loginfailure').delete());

    const failures = async () => (await t.server.app.osprey.knex('osprey_loginfailure').select('name', 'failures')).length;

    test('repeated maxauth, Authorization and apikey lines of two logins are a 400; the same line twice is one login', async () => {

        const refusals: [string, [string, string][]][] = [
            ['two maxauth lines', [['maxauth', b64('wilson:wilson')], ['maxauth', b64('maxadmin:maxadmin')]]],
            ['two Basic lines', [['authorization', basic('wilson', 'wilson')], ['authorization', basic('maxadmin', 'maxadmin')]]],
            ['two apikey lines', [['apikey', wilsonKey], ['apikey', adminKey]]],
            ['an apikey line and a wrong one', [['apikey', wilsonKey], ['apikey', 'not-a-key']]],
            ['two session cookie lines', [['cookie', cookieOf(await t.inject({ url: '/maximo/oslc/whoami', headers: wilson }))], ['cookie', cookieOf(await t.inject({ url: '/maximo/oslc/whoami', headers: maxadmin }))]]]
        ];
        for (const [what, lines] of refusals) {
            expectTwoLogins(await send(port, '/maximo/oslc/whoami', lines), what);
        }

        // None of them was a failed login: nothing counted against the address.
        expect(await failures()).to.equal(0);

        const same: [string, [string, string][]][] = [
            ['maxauth', [['maxauth', b64('wilson:wilson')], ['maxauth', b64('wilson:wilson')]]],
            ['authorization', [['authorization', basic('wilson', 'wilson')], ['authorization', basic('WILSON', 'wilson')]]],
            ['apikey', [['apikey', wilsonKey], ['apikey', wilsonKey]]]
        ];
        for (const [what, lines] of same) {
            const answer = await send(port, '/maximo/oslc/whoami', lines);
            expect(answer.status, what).to.equal(200);
            expect(answer.body.userName, what).to.equal('WILSON');
        }
    });

    test('a credential header Osprey cannot read or does not carry out is a 400 beside another credential, a 401 alone', async () => {

        const unread = [
            { authorization: `${basic('maxadmin', 'maxadmin')} x` },
            { authorization: 'Basic' },
            { authorization: 'Bearer abc' },
            { authorization: 'Negotiate abc' },
            { maxauth: 'not base64!' },
            { maxauth: b64('no-colon') }
        ];
        for (const headers of unread) {
            const what = JSON.stringify(headers);
            // Beside the maxauth of WILSON (or beside a Basic of WILSON, for an unreadable maxauth), an API key, a session.
            const beside = 'maxauth' in headers ? { authorization: basic('wilson', 'wilson') } : wilson;
            expectTwoLogins(await t.inject({ url: '/maximo/oslc/whoami', headers: { ...beside, ...headers } }), `${what} beside a password`);
            expectTwoLogins(await t.inject({ url: '/maximo/oslc/whoami', headers: { apikey: wilsonKey, ...headers } }), `${what} beside a key`);
            const alone = await t.inject({ url: '/maximo/oslc/whoami', headers });
            expect(alone.statusCode, `${what} alone`).to.equal(401);
            expect(alone.result.Error.reasonCode).to.equal('BMXAA7901E');
        }

        // A maxauth line joined from two (as a proxy may pass them on) names no login, rather than its first.
        const joined = { maxauth: `${b64('wilson:wilson')}, ${b64('maxadmin:maxadmin')}` };
        expect((await t.inject({ url: '/maximo/oslc/whoami', headers: joined })).statusCode).to.equal(401);
        expectTwoLogins(await t.inject({ url: '/maximo/oslc/whoami', headers: { ...joined, apikey: wilsonKey } }), 'joined maxauth beside a key');
        expect(await failures()).to.equal(0);

        // An empty line carries nothing, as an absent header.
        expect((await t.inject({ url: '/maximo/oslc/whoami', headers: { apikey: wilsonKey, maxauth: '', authorization: ' ' } })).result.userName).to.equal('WILSON');

        // Base64 as clients send it still logs in: padded, unpadded, with spaces around.
        for (const value of [b64('wilson:wilson'), b64('wilson:wilson').replace(/=+$/, ''), ` ${b64('wilson:wilson')} `]) {
            expect((await t.inject({ url: '/maximo/oslc/whoami', headers: { maxauth: value } })).result.userName).to.equal('WILSON');
        }
    });

    test('a form login beside any other login is a 400, whatever carries it; beside the same login it logs in', async () => {

        const adminSession = cookieOf(await t.inject({ url: '/maximo/oslc/whoami', headers: maxadmin }));
        expect((await t.inject({ url: '/maximo/oslc/whoami', headers: { cookie: adminSession } })).statusCode).to.equal(200);
        const form = 'j_username=wilson&j_password=wilson';
        const refusals: [string, [string, string][], string][] = [
            ['a live session of MAXADMIN', [['cookie', adminSession]], form],
            ['maxauth of WILSON and Basic of MAXADMIN', [['maxauth', b64('wilson:wilson')], ['authorization', basic('maxadmin', 'maxadmin')]], form],
            ['two maxauth lines', [['maxauth', b64('wilson:wilson')], ['maxauth', b64('maxadmin:maxadmin')]], form],
            ['maxauth of wılson (dotless ı)', [['maxauth', b64('wılson:wilson')]], form],
            ['maxauth of wilſon (long s)', [['maxauth', b64('wilſon:wilson')]], form],
            ['Basic of another password', [['authorization', basic('wilson', 'other')]], form],
            ['a Bearer token', [['authorization', 'Bearer abc']], form]
        ];
        for (const [what, lines, body] of refusals) {
            const answer = await send(port, '/maximo/j_security_check', [['content-type', 'application/x-www-form-urlencoded'], ...lines], { method: 'POST', body });
            expectTwoLogins(answer, what);
        }

        // An API key is refused on a form login before it (src/http/parameters.ts), as the query parameter is.
        expect((await send(port, '/maximo/j_security_check', [['content-type', 'application/x-www-form-urlencoded'], ['apikey', wilsonKey]], { method: 'POST', body: form })).status).to.equal(400);

        // Two j_username (or j_password) fields: only one would be read.
        for (const body of ['j_username=wilson&j_username=maxadmin&j_password=wilson', 'j_username=wilson&j_password=wilson&j_password=maxadmin', 'j_username=wilson&j_username=wilson&j_password=wilson']) {
            const answer = await send(port, '/maximo/j_security_check', [['content-type', 'application/x-www-form-urlencoded']], { method: 'POST', body });
            expect(answer.status, body).to.equal(400);
            expect(answer.body.Error.message, body).to.contain('once each');
        }

        expect(await failures()).to.equal(0);

        // The npm client's LDAP_FORM login: the form and its own Basic header; a session of the same user too.
        const wilsonSession = cookieOf(await t.inject({ url: '/maximo/oslc/whoami', headers: wilson }));
        for (const lines of [[['authorization', basic('WILSON', 'wilson')]], [['cookie', wilsonSession]], []] as [string, string][][]) {
            const answer = await send(port, '/maximo/j_security_check', [['content-type', 'application/x-www-form-urlencoded'], ...lines], { method: 'POST', body: form });
            expect(answer.status, JSON.stringify(lines)).to.equal(200);
            expect(answer.body.userName).to.equal('WILSON');
        }
    });

    test('lifting the lock of a user or an address holding a NUL is a 404', async () => {

        for (const kind of ['users', 'addresses']) {
            const res = await t.inject({ method: 'DELETE', url: `/maximo/oslc/loginlocks/${kind}/%00`, headers: maxadmin });
            expect(res.statusCode, kind).to.equal(404);
            expect(res.result.Error.message).to.contain('no login lock');
        }
    });

    test('a locked address refuses passwords and wrong API keys; an administrator\'s right key still lifts the lock', async () => {

        const from = { remoteAddress: '10.9.8.7' };
        // The address limit is five times the user limit of 3; wrong keys count against the address alone.
        for (let i = 0; i < 15; ++i) {
            expect((await t.inject({ url: '/maximo/oslc/whoami', headers: { apikey: `wrong-${i}` }, ...from })).statusCode).to.equal(401);
        }

        expect((await t.inject({ url: '/maximo/oslc/whoami', headers: { apikey: 'wrong-again' }, ...from })).statusCode).to.equal(429);
        expect((await t.inject({ url: '/maximo/oslc/whoami', headers: maxadmin, ...from })).statusCode).to.equal(429);
        const counted = await t.server.app.osprey.knex('osprey_loginfailure').select('name', 'failures');
        expect(counted).to.equal([{ name: 'address:10.9.8.7', failures: 15 }]);

        // A right key is no guess: it logs in, counting nothing, and its administrator lifts the lock.
        expect((await t.inject({ url: '/maximo/oslc/whoami', headers: { apikey: wilsonKey }, ...from })).result.userName).to.equal('WILSON');
        expect(await t.server.app.osprey.knex('osprey_loginfailure').select('name', 'failures')).to.equal(counted);
        expect((await t.inject({ method: 'DELETE', url: '/maximo/oslc/loginlocks/addresses/10.9.8.7', headers: { apikey: wilsonKey }, ...from })).statusCode).to.equal(403);
        expect((await t.inject({ method: 'DELETE', url: '/maximo/oslc/loginlocks/addresses/10.9.8.7', headers: { apikey: adminKey }, ...from })).statusCode).to.equal(204);
        expect(await failures()).to.equal(0);
        expect((await t.inject({ url: '/maximo/oslc/whoami', headers: maxadmin, ...from })).statusCode).to.equal(200);
    });
});
