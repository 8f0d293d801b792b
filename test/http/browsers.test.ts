import * as Code from '@hapi/code';
import * as Lab from '@hapi/lab';

import { validateOptions } from '../../src/config';
import { basicChallenge } from '../../src/errors/edge';
import { corsRequestHeaders } from '../../src/http/cors';
import { requestHeaders } from '../../src/http/parameters';
import { testDatabases } from '../helpers/databases';
import { onEachDatabase } from '../helpers/experiments';
import { maxadmin, startTestServer, wilson, type TestServer } from '../helpers/server';


const lab = exports.lab = Lab.script();
const { after, before, experiment, test } = lab;
const { expect } = Code;

// Issue 37, "Browsers and proxies": CORS for the configured origins with a preflight, WWW-Authenticate on a 401,
// and X-Forwarded-Proto/-Host behind a trusted proxy.

const home = '/maximo/oslc';
const wos = `${home}/os/mxapiwodetail`;
const app = 'https://app.example.com';
const bedford = `${wos}/_QkVERk9SRC8xMDAw`;

const preflight = (t: TestServer, url: string, method: string, headers: Record<string, string> = {}, origin = app) => {

    return t.inject({ method: 'OPTIONS', url, headers: { origin, 'access-control-request-method': method, ...headers } });
};

const allowHeaders = (res: { headers: Record<string, unknown> }) => String(res.headers['access-control-allow-headers']).split(', ');

