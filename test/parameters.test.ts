import * as Fs from 'node:fs';
import * as Path from 'node:path';

import * as Code from '@hapi/code';
import * as Hapi from '@hapi/hapi';
import * as Lab from '@hapi/lab';

import { queryParameters, requestHeaders, routeTable, useLabels, uses, type Known, type Use } from '../src/http/parameters';
import { onEachDatabase } from './helpers/experiments';
import { maxadmin, root, wilson } from './helpers/server';


const lab = exports.lab = Lab.script();
const { experiment, test, before } = lab;
const { expect } = Code;

const home = '/maximo/oslc';
const wos = `${home}/os/mxapiwodetail`;
const wo = `${wos}/_QkVERk9SRC8xMDAw`;                   // BEDFORD/1000

// A document of BEDFORD/1000, uploaded before the tests.
let documentId = '';

// One request of each use, with room for one more query parameter (`&name=value`) and headers.
const requests: Record<Use, (extra: string) => Hapi.ServerInjectOptions> = {
    page: (extra) => ({ url: `${wos}?oslc.pageSize=2${extra}` }),
    distinct: (extra) => ({ url: `${wos}?distinct=status${extra}` }),
    groups: (extra) => ({ url: `${wos}?gbcols=status,count.*${extra}` }),
    listreports: (extra) => ({ url: `${wos}?action=listreports${extra}` }),
    genreport: (extra) => ({ url: `${wos}?action=genreport&reportname=woprint.rptdesign&reportformat=csv${extra}` }),
    action: (extra) => ({ url: `${wo}?action=system:candelete${extra}` }),
    globalaction: (extra) => ({ url: `${wos}?action=countall${extra}` }),
    member: (extra) => ({ url: `${wo}?oslc.select=wonum${extra}` }),
    children: (extra) => ({ url: `${wo}/woactivity?oslc.select=taskid${extra}` }),
    child: (extra) => ({ url: `${wo}/woactivity/_MTA-?oslc.select=taskid${extra}` }),
    lookup: (extra) => ({ url: `${wo}/getlist~status?oslc.pageSize=2${extra}` }),
    create: (extra) => ({ method: 'POST', url: `${wos}?lean=1${extra}`, payload: { siteid: 'BEDFORD', description: 'refused create' } }),
    sync: (extra) => ({ method: 'POST', url: `${wos}?lean=1${extra}`, headers: { 'x-method-override': 'SYNC' }, payload: { siteid: 'BEDFORD', wonum: '1000', description: 'refused sync' } }),
    bulk: (extra) => ({ method: 'POST', url: `${wos}?lean=1${extra}`, headers: { 'x-method-override': 'BULK' }, payload: [{ siteid: 'BEDFORD', description: 'refused bulk' }] }),
    update: (extra) => ({ method: 'POST', url: `${wo}?lean=1${extra}`, headers: { 'x-method-override': 'PATCH' }, payload: { description: 'refused update' } }),
    delete: (extra) => ({ method: 'DELETE', url: `${wos}/_QkVERk9SRC8xMDAx?lean=1${extra}` }),
    info: (extra) => ({ url: `${home}/whoami?lean=1${extra}` }),
    schema: (extra) => ({ url: `${home}/jsonschemas/mxapiwodetail?lean=1${extra}` }),
    permission: (extra) => ({ url: `${home}/permission/allowedappoptions?lean=1&app=WOTRACK${extra}` }),
    login: (extra) => ({ url: `${home}/login?lean=1${extra}` }),
    formlogin: (extra) => ({ method: 'POST', url: `${home}/j_security_check?lean=1${extra}`, headers: { 'content-type': 'application/x-www-form-urlencoded' }, payload: 'j_username=wilson&j_password=wilson' }),
    logout: (extra) => ({ url: `${home}/logout?lean=1${extra}` }),
    apitoken: (extra) => ({ method: 'POST', url: `${home}/apitoken/get?lean=1${extra}` }),
    loginlocks: (extra) => ({ url: `${home}/loginlocks?lean=1${extra}`, headers: maxadmin }),
    health: (extra) => ({ url: `/maximo/health?lean=1${extra}` }),
    service: (extra) => ({ url: `${home}/service/system?action=wsmethod:getDate${extra}` }),
    attachments: (extra) => ({ url: `${wo}/doclinks?lean=1${extra}` }),
    upload: (extra) => ({ method: 'POST', url: `${wo}/doclinks?lean=1${extra}`, headers: { slug: 'refused.txt', 'content-type': 'text/plain' }, payload: 'refused upload' }),
    document: (extra) => ({ url: `${wo}/doclinks/meta/${documentId}?lean=1${extra}` }),
    docdelete: (extra) => ({ method: 'DELETE', url: `${wo}/doclinks/999999999?lean=1${extra}` }),
    oas: (extra) => ({ url: `${home}/oas?lean=1${extra}` }),
    oaspage: (extra) => ({ url: `/maximo/oas3/api.css?lean=1${extra}` })
};

