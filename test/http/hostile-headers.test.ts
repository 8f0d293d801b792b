import * as Code from '@hapi/code';
import * as Lab from '@hapi/lab';

import { onEachDatabase } from '../helpers/experiments';
import { maxadmin, wilson } from '../helpers/server';


const lab = exports.lab = Lab.script();
const { test } = lab;
const { expect } = Code;

// Issue 18, seen 9: what a hostile client or page can put in headers and bodies, and what it must not get.

const home = '/maximo/oslc';
const wos = `${home}/os/mxapiwodetail`;

onEachDatabase(lab, 'hostile headers and bodies', { settings: { publicOrigins: ['http://127.0.0.1:8080', 'https://eam.example.com'] } }, (t) => {

    const count = async () => (await t.inject({ url: `${wos}?count=1`, headers: maxadmin })).result.totalCount as number;

    test('a Host or x-public-uri outside the public origins never reaches an href or Location', async () => {

        const href = async (headers: Record<string, string>) => (await t.inject({ url: `${home}/whoami`, headers: { ...wilson, ...headers } })).result.href as string;
        const malformed = await t.inject({ url: `${home}/whoami`, headers: { ...wilson, host: 'h"><script>alert(1)</script>' } });
        expect(malformed.statusCode).to.equal(400);
        expect(malformed.payload).to.not.contain('<script>');
        expect(malformed.result.Error.message).to.contain('Host');
        // Refused by the first step of the request, it still carries the id its log line has, and the security headers.
        expect(malformed.headers['x-request-id']).to.match(/^[0-9a-f-]{36}$/);
        expect(malformed.headers['x-content-type-options']).to.equal('nosniff');
        expect(await href({ host: 'evil.example.com' })).to.equal('http://127.0.0.1:8080/maximo/oslc/whoami');
        expect(await href({ 'x-public-uri': 'http://h"><script>alert(1)</script>' })).to.equal('http://127.0.0.1:8080/maximo/oslc/whoami');
        expect(await href({ 'x-public-uri': 'https://evil.example.com/maximo/oslc' })).to.equal('http://127.0.0.1:8080/maximo/oslc/whoami');
        expect(await href({ 'x-public-uri': 'https://eam.example.com/maximo/oslc' })).to.equal('https://eam.example.com/maximo/oslc/whoami');
        expect(await href({ host: 'eam.example.com', 'x-forwarded-proto': 'https' })).to.equal('http://127.0.0.1:8080/maximo/oslc/whoami');
        // A Host outside the public origins does not make an x-public-uri of its own origin count.
        expect(await href({ host: 'evil.example.com', 'x-public-uri': 'http://evil.example.com/maximo/oslc' })).to.equal('http://127.0.0.1:8080/maximo/oslc/whoami');
        for (const host of ['a:99999', '[:::::]', '[1.2.3.4]']) {
            const res = await t.inject({ url: `${home}/whoami`, headers: { ...wilson, host } });
            expect(res.statusCode, host).to.equal(400);
        }

        const created = await t.inject({ method: 'POST', url: wos, headers: { ...maxadmin, 'x-public-uri': 'https://evil.example.com' }, payload: { siteid: 'BEDFORD', description: 'hostile origin' } });
        expect(created.statusCode).to.equal(201);
        expect(String(created.headers.location)).to.startWith('http://127.0.0.1:8080/maximo/oslc/os/mxapiwodetail/');
    });

    test('every answer says nosniff and carries a content security policy, errors and reports too', async () => {

        const answers = [
            await t.inject({ url: `${home}/whoami`, headers: wilson }),
            await t.inject({ url: `${home}/whoami` }),
            await t.inject({ url: `${wos}?oslc.where=bad bad`, headers: wilson }),
            await t.inject({ url: '/maximo/health' }),
            await t.inject({ url: `${wos}?action=genreport&reportname=woprint.rptdesign&reportformat=csv`, headers: wilson })
        ];
        expect(answers.map((res) => res.statusCode)).to.equal([200, 401, 400, 200, 200]);
        for (const res of answers) {
            expect(res.headers['x-content-type-options']).to.equal('nosniff');
            expect(res.headers['content-security-policy']).to.equal('default-src \'none\'; frame-ancestors \'none\'; base-uri \'none\'; form-action \'none\'');
        }

        // A PDF keeps the frame rule only, so the browser's viewer can show it.
        const pdf = await t.inject({ url: `${wos}?action=genreport&reportname=woprint.rptdesign&reportformat=pdf`, headers: wilson });
        expect(pdf.statusCode).to.equal(200);
        expect(pdf.headers['x-content-type-options']).to.equal('nosniff');
        expect(pdf.headers['content-security-policy']).to.equal('frame-ancestors \'none\'');
    });

    test('writes take JSON only: a form or text body is a 415 and writes nothing', async () => {

        const before = await count();
        const wo = (await t.inject({ url: `${wos}?oslc.pageSize=1`, headers: maxadmin })).result.member[0].href.replace('http://127.0.0.1:8080', '');
        const sends = [
            { method: 'POST', url: wos, payload: 'siteid=BEDFORD&description=forged', type: 'application/x-www-form-urlencoded', use: 'a create' },
            { method: 'POST', url: wos, payload: '{"siteid":"BEDFORD","description":"forged"}', type: 'text/plain', use: 'a create' },
            { method: 'POST', url: wos, payload: '[{"siteid":"BEDFORD"}]', type: 'text/plain', use: 'a bulk', override: 'BULK' },
            { method: 'POST', url: wo, payload: '{"description":"forged"}', type: 'text/plain', use: 'a record update', override: 'PATCH' },
            { method: 'POST', url: wos, payload: 'x', type: 'multipart/form-data; boundary=x', use: 'a create' },
            { method: 'POST', url: `${home}/apitoken/create`, payload: 'expiration=-1', type: 'application/x-www-form-urlencoded', use: 'an API token request' }
        ];
        for (const send of sends) {
            const res = await t.inject({ method: send.method, url: send.url, payload: send.payload, headers: { ...wilson, 'content-type': send.type, ...send.override ? { 'x-method-override': send.override } : {} } });
            expect(res.statusCode, send.type).to.equal(415);
            expect(res.result.Error.reasonCode).to.equal('BMXAA1721E');
            // hapi refuses multipart itself (it parses no multipart here), with the catalog's message.
            if (!send.type.startsWith('multipart')) {
                expect(res.result.Error.message).to.contain(send.use);
                expect(res.result.Error.message).to.contain(send.type);
            }
        }

        expect(await count()).to.equal(before);
        const after = await t.inject({ url: wo, headers: maxadmin });
        expect(after.result.description).to.not.equal('forged');
        const json = await t.inject({ method: 'POST', url: wos, payload: { siteid: 'BEDFORD', description: 'json' }, headers: { ...wilson, 'content-type': 'application/merge-patch+json' } });
        expect(json.statusCode).to.equal(201);
        expect(await count()).to.equal(before + 1);
    });

    test('logout is a POST; a GET stays for the Maximo clients, but not from another site', async () => {

        const login = await t.inject({ url: `${home}/login`, headers: wilson });
        const cookie = String(login.headers['set-cookie']).split(';')[0]!;
        expect((await t.inject({ url: `${home}/whoami`, headers: { cookie } })).statusCode).to.equal(200);

        const crossSite = await t.inject({ url: '/maximo/logout', headers: { cookie, 'sec-fetch-site': 'cross-site' } });
        expect(crossSite.statusCode).to.equal(403);
        const otherOrigin = await t.inject({ url: `${home}/logout`, headers: { cookie, origin: 'https://evil.example.com' } });
        expect(otherOrigin.statusCode).to.equal(403);
        expect((await t.inject({ url: `${home}/whoami`, headers: { cookie } })).statusCode).to.equal(200);

        expect((await t.inject({ method: 'POST', url: '/maximo/logout', headers: { cookie } })).statusCode).to.equal(200);
        expect((await t.inject({ url: `${home}/whoami`, headers: { cookie } })).statusCode).to.equal(401);

        const again = String((await t.inject({ url: `${home}/login`, headers: wilson })).headers['set-cookie']).split(';')[0]!;
        expect((await t.inject({ method: 'POST', url: `${home}/logout`, headers: { cookie: again } })).statusCode).to.equal(200);
        expect((await t.inject({ url: `${home}/whoami`, headers: { cookie: again } })).statusCode).to.equal(401);
    });
});
