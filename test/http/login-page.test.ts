import * as Code from '@hapi/code';
import * as Lab from '@hapi/lab';
import { chromium } from 'playwright-core';

import { testDatabases } from '../helpers/databases';
import { onEachDatabase } from '../helpers/experiments';
import { dataDir, startProcess } from '../helpers/process';


const lab = exports.lab = Lab.script();
const { experiment, test } = lab;
const { expect } = Code;

// A browser opening an API address without a login gets a login page with the 401 (src/http/login-page.ts); its
// form logs in and goes back to the address. API clients, which never ask for HTML, keep Maximo's JSON error.

const html = { accept: 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8' };
const form = (fields: Record<string, string>) => new URLSearchParams(fields).toString();
const formHeaders = { ...html, 'content-type': 'application/x-www-form-urlencoded' };

onEachDatabase(lab, 'the login page', { settings: { loginAttempts: 3 } }, (t) => {

    test('a GET asking for HTML without a login is a 401 login page for that address; an API client gets the JSON', async () => {

        const page = await t.inject({ url: '/maximo/oslc/os/mxapiasset?oslc.pageSize=2&x=%22%3Cb%3E', headers: html });
        expect(page.statusCode).to.equal(401);
        expect(page.headers['content-type']).to.equal('text/html; charset=utf-8');
        expect(page.headers['www-authenticate']).to.equal('Form realm="Osprey"');
        expect(page.headers['content-security-policy']).to.equal('default-src \'none\'; style-src \'unsafe-inline\'; form-action \'self\'; frame-ancestors \'none\'; base-uri \'none\'');
        expect(page.payload).to.contain('<form method="post" action="/maximo/j_security_check">');
        // The address, escaped: the query's quote and angle bracket cannot end the attribute or open a tag.
        expect(page.payload).to.contain('value="/maximo/oslc/os/mxapiasset?oslc.pageSize=2&#38;x=%22%3Cb%3E"');

        const api = await t.inject({ url: '/maximo/oslc/os/mxapiasset', headers: { accept: 'application/json' } });
        expect(api.statusCode).to.equal(401);
        expect(api.result.Error.reasonCode).to.equal('BMXAA7901E');
        expect(api.headers['www-authenticate']).to.equal('Basic realm="Osprey", charset="UTF-8"');
        const post = await t.inject({ method: 'POST', url: '/maximo/oslc/os/mxapiasset', headers: html, payload: {} });
        expect(String(post.headers['content-type'])).to.startWith('application/json');
    });

    test('the form logs in and goes back (303 with the session cookie); a wrong password shows the page again; j_redirect stays on this server', async () => {

        const ok = await t.inject({ method: 'POST', url: '/maximo/j_security_check', headers: formHeaders, payload: form({ j_username: 'wilson', j_password: 'wilson', j_redirect: '/maximo/oslc/whoami' }) });
        expect(ok.statusCode).to.equal(303);
        expect(ok.headers.location).to.equal('/maximo/oslc/whoami');
        const cookie = String(ok.headers['set-cookie']).split(';')[0]!;
        const back = await t.inject({ url: '/maximo/oslc/whoami', headers: { ...html, cookie } });
        expect(back.result.userid).to.equal('WILSON');

        const wrong = await t.inject({ method: 'POST', url: '/maximo/j_security_check', headers: formHeaders, payload: form({ j_username: 'wilson', j_password: 'nope', j_redirect: '/maximo/oslc/whoami' }) });
        expect(wrong.statusCode).to.equal(401);
        expect(wrong.headers['www-authenticate']).to.not.exist();
        expect(wrong.payload).to.contain('<p class="failed" role="alert">You cannot log in at this time.');
        expect(wrong.payload).to.contain('name="j_redirect" value="/maximo/oslc/whoami"');

        // What a browser would resolve off this server or out of /maximo/, control and separator characters.
        for (const target of ['//evil.example/x', '/\\evil.example', 'https://evil.example/', '/other/x', '/maximo\\..\\x', '/maximo/a\nb', '/maximox', '/maximo/../evil', '/maximo/%2e%2e/evil', '/maximo/\u0085', '/maximo/\u2028', '', 'maximo/x']) {
            const refused = await t.inject({ method: 'POST', url: '/maximo/j_security_check', headers: formHeaders, payload: form({ j_username: 'wilson', j_password: 'wilson', j_redirect: target }) });
            expect(refused.statusCode, target).to.equal(400);
            expect(refused.headers.location).to.not.exist();
        }

        // A query holding // (a URL as a value) and characters beyond ASCII go back, percent-encoded.
        for (const [target, location] of [['/maximo/oslc/os/mxapiwodetail?oslc.where=description=%22http://x%22', '/maximo/oslc/os/mxapiwodetail?oslc.where=description=%22http://x%22'], ['/maximo/€/ã', '/maximo/%E2%82%AC/%C3%A3']]) {
            const returned = await t.inject({ method: 'POST', url: '/maximo/j_security_check', headers: formHeaders, payload: form({ j_username: 'wilson', j_password: 'wilson', j_redirect: target! }) });
            expect(returned.statusCode, target).to.equal(303);
            expect(returned.headers.location).to.equal(location);
        }

        // HEAD as GET; a locked-out form login is the page again, with why.
        const head = await t.inject({ method: 'HEAD', url: '/maximo/oslc/whoami', headers: html });
        expect(head.headers['content-type']).to.equal('text/html; charset=utf-8');

        const twice = await t.inject({ method: 'POST', url: '/maximo/j_security_check', headers: formHeaders, payload: 'j_username=wilson&j_password=wilson&j_redirect=/maximo/oslc&j_redirect=/maximo/api' });
        expect(twice.result.Error.message).to.contain('j_redirect once');

        // The clients' form login, without j_redirect, answers whoami as before.
        const client = await t.inject({ method: 'POST', url: '/maximo/j_security_check', headers: { 'content-type': 'application/x-www-form-urlencoded' }, payload: form({ j_username: 'wilson', j_password: 'wilson' }) });
        expect(client.statusCode).to.equal(200);
        expect(client.result.userid).to.equal('WILSON');
    });

    test('a form login locked out is the page again with why (429)', async () => {

        const attempt = () => t.inject({ method: 'POST', url: '/maximo/j_security_check', headers: formHeaders, payload: form({ j_username: 'smith', j_password: 'wrong', j_redirect: '/maximo/oslc/whoami' }) });
        for (let i = 0; i < 3; ++i) {
            expect((await attempt()).statusCode).to.equal(401);
        }

        const locked = await attempt();
        expect(locked.statusCode).to.equal(429);
        expect(locked.headers['content-type']).to.equal('text/html; charset=utf-8');
        expect(locked.headers['retry-after']).to.exist();
        expect(locked.payload).to.contain('<p class="failed" role="alert">');
    });
});

// In a real browser: the 401 page shows, its form logs in, and the browser lands on the JSON it first asked for.
experiment('the login page in Chromium', { timeout: 60_000 }, () => {

    test('opening a collection shows the page; logging in lands on the collection', async () => {

        const database = testDatabases[0]!;
        const created = await database.create();
        const server = await startProcess({ DATABASE_URL: created.url, OSPREY_DATA: dataDir() });
        const browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'] });
        try {
            const page = await browser.newPage();
            const url = `http://127.0.0.1:${server.port}/maximo/oslc/os/mxapiasset?oslc.select=assetnum&oslc.pageSize=2`;
            const first = await page.goto(url);
            expect(first!.status()).to.equal(401);
            expect(await page.title()).to.equal('Log in · Osprey');
            await page.fill('#u', 'wilson');
            await page.fill('#p', 'wilson');
            await Promise.all([page.waitForURL(url), page.click('button[type=submit]')]);
            const shown = JSON.parse(await page.locator('body').innerText());
            expect(shown.member).to.have.length(2);
            expect(shown.member[0].assetnum).to.be.a.string();
        }
        finally {
            await browser.close();
            await server.stop();
            await created.drop();
        }
    });
});