onEachDatabase(lab, 'a web page on a configured origin', { settings: { corsOrigins: [app, 'http://localhost:3000'] } }, (t) => {

    test('a preflight is answered 204 with the origin, methods, headers and how long to keep it, before any login', async () => {

        const res = await preflight(t, wos, 'POST', { 'access-control-request-headers': 'maxauth, Content-Type, properties, x-method-override, patchtype, transactionid' });
        expect(res.statusCode).to.equal(204);
        expect(res.payload).to.equal('');
        expect(res.headers['access-control-allow-origin']).to.equal(app);
        expect(res.headers['access-control-allow-credentials']).to.equal('true');
        expect(String(res.headers['access-control-allow-methods']).split(', ')).to.equal(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE']);
        expect(res.headers['access-control-max-age']).to.equal('600');
        expect(String(res.headers.vary)).to.contain('origin');
        expect(res.headers['x-request-id']).to.match(/^[0-9a-f-]{36}$/);
        expect(res.headers['set-cookie']).to.not.exist();
        // Every header of the parameter table a page can set, the transport headers Osprey reads.
        const allowed = allowHeaders(res);
        for (const known of requestHeaders.filter((entry) => entry.name !== 'cookie')) {
            expect(allowed, known.name).to.include(known.name);
        }

        expect(allowed).to.include(['maxauth', 'apikey', 'authorization', 'x-method-override', 'patchtype', 'properties', 'transactionid', 'x-public-uri', 'slug', 'x-document-meta', 'x-document-description', 'encslug', 'custom-encoding', 'content-location', 'if-match', 'range', 'content-type', 'accept']);
        expect(allowed).to.not.include('cookie');
    });

    test('a preflight asking for every header a page may send passes, on every kind of route (those of any method too)', async () => {

        const all = corsRequestHeaders.join(', ');
        const asked: [string, string][] = [
            [wos, 'GET'], [bedford, 'PATCH'], [bedford, 'DELETE'], [`${bedford}/doclinks`, 'POST'], [`${bedford}/doclinks/1`, 'DELETE'],
            [`${home}/service/system?action=wsmethod:getProperties`, 'POST'], [`${home}/whoami`, 'GET'], [`${home}/login`, 'POST'], ['/maximo/health', 'GET'],
            [`${home}/nosuchthing`, 'GET']
        ];
        for (const [url, method] of asked) {
            const res = await preflight(t, url, method, { 'access-control-request-headers': all });
            expect(res.statusCode, `${method} ${url}`).to.equal(204);
            expect(res.headers['access-control-allow-origin']).to.equal(app);
        }
    });

    test('a preflight from an origin not listed, or asking what is not served, is a Maximo error without the allow headers', async () => {

        const other = await preflight(t, wos, 'POST', {}, 'https://evil.example.com');
        expect(other.statusCode).to.equal(403);
        expect(other.result.Error.reasonCode).to.equal('BMXAA9301E');
        expect(other.result.Error.message).to.contain('https://evil.example.com is not one of OSPREY_CORS_ORIGINS');
        for (const name of ['access-control-allow-origin', 'access-control-allow-methods', 'access-control-allow-headers', 'access-control-allow-credentials']) {
            expect(other.headers[name], name).to.not.exist();
        }

        const header = await preflight(t, wos, 'POST', { 'access-control-request-headers': 'maxauth, x-foo' });
        expect(header.statusCode).to.equal(403);
        expect(header.result.Error.message).to.contain('the header x-foo:');
        expect(header.headers['access-control-allow-headers']).to.not.exist();

        const lower = await preflight(t, bedford, 'patch');
        expect(lower.statusCode).to.equal(405);
        expect(lower.result.Error.message).to.contain('in capitals');
        expect(lower.headers['access-control-allow-methods']).to.not.exist();

        // A plugin's route may keep other origins out, and a plugin's own OPTIONS route answers for itself.
        t.server.route({ method: 'GET', path: '/maximo/oslc/no-pages', options: { cors: false, handler: () => 'no' } });
        t.server.route({ method: 'OPTIONS', path: '/maximo/oslc/own-options', options: { auth: false, handler: () => 'mine' } });
        const closed = await preflight(t, '/maximo/oslc/no-pages', 'GET');
        expect(closed.statusCode).to.equal(403);
        expect(closed.result.Error.message).to.contain('answers no page on another origin');
        expect((await preflight(t, '/maximo/oslc/own-options', 'GET')).payload).to.equal('mine');

        for (const headers of [{ origin: app }, { 'access-control-request-method': 'GET' }, {}]) {
            const plain = await t.inject({ method: 'OPTIONS', url: wos, headers });
            expect(plain.statusCode).to.equal(405);
            expect(plain.result.Error.reasonCode).to.equal('BMXAA1722E');
            expect(plain.result.Error.message).to.contain('Origin and Access-Control-Request-Method');
        }
    });

    test('answers carry the origin, credentials and the headers a page may read, errors too; other origins get none', async () => {

        const read = await t.inject({ url: `${wos}?oslc.pageSize=1`, headers: { ...wilson, origin: app } });
        expect(read.statusCode).to.equal(200);
        expect(read.headers['access-control-allow-origin']).to.equal(app);
        expect(read.headers['access-control-allow-credentials']).to.equal('true');
        expect(String(read.headers['access-control-expose-headers']).split(',')).to.include(['location', 'etag', 'content-disposition', 'content-range', 'x-request-id', 'www-authenticate']);
        expect(String(read.headers.vary)).to.contain('origin');

        const created = await t.inject({ method: 'POST', url: wos, headers: { ...maxadmin, origin: 'http://localhost:3000', 'content-type': 'application/json' }, payload: { siteid: 'BEDFORD', description: 'from a page' } });
        expect(created.statusCode).to.equal(201);
        expect(created.headers['access-control-allow-origin']).to.equal('http://localhost:3000');
        expect(created.headers.location).to.exist();

        const unknown = await t.inject({ url: `${home}/nosuchthing`, headers: { ...wilson, origin: app } });
        expect(unknown.statusCode).to.equal(404);
        expect(unknown.headers['access-control-allow-origin']).to.equal(app);

        const refused = await t.inject({ url: `${home}/whoami`, headers: { origin: app } });
        expect(refused.statusCode).to.equal(401);
        expect(refused.headers['access-control-allow-origin']).to.equal(app);
        expect(refused.headers['www-authenticate']).to.equal(basicChallenge);

        const other = await t.inject({ url: `${home}/whoami`, headers: { ...wilson, origin: 'https://evil.example.com' } });
        expect(other.statusCode).to.equal(200);
        expect(other.headers['access-control-allow-origin']).to.not.exist();
        expect(other.headers['access-control-allow-credentials']).to.not.exist();
    });

    test('a page on a listed origin may log in by form and log out; another site\'s page still may not', async () => {

        const form = (origin: string) => t.inject({ method: 'POST', url: '/maximo/j_security_check', headers: { origin, 'sec-fetch-site': 'cross-site', 'content-type': 'application/x-www-form-urlencoded' }, payload: 'j_username=wilson&j_password=wilson' });
        const login = await form(app);
        expect(login.statusCode).to.equal(200);
        expect(login.headers['access-control-allow-origin']).to.equal(app);
        expect((await form('https://evil.example.com')).statusCode).to.equal(403);

        const cookie = String(login.headers['set-cookie']).split(';')[0]!;
        expect((await t.inject({ method: 'POST', url: `${home}/logout`, headers: { cookie, origin: 'https://evil.example.com', 'sec-fetch-site': 'cross-site' } })).statusCode).to.equal(403);
        expect((await t.inject({ method: 'POST', url: `${home}/logout`, headers: { cookie, origin: app, 'sec-fetch-site': 'cross-site' } })).statusCode).to.be.below(300);
        expect((await t.inject({ url: `${home}/whoami`, headers: { cookie } })).statusCode).to.equal(401);
    });

    test('the cross-site rule is kept before every handler: writes, a login by GET, a plugin\'s routes; GET reads stay open', async () => {

        const evil = { origin: 'https://evil.example.com', 'sec-fetch-site': 'cross-site' };
        const sameSite = { 'sec-fetch-site': 'same-site' };
        const count = async () => Number((await t.server.app.osprey.knex('workorder').count({ n: '*' }))[0]!.n);
        const counted = await count();
        const write = { method: 'POST', url: `${home}/os/mxapiwodetail`, payload: { siteid: 'BEDFORD', description: 'From another site' } };
        for (const headers of [evil, sameSite, { origin: 'null' }, { origin: 'https://evil.example.com' }]) {
            const res = await t.inject({ ...write, headers: { ...wilson, ...headers } });
            expect(res.statusCode, JSON.stringify(headers)).to.equal(403);
            expect(res.result.Error.message).to.contain('A POST of /maximo/oslc/os/mxapiwodetail is not accepted from another site\'s page');
        }

        expect(await count()).to.equal(counted);
        expect((await t.inject({ ...write, headers: { ...wilson, origin: app, 'sec-fetch-site': 'cross-site' } })).statusCode).to.equal(201);
        expect((await t.inject({ ...write, headers: { ...wilson, 'sec-fetch-site': 'same-origin' } })).statusCode).to.equal(201);
        expect(await count()).to.equal(counted + 2);

        // A login by GET with _lid/_lpwd in a link would log the browser in as someone else.
        const linked = await t.inject({ url: `${home}/login?_lid=wilson&_lpwd=wilson`, headers: evil });
        expect(linked.statusCode).to.equal(403);
        expect(linked.result.Error.message).to.contain('A login is not accepted');
        expect(linked.headers['set-cookie']).to.not.exist();
        // Nor does a read by such a link leave a session behind (it is answered, as the link's user, and no more).
        const read = await t.inject({ url: `${home}/os/mxapiwodetail?oslc.pageSize=1&_lid=wilson&_lpwd=wilson`, headers: evil });
        expect(read.statusCode).to.equal(200);
        expect(read.headers['set-cookie']).to.not.exist();
        expect((await t.inject({ url: `${home}/os/mxapiwodetail?oslc.pageSize=1&_lid=wilson&_lpwd=wilson` })).headers['set-cookie']).to.exist();

        // A plugin's route that changes state, with no rule of its own.
        t.server.route({ method: 'POST', path: '/plugin/touch', options: { auth: false, handler: () => ({ touched: true }) } });
        t.server.route({ method: 'GET', path: '/plugin/read', options: { auth: false, handler: () => ({ read: true }) } });
        t.server.route({ method: 'GET', path: '/plugin/reset', options: { auth: false, app: { crossSite: 'A reset' }, handler: () => ({ reset: true }) } });
        expect((await t.inject({ method: 'POST', url: '/plugin/touch', headers: evil })).statusCode).to.equal(403);
        expect((await t.inject({ method: 'POST', url: '/plugin/touch' })).result).to.equal({ touched: true });
        expect((await t.inject({ url: '/plugin/read', headers: evil })).result).to.equal({ read: true });
        const reset = await t.inject({ url: '/plugin/reset', headers: evil });
        expect(reset.statusCode).to.equal(403);
        expect(reset.result.Error.message).to.contain('A reset is not accepted');
        expect((await t.inject({ url: `${home}/os/mxapiwodetail?oslc.pageSize=1`, headers: { ...wilson, ...evil } })).statusCode).to.equal(200);
    });
});

experiment('browsers and proxies, one SQLite server each', () => {

    const servers: TestServer[] = [];
    const start = async (settings: Parameters<typeof startTestServer>[1]) => {

        const server = await startTestServer(testDatabases[0]!, settings);
        servers.push(server);
        return server;
    };

    let plain: TestServer;
    let anyPage: TestServer;
    let proxied: TestServer;
    let openProxy: TestServer;
    before(async () => {

        plain = await start({});
        anyPage = await start({ corsOrigins: '*' });
        proxied = await start({ trustProxy: 1, publicOrigins: 'http://127.0.0.1:8080,https://eam.example.com' });
        openProxy = await start({ trustProxy: 2 });
    });

    after(async () => {

        for (const server of servers) {
            await server.stop();
        }
    });

    test('without CORS an OPTIONS is a 405 naming OPTIONS and the setting, wherever it goes, and answers carry no CORS headers', async () => {

        for (const url of [wos, bedford, `${bedford}/doclinks`, `${home}/service/system`, `${home}/nosuchthing`, '/maximo/health']) {
            for (const headers of [{}, { origin: app, 'access-control-request-method': 'POST' }]) {
                const res = await plain.inject({ method: 'OPTIONS', url, headers });
                expect(res.statusCode, url).to.equal(405);
                expect(res.result.Error.reasonCode).to.equal('BMXAA1722E');
                expect(res.result.Error.message).to.contain('OPTIONS').and.to.contain('OSPREY_CORS_ORIGINS');
                expect(res.headers['access-control-allow-origin']).to.not.exist();
            }
        }

        const read = await plain.inject({ url: `${home}/whoami`, headers: { ...wilson, origin: app } });
        expect(read.statusCode).to.equal(200);
        expect(Object.keys(read.headers).filter((name) => name.startsWith('access-control-'))).to.equal([]);
    });

    test('* answers any page (naming its origin), never with credentials', async () => {

        const res = await preflight(anyPage, wos, 'GET', { 'access-control-request-headers': 'apikey' }, 'https://anywhere.example.org');
        expect(res.statusCode).to.equal(204);
        expect(res.headers['access-control-allow-origin']).to.equal('https://anywhere.example.org');
        expect(res.headers['access-control-allow-credentials']).to.not.exist();
        const read = await anyPage.inject({ url: `${home}/whoami`, headers: { ...wilson, origin: 'https://anywhere.example.org' } });
        expect(read.headers['access-control-allow-origin']).to.equal('https://anywhere.example.org');
        expect(read.headers['access-control-allow-credentials']).to.not.exist();
        // Nor does * let another site's page log in by form.
        const form = await anyPage.inject({ method: 'POST', url: '/maximo/j_security_check', headers: { origin: 'https://anywhere.example.org', 'content-type': 'application/x-www-form-urlencoded' }, payload: 'j_username=wilson&j_password=wilson' });
        expect(form.statusCode).to.equal(403);
    });

    test('the setting takes origins, or * alone', () => {

        expect(validateOptions({ corsOrigins: 'https://App.example.com/, http://localhost:3000' }).corsOrigins).to.equal(['https://app.example.com', 'http://localhost:3000']);
        expect(validateOptions({}).corsOrigins).to.equal([]);
        expect(() => validateOptions({ corsOrigins: '*,https://app.example.com' })).to.throw(/corsOrigins.*\* \(any origin\) stands alone/);
        expect(() => validateOptions({ corsOrigins: 'app.example.com' })).to.throw(/"app.example.com", which is not an origin/);
        expect(() => validateOptions({ corsOrigins: 'https://app.example.com/path' })).to.throw(/not an origin/);
    });

    test('a 401 asks for Basic credentials, save a form login\'s', async () => {

        const none = await plain.inject({ url: `${home}/whoami` });
        expect(none.statusCode).to.equal(401);
        expect(none.headers['www-authenticate']).to.equal('Basic realm="Osprey", charset="UTF-8"');
        const wrong = await plain.inject({ url: `${wos}?oslc.pageSize=1`, headers: { authorization: `Basic ${Buffer.from('wilson:nope').toString('base64')}` } });
        expect(wrong.statusCode).to.equal(401);
        expect(wrong.headers['www-authenticate']).to.equal(basicChallenge);
        const key = await plain.inject({ url: `${home}/whoami`, headers: { apikey: 'x'.repeat(40) } });
        expect(key.statusCode).to.equal(401);
        expect(key.headers['www-authenticate']).to.equal(basicChallenge);

        const form = await plain.inject({ method: 'POST', url: '/maximo/j_security_check', headers: { 'content-type': 'application/x-www-form-urlencoded' }, payload: 'j_username=wilson&j_password=nope' });
        expect(form.statusCode).to.equal(401);
        expect(form.headers['www-authenticate']).to.not.exist();
        // Not on other errors.
        const ok = await plain.inject({ url: `${home}/whoami`, headers: wilson });
        const bad = await plain.inject({ url: `${wos}?oslc.where=bad bad`, headers: wilson });
        expect([ok.statusCode, bad.statusCode]).to.equal([200, 400]);
        expect(ok.headers['www-authenticate']).to.not.exist();
        expect(bad.headers['www-authenticate']).to.not.exist();
    });

    const href = async (server: TestServer, headers: Record<string, string>) => {

        const res = await server.inject({ url: `${wos}?oslc.pageSize=1`, headers: { ...wilson, ...headers } });
        expect(res.statusCode).to.equal(200);
        return { collection: res.result.href as string, member: res.result.member[0].href as string, next: res.result.responseInfo.nextPage.href as string };
    };

    test('behind a trusted proxy hrefs follow X-Forwarded-Proto and X-Forwarded-Host among the public origins', async () => {

        const tls = { 'x-forwarded-proto': 'https', 'x-forwarded-host': 'eam.example.com' };
        const hrefs = await href(proxied, tls);
        expect(hrefs.collection).to.startWith('https://eam.example.com/maximo/oslc/os/mxapiwodetail');
        expect(hrefs.member).to.startWith('https://eam.example.com/maximo/oslc/os/mxapiwodetail/_');
        expect(hrefs.next).to.startWith('https://eam.example.com/maximo/oslc/os/mxapiwodetail?');
        expect((await href(proxied, { 'x-forwarded-proto': 'HTTPS', 'x-forwarded-host': 'eam.example.com:443' })).collection).to.startWith('https://eam.example.com/maximo/');
        // The entry the proxy appended is the last: the client's own to its left is not believed.
        expect((await href(proxied, { 'x-forwarded-proto': 'http, https', 'x-forwarded-host': 'evil.example.com, eam.example.com' })).collection).to.startWith('https://eam.example.com/maximo/');
        // A forwarded origin that is not public gives the first public origin, as a Host would.
        expect((await href(proxied, { 'x-forwarded-proto': 'https', 'x-forwarded-host': 'evil.example.com' })).collection).to.startWith('http://127.0.0.1:8080/maximo/');
        expect((await href(proxied, { 'x-forwarded-proto': 'https' })).collection).to.startWith('http://127.0.0.1:8080/maximo/');
        expect((await href(proxied, { 'x-forwarded-proto': 'gopher', 'x-forwarded-host': 'eam.example.com' })).collection).to.startWith('http://127.0.0.1:8080/maximo/');
        expect((await href(proxied, {})).collection).to.startWith('http://127.0.0.1:8080/maximo/');
        // x-public-uri still goes first, and relativeuri=1 still drops the origin.
        expect((await href(proxied, { ...tls, 'x-public-uri': 'http://127.0.0.1:8080/maximo/oslc' })).collection).to.startWith('http://127.0.0.1:8080/maximo/');
        const relative = await proxied.inject({ url: `${home}/whoami?relativeuri=1`, headers: { ...wilson, ...tls } });
        expect(relative.result.href).to.equal('/maximo/oslc/whoami');

        const created = await proxied.inject({ method: 'POST', url: wos, headers: { ...maxadmin, ...tls, 'content-type': 'application/json' }, payload: { siteid: 'BEDFORD', description: 'behind the proxy' } });
        expect(created.statusCode).to.equal(201);
        expect(String(created.headers.location)).to.startWith('https://eam.example.com/maximo/oslc/os/mxapiwodetail/_');
    });

    test('without public origins a trusted proxy\'s well-formed host is taken, the outermost of two proxies\'', async () => {

        expect((await href(openProxy, { 'x-forwarded-proto': 'https', 'x-forwarded-host': 'eam.example.com' })).collection).to.startWith('https://eam.example.com/maximo/');
        expect((await href(openProxy, { 'x-forwarded-proto': 'client, https, http', 'x-forwarded-host': 'evil.example.com, eam.example.com:8443, inner:8080' })).collection).to.startWith('https://eam.example.com:8443/maximo/');
        expect((await href(openProxy, { 'x-forwarded-host': 'h"><script>' })).collection).to.startWith('http://127.0.0.1:8080/maximo/');
    });

    test('without a trusted proxy the forwarded headers are ignored', async () => {

        const hrefs = await href(plain, { 'x-forwarded-proto': 'https', 'x-forwarded-host': 'eam.example.com' });
        expect(hrefs.collection).to.startWith('http://127.0.0.1:8080/maximo/oslc/os/mxapiwodetail');
        expect(hrefs.member).to.startWith('http://127.0.0.1:8080/maximo/');
    });
});