const accepted = (known: Known, use: Use) => known.supported.includes(use) || (known.inert ?? []).includes(use);

// The origins these tests send as x-public-uri are configured public origins: others would be ignored.
const publicOrigins = ['https://eam.example.com', 'http://public.example.com:9080', 'https://public.example.com', 'https://proxy.example.com', 'https://maximo'];

onEachDatabase(lab, 'query parameters, headers and actions', { timeout: 120_000, settings: { publicOrigins } }, (t, database) => {

    let rowstamped: string[];
    let tables: string[];
    before(async () => {

        // A collection action, as a plugin adds one: the use globalaction's requests run it.
        t.server.registerAction('MXAPIWODETAIL', 'countall', { scope: 'collection', right: 'none', handler: () => ({ counted: true }) });
        const uploaded = await t.inject({ method: 'POST', url: `${wo}/doclinks`, headers: { ...wilson, slug: 'gate.txt', 'content-type': 'text/plain' }, payload: 'gate' });
        documentId = String(uploaded.headers.location).split('/').pop()!;
        const knex = t.server.app.osprey.knex;
        const names = database.name === 'sqlite' ?
            (await knex.raw('select name from sqlite_master where type = \'table\' and name not like \'sqlite_%\'') as { name: string }[]).map((row) => row.name) :
            (await knex.raw('select table_name as name from information_schema.tables where table_schema = current_schema()')).rows.map((row: { name: string }) => row.name);
        tables = names.filter((name: string) => !['osprey_member', 'osprey_session'].includes(name)).sort();
        rowstamped = [];
        for (const table of tables) {
            if (await knex.schema.hasColumn(table, 'rowstamp')) {
                rowstamped.push(table);
            }
        }
    });

    // Every table's row count, and the newest rowstamp of those that have one: any insert, update or delete
    // anywhere changes it.
    const snapshot = async () => {

        const knex = t.server.app.osprey.knex;
        const state: Record<string, unknown> = {};
        for (const table of tables) {
            const [row] = await knex(table).count({ n: '*' }).modify((query) => rowstamped.includes(table) && query.max({ r: 'rowstamp' }));
            state[table] = [Number(row!.n), row!.r === undefined || row!.r === null ? null : String(row!.r)];
        }

        return state;
    };

    const read = async (path: string) => (await t.inject({ url: `${path}?oslc.select=*`, headers: wilson })).result;

    // A form login brings its credentials in the form, so it is sent without WILSON's maxauth.
    const credentials = (options: Hapi.ServerInjectOptions) => (options.url.toString().includes('j_security_check') ? {} : wilson);
    const inject = (options: Hapi.ServerInjectOptions, headers: Record<string, string> = {}) => t.inject({ ...options, headers: { ...credentials(options), ...options.headers as Record<string, string>, ...headers } });

    const expectRefused = (res: Hapi.ServerInjectResponse<any>, name: string, label = name) => {

        expect(res.statusCode, label).to.equal(400);
        expect(res.result.Error.reasonCode, label).to.equal('BMXAA4153E');
        expect(res.result.Error.statusCode, label).to.equal('400');
        expect(res.result.Error.message, label).to.contain(name);
    };

    test('every request of the table-driven cases is answered when it carries nothing refused', async () => {

        for (const use of uses) {
            if (use === 'delete' || use === 'docdelete') {
                continue;                   // would delete the record (document) the refused deletes name
            }

            const res = await inject(requests[use](''));
            expect(res.statusCode, use).to.be.below(300);
        }
    });

    test('every known query parameter is refused, by name, on each use that does not carry it out, and nothing is written', async () => {

        const earlierState = await snapshot();
        for (const known of queryParameters) {
            for (const use of uses) {
                // distinct and gbcols choose what a collection GET is: hand-written below.
                if (accepted(known, use) || (['distinct', 'gbcols'].includes(known.name) && ['page', 'distinct', 'groups'].includes(use))) {
                    continue;
                }

                const name = known.name === 'sqp:' ? 'sqp:asset' : known.name;
                const value = name === 'action' ? 'wsmethod:anything' : '1';
                const res = await inject(requests[use](`&${name}=${value}`));
                // ?action= makes a record or collection request an action, where the request's other parameters
                // may be refused first (oslc.pageSize is not an action's), or the action is unknown: refused either way.
                expectRefused(res, name === 'action' ? '' : name, `${name} on ${use}`);
            }
        }

        expect(await snapshot()).to.equal(earlierState);
    });

    test('every known header is refused, by name, on each use that does not carry it out, and nothing is written', async () => {

        const earlierState = await snapshot();
        for (const known of requestHeaders) {
            for (const use of uses) {
                if (accepted(known, use)) {
                    continue;
                }

                const res = await inject(requests[use](''), { [known.name]: known.name === 'x-method-override' ? 'EXECUTE' : 'MERGE' });
                expectRefused(res, known.name, `${known.name} on ${use}`);
                expect(res.result.Error.message).to.contain(known.supported.length ? useLabels[use] : 'not carried out by this server');
            }
        }

        expect(await snapshot()).to.equal(earlierState);
    });

    test('?action= naming no action, or on a route or method that runs none, is a 400 naming it, and nothing is written', async () => {

        const earlier = await read(wo);
        const earlierState = await snapshot();
        const cases: [Hapi.ServerInjectOptions, string][] = [
            [{ method: 'POST', url: `${wo}?action=wsmethod:anything`, headers: { 'x-method-override': 'PATCH' }, payload: { description: 'written by an action' } }, 'wsmethod:anything'],
            [{ method: 'POST', url: `${wo}?action=workflow:WOSTATUS`, headers: { 'x-method-override': 'PATCH' }, payload: { description: 'written by a workflow' } }, 'workflow:WOSTATUS'],
            [{ method: 'POST', url: `${wo}?action=wsmethod:changeStatus&properties=wonum`, headers: { 'x-method-override': 'MERGE' }, payload: { status: 'APPR' } }, 'wsmethod:changeStatus'],
            [{ method: 'POST', url: `${wo}?action=approve` }, 'approve'],
            [{ method: 'PATCH', url: `${wo}?action=wsmethod:anything`, payload: { description: 'patched by an action' } }, 'wsmethod:anything'],
            [{ method: 'PUT', url: `${wo}?action=wsmethod:anything`, payload: { description: 'put by an action' } }, 'wsmethod:anything'],
            [{ method: 'DELETE', url: `${wo}?action=wsmethod:anything` }, 'wsmethod:anything'],
            [{ method: 'POST', url: `${wo}?action=wsmethod:anything`, headers: { 'x-method-override': 'DELETE' } }, 'wsmethod:anything'],
            [{ url: `${wo}?action=x` }, 'has no action x'],
            [{ url: `${wo}/woactivity?action=x` }, 'The action x'],
            [{ url: `${wo}/getlist~status?action=x` }, 'The action x'],
            [{ method: 'POST', url: `${wos}?action=wsmethod:anything`, payload: { siteid: 'BEDFORD', description: 'created by an action' } }, 'wsmethod:anything'],
            [{ method: 'POST', url: `${wos}?action=wsmethod:anything`, headers: { 'x-method-override': 'PATCH' }, payload: { description: 'global action' } }, 'wsmethod:anything'],
            [{ method: 'PATCH', url: `${wos}?action=wsmethod:anything`, payload: { description: 'global action' } }, 'wsmethod:anything'],
            [{ method: 'POST', url: `${wos}?action=wsmethod:anything`, headers: { 'x-method-override': 'SYNC' }, payload: { siteid: 'BEDFORD', wonum: '1000', description: 'synced by an action' } }, 'wsmethod:anything'],
            [{ method: 'POST', url: `${wos}?action=wsmethod:anything`, headers: { 'x-method-override': 'BULK' }, payload: [{ siteid: 'BEDFORD', description: 'bulk by an action' }] }, 'wsmethod:anything'],
            [{ url: `${wos}?action=wsmethod:anything` }, 'has no action wsmethod:anything'],
            [{ url: `${home}/whoami?action=x` }, 'The action x']
        ];
        for (const [options, name] of cases) {
            const res = await inject(options);
            expectRefused(res, name, `${options.method ?? 'GET'} ${options.url}`);
            expect(res.headers['x-request-id']).to.exist();
        }

        expect(await read(wo)).to.equal(earlier);
        expect(await snapshot()).to.equal(earlierState);

        // The built-in report actions still run, and a path that is no structure's is still a 404.
        expect((await inject({ url: `${wos}?action=listreports` })).result.map((report: any) => report.reportname)).to.include('woprint.rptdesign');
        expect((await inject({ url: `${wos}?action=GENREPORT&reportname=woprint.rptdesign&reportformat=csv&oslc.where=wonum="1000"` })).payload).to.contain('1000');
        expect((await inject({ url: `${home}/nothing?action=x` })).statusCode).to.equal(404);
        // A method the path is not served by, the methods it is.
        const patched = await inject({ method: 'PATCH', url: wos });
        expect(patched.statusCode).to.equal(405);
        expect(patched.headers.allow).to.equal('GET, POST');
    });

    test('a parameter in no table is refused by name; empty names and the cache buster are not parameters', async () => {

        expectRefused(await inject({ url: `${wos}?frobnicate=1` }), 'frobnicate');
        expectRefused(await inject({ url: `${home}/whoami?frobnicate=` }), 'frobnicate');
        const hint = await inject({ url: `${wos}?oslc.pagesize=5` });
        expectRefused(hint, 'oslc.pagesize');
        expect(hint.result.Error.message).to.contain('did you mean oslc.pageSize');
        expectRefused(await inject({ url: `${wos}?oslc.where=wonum="1000"&oslc.where=wonum="1001"` }), 'sent 2 times');

        // IBM's Java client connects with `GET {home}?&lean=1`; browsers' cache busters send `_`.
        expect((await inject({ url: `${home}?&lean=1` })).statusCode).to.equal(200);
        expect((await inject({ url: `${home}/whoami?=x&&_=1712345678` })).statusCode).to.equal(200);
        expect((await inject({ url: `${wos}?_=1&oslc.pageSize=1` })).result.member).to.have.length(1);
    });

    test('a value whose meaning is not carried out is refused by name', async () => {

        expectRefused(await inject({ url: `${home}?lean=0` }), 'lean');
        expect((await inject({ url: `${home}?lean=true` })).statusCode).to.equal(200);
        expectRefused(await inject({ url: `${wos}?oslc.paging=false` }), 'oslc.paging');
        const paging = await inject({ url: `${wos}?oslc.paging=true&oslc.pageSize=3` });
        expect(paging.result.member).to.have.length(3);
        expectRefused(await inject({ url: `${wo}?_dropnulls=maybe` }), '_dropnulls');
        expectRefused(await inject({ url: `${wos}?searchAttributes=description` }), 'searchAttributes');
        expect((await inject({ url: `${wos}?oslc.searchTerms=pump&searchAttributes=description&count=1` })).statusCode).to.equal(200);
        expectRefused(await inject({ url: `${wos}?stableId=abc` }), 'stableId');
        // One parameter under both its spellings (found by a hostile probe: one was read, the other ignored).
        const both = await inject({ url: `${wos}?savedQuery=OPENWO&savedquery=EMERGENCYWO&count=1` });
        expectRefused(both, 'savedquery');
        expect(both.result.Error.message).to.contain('savedQuery and savedquery are one parameter; send it once');
        const page = await inject({ url: `${wos}?oslc.pageSize=2&stablepaging=1&oslc.select=wonum` });
        const next = new URL(page.result.responseInfo.nextPage.href);
        expectRefused(await inject({ url: `${next.pathname}${next.search}&stableid=garbage` }), 'stableid');
        expect((await inject({ url: `${next.pathname}${next.search}` })).statusCode).to.equal(200);
        expectRefused(await inject({ url: `${wo}/getlist~assetnum?setupdata=${encodeURIComponent('{"siteid":"NASHUA"}')}` }), 'setupdata');
        expect((await inject({ url: `${wos}/newmbo/getlist~assetnum?setupdata=${encodeURIComponent('{"siteid":"NASHUA"}')}&oslc.pageSize=1` })).statusCode).to.equal(200);
    });

    test('a query parameter that says otherwise than its header is refused by name, and nothing is written (found by a hostile probe)', async () => {

        const count = async () => (await inject({ url: `${wos}?count=1` })).result.totalCount;
        const counted = await count();
        const bulk = { method: 'POST', headers: { 'x-method-override': 'BULK', allornothing: '0' }, payload: [{ siteid: 'BEDFORD', description: 'Both ways' }, { siteid: 'BEDFORD', description: 'Both ways', nope: 1 }] };
        expectRefused(await inject({ ...bulk, url: `${wos}?allornothing=1` }), 'the allornothing header says "0" and this says "1"');
        expectRefused(await inject({ method: 'PATCH', url: `${wo}?properties=status`, headers: { properties: 'wonum' }, payload: { description: 'Both ways' } }), 'the properties header says "wonum"');
        expectRefused(await inject({ method: 'POST', url: `${wo}?action=wsmethod:changeStatus&properties=status`, headers: { properties: 'wonum' }, payload: { status: 'APPR' } }), 'properties');
        expect(await count()).to.equal(counted);
        expect((await inject({ url: `${wo}?oslc.select=description,status` })).result).to.not.include({ description: 'Both ways' });
        // Saying the same twice is one value.
        const same = await inject({ method: 'PATCH', url: `${wo}?properties=%20wonum`, headers: { properties: 'wonum ' }, payload: { description: 'Both ways' } });
        expect(same.statusCode, same.payload).to.equal(200);
        expect(same.result).to.include({ wonum: '1000' });
        expect(same.result).to.not.include('description');
        const flags = await inject({ ...bulk, url: `${wos}?allornothing=true`, headers: { ...bulk.headers, allornothing: '1' } });
        expect(flags.statusCode).to.equal(200);
        expect(await count()).to.equal(counted);
    });

    test('listreports and genreport by POST are refused by name as reads of GET, not as actions the structure lacks (found by a probe)', async () => {

        for (const url of [`${wos}?action=listreports`, `${wos}?action=genreport&reportname=woprint.rptdesign&reportformat=csv`]) {
            const res = await inject({ method: 'POST', url });
            expect(res.statusCode, url).to.equal(400);
            expect(res.result.Error.message, url).to.contain('is read with GET');
            expect(res.result.Error.message, url).to.not.contain('has no action');
        }

        // A report says its terms were or-ed when they were.
        const or = await inject({ url: `${wos}?action=genreport&reportname=woprint.rptdesign&reportformat=json&opmode=or&oslc.where=${encodeURIComponent('wonum="1000" and wonum="1001"')}` });
        expect(or.statusCode, or.payload).to.equal(200);
        const json = JSON.parse(or.payload);
        expect(json.where).to.equal('wonum="1000" and wonum="1001" (opmode or: its terms or-ed)');
        expect(json.members ?? json.member ?? json.rows).to.have.length(2);

        // A refusal's reason is said only where it explains it.
        const whoami = await inject({ url: `${home}/whoami?oslc.select=userid` });
        expectRefused(whoami, 'oslc.select');
        expect(whoami.result.Error.message).to.not.contain('a write answers');
        expect((await inject({ method: 'PATCH', url: `${wo}?oslc.select=wonum`, payload: {} })).result.Error.message).to.contain('a write answers what the properties header names');
        expect((await inject({ url: `${wos}?action=genreport&reportname=woprint.rptdesign&reportformat=csv&ignorers=1` })).result.Error.message).to.not.contain('a delete');
    });

    test('sqp: parameters belong to the saved query the request names', async () => {

        expectRefused(await inject({ url: `${wos}?sqp:asset=11001` }), 'sqp:asset');
        const undeclared = await inject({ url: `${wos}?savedQuery=WOBYASSET&sqp:asset=11001&sqp:site=BEDFORD` });
        expectRefused(undeclared, 'sqp:site');
        expect(undeclared.result.Error.message).to.contain('sqp:asset');
        expectRefused(await inject({ url: `${wos}?savedQuery=OPENWO&sqp:asset=11001` }), 'it has none');
        expectRefused(await inject({ url: `${wo}?sqp:asset=11001` }), 'sqp:asset');
        const declared = await inject({ url: `${wos}?savedQuery=WOBYASSET&sqp:asset=11001&oslc.select=assetnum` });
        expect(declared.statusCode).to.equal(200);
        expect(declared.result.member.every((row: any) => row.assetnum === '11001')).to.be.true();
        // On a lookup the saved query is the lookup's structure's.
        expect((await inject({ url: `${wo}/getlist~assetnum?savedQuery=OPERATINGASSETS&oslc.pageSize=1` })).statusCode).to.equal(200);
        expectRefused(await inject({ url: `${wo}/getlist~assetnum?savedQuery=OPERATINGASSETS&sqp:x=1` }), 'sqp:x');
    });

    test('the edges of the checks: spellings of flags, names with nothing after them, structures that are not there', async () => {

        expect((await inject({ url: `${home}?lean=TRUE` })).statusCode).to.equal(200);
        expect((await inject({ url: `${wo}?_dropnulls=FALSE` })).statusCode).to.equal(200);
        expectRefused(await inject({ url: `${wos}?stableid=abc&stablepaging=0` }), 'stableid');
        expectRefused(await inject({ url: `${wos}?savedQuery=WOBYASSET&sqp:=1` }), 'sqp:');
        // Where no saved query can be found, the handler answers for it.
        expect((await inject({ url: `/maximo/oslc/os/nothere?savedQuery=A&sqp:x=1` })).statusCode).to.equal(404);
        const domain = await inject({ url: `${wo}/woactivity/_MTA-/getlist~status?savedQuery=A&sqp:x=1` });
        expect(domain.statusCode).to.equal(400);
        expect(domain.result.Error.message).to.contain('savedQuery');
        expectRefused(await inject({ url: `${wos}?action=genreport&site=BEDFORD` }), 'site');
        // An action on a route that exists is the route's to answer: unauthenticated, or a structure not there.
        expect((await t.inject({ url: `${wos}?action=listreports` })).statusCode).to.equal(401);
        expect((await inject({ url: '/maximo/oslc/os/nothere?action=listreports' })).statusCode).to.equal(404);
    });

    test('the report parameters of genreport are its own where\'s, and no others', async () => {

        const report = `${wos}?action=genreport&reportname=woassets.rptdesign&reportformat=json`;
        const res = await inject({ url: `${report}&site=BEDFORD` });
        expect(res.statusCode).to.equal(200);
        expectRefused(await inject({ url: `${report}&site=BEDFORD&org=EAGLENA` }), 'org');
        expectRefused(await inject({ url: `${wos}?action=genreport&reportname=woprint.rptdesign&site=BEDFORD` }), 'site');
        expectRefused(await inject({ url: `${wos}?site=BEDFORD` }), 'site');
    });

    test('what a real client sends where Maximo accepts it keeps working', async () => {

        // IBM's Java client: every URI of a resource set carries collectioncount=1, creates and group-bys too.
        const created = await inject({ method: 'POST', url: `${wos}?&collectioncount=1`, headers: { properties: 'wonum' }, payload: { siteid: 'BEDFORD', description: 'Java create' } });
        expect(created.statusCode).to.equal(201);
        const groups = await inject({ url: `${wos}?&collectioncount=1&gbcols=status,count.*` });
        expect(groups.statusCode).to.equal(200);
        expect(groups.result.length > 1).to.be.true();
        const bulk = await inject({ method: 'POST', url: `${wos}?&collectioncount=1`, headers: { 'x-method-override': 'BULK' }, payload: [{ _data: { siteid: 'BEDFORD', description: 'Java bulk' } }] });
        expect(bulk.result[0]._responsemeta.status).to.equal('201');
        // The npm client: lean=1 on every request, patchtype UPDATE, the properties header on an update.
        const path = new URL(created.headers.location as string).pathname;
        const update = await inject({ method: 'POST', url: `${path}?lean=1`, headers: { 'x-method-override': 'PATCH', patchtype: 'UPDATE', properties: 'description', 'x-allow-events': '0', transactionid: `t-${Date.now()}` }, payload: { description: 'npm update' } });
        expect(update.statusCode).to.equal(200);
        expect(update.result.description).to.equal('npm update');
        expect((await inject({ url: `${path}?lean=1&oslc.properties=description&_dropnulls=0&ignorecollectionref=1&relativeuri=1` })).result.href).to.match(/^\/maximo\/oslc\/os\//);
        expect((await inject({ method: 'DELETE', url: `${path}?lean=1` }, { 'x-allow-events': '1' })).statusCode).to.equal(204);
    });

    test('a refused header or parameter on a write leaves the record and every table as they were', async () => {

        const earlier = await read(wo);
        const earlierState = await snapshot();
        const cases: [Hapi.ServerInjectOptions, string][] = [
            [{ method: 'POST', url: wo, headers: { 'x-method-override': 'PATCH', patchtype: 'REPLACE' }, payload: { description: 'refused' } }, 'patchtype'],
            [{ method: 'POST', url: wo, headers: { 'x-method-override': 'PATCH', esigauth: 'c2VjcmV0' }, payload: { description: 'refused' } }, 'esigauth'],
            [{ method: 'PATCH', url: wo, headers: { esigreason: 'because' }, payload: { description: 'refused' } }, 'esigreason'],
            [{ method: 'PATCH', url: wo, headers: { 'x-method-override': 'PATCH' }, payload: { description: 'refused' } }, 'x-method-override'],
            [{ method: 'PATCH', url: `${wo}?oslc.select=wonum`, payload: { description: 'refused' } }, 'oslc.select'],
            [{ method: 'PATCH', url: `${wo}?ignorers=yes`, payload: { description: 'refused' } }, 'ignorers'],
            [{ method: 'PATCH', url: `${wo}?checkesig=1`, payload: { description: 'refused' } }, 'checkesig'],
            [{ method: 'PATCH', url: `${wo}?collectioncount=1`, payload: { description: 'refused' } }, 'collectioncount'],
            [{ method: 'POST', url: wos, headers: { 'if-match': '"1"' }, payload: { siteid: 'BEDFORD', description: 'refused' } }, 'if-match'],
            [{ method: 'POST', url: wos, headers: { patchtype: 'MERGE' }, payload: { siteid: 'BEDFORD', description: 'refused' } }, 'patchtype'],
            [{ method: 'POST', url: `${wos}?allornothing=1`, payload: { siteid: 'BEDFORD', description: 'refused' } }, 'allornothing'],
            [{ method: 'POST', url: wos, headers: { slug: 'a.txt', 'x-document-meta': 'FILE/Attachments' }, payload: { siteid: 'BEDFORD', description: 'refused' } }, 'slug'],
            [{ method: 'DELETE', url: wo, headers: { properties: 'wonum' } }, 'properties'],
            [{ method: 'DELETE', url: `${wo}?_tenantcode=00` }, '_tenantcode'],
            [{ method: 'POST', url: wos, headers: { 'x-method-override': 'BULK', 'if-match': '"1"' }, payload: [{ href: wo, _action: 'Update', description: 'refused' }] }, 'if-match'],
            [{ method: 'POST', url: `${home}/apitoken/create`, headers: { 'x-method-override': 'EXECUTE' }, payload: { expiration: 60 } }, 'x-method-override']
        ];
        for (const [options, name] of cases) {
            expectRefused(await inject(options), name, `${options.method} ${options.url} ${name}`);
        }

        expect(await read(wo)).to.equal(earlier);
        expect(await snapshot()).to.equal(earlierState);
    });

    test('reads refuse the headers and parameters that belong to writes, other routes, or no route', async () => {

        expectRefused(await inject({ url: wo, headers: { properties: 'wonum' } }), 'properties');
        expectRefused(await inject({ url: wos, headers: { transactionid: 'x1' } }), 'transactionid');
        expectRefused(await inject({ url: wos, headers: { 'x-method-override': 'PATCH' } }), 'x-method-override');
        expectRefused(await inject({ url: wo, headers: { 'if-match': '"1"' } }), 'if-match');
        expectRefused(await inject({ url: `${home}/jsonschemas/mxapiwodetail?oslc.properties=wonum` }), 'oslc.properties');
        expectRefused(await inject({ url: `${home}/whoami?oslc.select=userid` }), 'oslc.select');
        expectRefused(await inject({ url: `${wos}?distinct=status&oslc.pageSize=5` }), 'oslc.pageSize');
        expectRefused(await inject({ url: `${wos}?gbcols=status,count.*&oslc.orderBy=-status` }), 'oslc.orderBy');
        expectRefused(await inject({ url: `${wos}?gbfilter=count>1` }), 'gbfilter');
        expectRefused(await inject({ url: `${wos}?gbcols=status,count.*&distinct=status` }), 'gbcols');
        expectRefused(await inject({ url: `${wos}?distinct=status&gbsortby=-count` }), 'gbsortby');
        expectRefused(await inject({ url: `${wo}/woactivity?inlinedoc=1` }), 'inlinedoc');
        expectRefused(await inject({ url: `${wo}?addschema=1` }), 'addschema');
        expectRefused(await inject({ url: `/maximo/health?apikey=x` }), 'apikey');
        expect((await t.inject({ url: `${home}/whoami?_lid=wilson&_lpwd=wilson` })).statusCode).to.equal(200);
        expect((await t.inject({ url: `${home}/whoami`, headers: { ...maxadmin, 'x-request-id': 'r-1', 'x-public-uri': 'https://eam.example.com' } })).result.href).to.equal('https://eam.example.com/maximo/oslc/whoami');
    });

    test('x-public-uri is the public URI of the API home, as IBM\'s Java client sends it, or an origin', async () => {

        const href = async (url: string, publicUri: string) => (await t.inject({ url, headers: { ...wilson, 'x-public-uri': publicUri } })).result.href;
        expect(await href(`${home}/whoami`, 'http://public.example.com:9080/maximo/oslc')).to.equal('http://public.example.com:9080/maximo/oslc/whoami');
        expect(await href('/maximo/api/whoami', 'https://public.example.com/MAXIMO/api/')).to.equal('https://public.example.com/maximo/api/whoami');
        expect(await href(wo, 'https://proxy.example.com/eam/maximo/oslc')).to.equal('https://proxy.example.com/eam/maximo/oslc/os/mxapiwodetail/_QkVERk9SRC8xMDAw');
        expect(await href(`${home}/whoami`, 'https://proxy.example.com/eam')).to.equal('https://proxy.example.com/eam/maximo/oslc/whoami');
        expect(await href(`${home}/whoami`, 'https://maximo/oslc')).to.equal('https://maximo/oslc/maximo/oslc/whoami');
        expect(await href(`${home}/whoami`, 'https://public.example.com/other/oslc')).to.equal('https://public.example.com/other/oslc/maximo/oslc/whoami');
        const page = await t.inject({ url: `${wos}?oslc.pageSize=1&collectioncount=1`, headers: { ...wilson, 'x-public-uri': 'http://public.example.com:9080/maximo/oslc' } });
        expect(page.result.responseInfo.nextPage.href).to.match(/^http:\/\/public\.example\.com:9080\/maximo\/oslc\/os\/mxapiwodetail\?/);
    });
});

experiment('the route table', () => {

    test('every route of the server has an entry; a route without one stops the start', async () => {

        const server = Hapi.server();
        server.route({ method: 'GET', path: '/maximo/oslc/whoami', options: { id: 'info.whoami.oslc', app: { home: 'oslc' }, handler: () => null } });
        server.route({ method: 'GET', path: '/maximo/health', options: { id: 'health.check', handler: () => null } });
        expect(Object.fromEntries(routeTable(server))).to.equal({ 'info.whoami.oslc': 'info', 'health.check': 'health' });
        server.route({ method: 'GET', path: '/maximo/new', options: { id: 'new.route', handler: () => null } });
        expect(() => routeTable(server)).to.throw(/GET \/maximo\/new \(id new.route\) has no entry/);
        const anonymous = Hapi.server();
        anonymous.route({ method: 'GET', path: '/x', handler: () => null });
        expect(() => routeTable(anonymous)).to.throw(/id none/);
        const inherited = Hapi.server();
        inherited.route({ method: 'GET', path: '/y', options: { id: 'toString', handler: () => null } });
        expect(() => routeTable(inherited)).to.throw(/id toString/);
        await server.stop();
    });

    test('the README section lists every query parameter and header of the table', () => {

        const readme = Fs.readFileSync(Path.join(root, 'README.md'), 'utf8');
        const section = readme.slice(readme.indexOf('## Query parameters and headers'));
        expect(section.length < readme.length).to.be.true();
        const body = section.slice(0, section.indexOf('\n## ', 5));
        for (const known of [...queryParameters, ...requestHeaders]) {
            expect(body, known.name).to.contain(`\`${known.name}`);
        }
    });
});
