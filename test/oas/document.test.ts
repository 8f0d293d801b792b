import * as Code from '@hapi/code';
import * as Lab from '@hapi/lab';

import type { UserProfile } from '../../src/auth/users';
import type { RegisteredAction } from '../../src/actions/registry';
import { listedRoutes, PartCache } from '../../src/oas/cache';
import { oasText } from '../../src/oas/document';
import { pageContentSecurityPolicy as openApiPagePolicy } from '../../src/oas/page';
import { attributeSchema, structureSchemas } from '../../src/oas/schemas';
import type { Structure } from '../../src/structures/registry';
import { operations, unlisted } from '../../src/oas/operations';
import { onEachDatabase } from '../helpers/experiments';
import { maxadmin, maxauth, wilson, type TestServer } from '../helpers/server';


const lab = exports.lab = Lab.script();
const { test, before } = lab;
const { expect } = Code;

type Doc = { paths: Record<string, Record<string, any>>; components: Record<string, Record<string, any>>; [key: string]: any };

// The real validator of OpenAPI 3.1 documents (an ES module: loaded once, by import()).
const validate = async (document: unknown) => {

    const { Validator } = await import('@seriousme/openapi-schema-validator');
    return await new Validator().validate(document as Record<string, unknown>);
};

const documentOf = async (t: TestServer, url: string, headers: Record<string, string>): Promise<Doc> => {

    const res = await t.inject({ url, headers });
    expect(res.statusCode, res.payload.slice(0, 300)).to.equal(200);
    expect(res.headers['content-type']).to.equal('application/json; charset=utf-8');
    return JSON.parse(res.payload);
};

const expectValid = async (document: Doc) => {

    const result = await validate(document);
    expect(result.errors, JSON.stringify(result.errors)?.slice(0, 2000)).to.not.exist();
    expect(result.valid).to.be.true();
};

// Every route the server registers under the home appears in the document as an operation of its route id and
// method, with the catalog's words (src/oas/operations.ts), but the routes that only refuse or are no API.
// A structure's route may be missing where no structure of a fixture has what it needs (attachments, a lookup).
const expectEveryRoute = (t: TestServer, home: string, document: Doc, structureRoutesMayLack = false) => {

    const operationsOf = new Map<string, Set<string>>();
    for (const item of Object.values(document.paths)) {
        for (const [method, operation] of Object.entries(item)) {
            if (operation['x-osprey-route']) {
                const methods = operationsOf.get(operation['x-osprey-route']) ?? new Set<string>();
                methods.add(method);
                operationsOf.set(operation['x-osprey-route'], methods);
            }
        }
    }

    let counted = 0;
    for (const route of t.server.table()) {
        const routeHome = (route.settings.app as { home?: string } | undefined)?.home;
        if (routeHome !== home) {
            continue;
        }

        const id = route.settings.id?.slice(0, -home.length - 1);
        if (id === undefined || unlisted.has(id)) {
            continue;
        }

        expect(operations[id], `${id} has words in the catalog`).to.exist();
        const methods = operationsOf.get(id);
        if (structureRoutesMayLack && operations[id]!.rights && !methods) {
            continue;
        }

        expect(methods, `${route.method} ${route.path} (${id})`).to.exist();
        for (const method of route.method === '*' ? ['get', 'post'] : [route.method]) {
            expect(methods!.has(method), `${method} ${route.path}`).to.be.true();
        }

        ++counted;
    }

    expect(counted).to.be.above(structureRoutesMayLack ? 30 : 45);
};

onEachDatabase(lab, 'the OpenAPI document of the demo', (t) => {

    for (const home of ['api', 'oslc']) {
        test(`{home}/oas on ${home}: valid OpenAPI 3.1, every route of the home, the administrator's structures`, async () => {

            const document = await documentOf(t, `/maximo/${home}/oas`, maxadmin);
            await expectValid(document);
            expect(document.openapi).to.equal('3.1.0');
            expect(document.servers).to.equal([{ url: `/maximo/${home}` }]);
            expectEveryRoute(t, home, document);
            expect(document.tags.map((tag: { name: string }) => tag.name)).to.equal(['MXAPIAPIKEY', 'MXAPIASSET', 'MXAPILOCATION', 'MXAPIMAXGROUP', 'MXAPIMAXUSER', 'MXAPIPERSON', 'MXAPIWFASSIGNMENT', 'MXAPIWODETAIL']);
            // The health check is served from the context root and needs no login.
            expect(document.paths['/health']!.servers).to.equal([{ url: '/maximo' }]);
            expect(document.paths['/health']!.get.security).to.equal([]);
            expect(document.components.securitySchemes).to.include(['maxauth', 'basic', 'apikey', 'apikeyQuery', 'session']);
        });
    }

    test('a structure\'s schemas: types, lengths, domains, read-only, required on create, children and relations', async () => {

        const document = await documentOf(t, '/maximo/oslc/oas', maxadmin);
        const asset = document.components.schemas.mxapiasset;
        expect(asset.properties.assetnum).to.include({ type: ['string', 'null'], maxLength: 25, 'x-maximo-type': 'UPPER', title: 'Asset' });
        expect(asset.properties.status.enum).to.include(['OPERATING', 'BROKEN', null]);
        expect(asset.properties.status['x-maximo-domain']).to.equal('ASSETSTATUS');
        expect(asset.properties.statusdate).to.include({ format: 'date-time', readOnly: true });
        expect(asset.properties.installdate.format).to.not.exist();
        expect(asset.properties.installdate['x-maximo-type']).to.equal('DATE');
        expect(asset.properties.priority.type).to.equal(['integer', 'null']);
        expect(asset.properties.assetmeter.items).to.equal({ $ref: '#/components/schemas/mxapiasset.assetmeter' });
        expect(document.components.schemas['mxapiasset.assetmeter.meterreading']).to.exist();
        expect(document.components.schemas['mxapiasset.create'].allOf[1].required).to.include(['assetnum', 'siteid']);
        expect(asset['x-primary-key']).to.equal(['siteid', 'assetnum']);
        const wo = document.components.schemas.mxapiwodetail;
        const relations = Object.keys(t.server.app.osprey.registry.get('MXAPIWODETAIL')!.def.relations);
        expect(relations.length).to.be.above(0);
        for (const name of relations) {
            const attribute = t.server.app.osprey.registry.get('MXAPIWODETAIL')!.root.attributes.has(name);
            expect(attribute ? wo.properties[name]['x-osprey-relation'].structure : wo.properties[name].readOnly, name).to.exist();
        }

        expect(wo.properties.asset).to.include({ type: 'object', readOnly: true });
        expect(wo.properties.location['x-osprey-relation']).to.include({ structure: 'MXAPILOCATION', cardinality: 'one' });

        // The collection answers a page of records; errors Maximo's shape.
        const query = document.paths['/os/mxapiasset']!.get;
        expect(query.responses['200'].content['application/json'].schema).to.equal({ $ref: '#/components/schemas/mxapiasset.collection' });
        expect(query.responses['400']).to.equal({ $ref: '#/components/responses/E400' });
        expect(document.components.responses.E404.description).to.contain('BMXAA8727E');
        expect(document.components.schemas.MaximoError.properties.Error.required).to.equal(['message', 'reasonCode', 'statusCode']);
        const names = query.parameters.map((parameter: { $ref: string }) => parameter.$ref.split('/').pop());
        expect(names).to.include(['q.oslc.where', 'q.oslc.select', 'q.oslc.pageSize', 'q.lean', 'h.x-public-uri']);
        expect(names).to.not.include(['h.properties', 'q.apikey', 'h.maxauth']);
        expect(document.components.parameters['q.oslc.where']).to.include({ name: 'oslc.where', in: 'query' });
        expect(document.components.parameters['q.oslc.where'].description).to.contain('Carried out on a collection query');
        expect(document.components.parameters['h.patchtype']).to.include({ name: 'patchtype', in: 'header' });
        const update = document.paths['/os/mxapiasset/{id}']!.patch;
        expect(update.parameters.map((parameter: { $ref?: string }) => parameter.$ref)).to.include('#/components/parameters/h.patchtype');
        // Lookups list the attributes that have values to list.
        expect(document.paths['/os/mxapiasset/{id}/getlist~{attr}']!.get.parameters[1].schema.enum).to.include(['status', 'location']);
        // Attachments only where the structure has them.
        expect(document.paths['/os/mxapiasset/{id}/doclinks']).to.exist();
        expect(document.paths['/os/mxapiapikey/{id}/doclinks']).to.not.exist();
    });

    test('a user sees the structures they may read, and the routes of their rights only', async () => {

        const document = await documentOf(t, '/maximo/oslc/oas', wilson);
        await expectValid(document);
        const registry = t.server.app.osprey.registry;
        const person = registry.get('MXAPIPERSON')!.def.access;
        expect(person.insert).to.not.include('EVERYONE');
        expect(Object.keys(document.paths['/os/mxapiperson']!)).to.equal(['get']);
        expect(Object.keys(document.paths['/os/mxapiperson/{id}']!)).to.equal(['get']);
        expect(Object.keys(document.paths['/os/mxapiperson/{id}/doclinks']!)).to.equal(['get']);
        expect(Object.keys(document.paths['/os/mxapiwodetail/{id}']!)).to.include(['get', 'patch', 'delete']);
        expect(document.info.description).to.contain('the signed-in user may read');
        // WILSON is a planner: the work orders' actions are theirs.
        expect(document.paths['/os/mxapiwodetail/{id}']!.get.description).to.contain('wsmethod:changeStatus (Change the status of the work order)');
    });

    test('os= narrows the document; {home}/oas/api is the whole, {home}/oas/{os} one structure', async () => {

        const two = await documentOf(t, '/maximo/oslc/oas?os=mxapiasset,MXAPIWODETAIL', wilson);
        await expectValid(two);
        expect(two.tags.map((tag: { name: string }) => tag.name)).to.equal(['MXAPIASSET', 'MXAPIWODETAIL']);
        expect(two.paths['/os/mxapilocation']).to.not.exist();
        expect(two.paths['/whoami']).to.exist();
        const one = await documentOf(t, '/maximo/api/oas/MXAPIASSET', wilson);
        await expectValid(one);
        expect(one.tags.map((tag: { name: string }) => tag.name)).to.equal(['MXAPIASSET']);
        expect(one.servers).to.equal([{ url: '/maximo/api' }]);
        expect(two.paths['/oas/{os}']!.get.parameters[0].schema.enum).to.equal(['mxapiapikey', 'mxapiasset', 'mxapilocation', 'mxapimaxuser', 'mxapiperson', 'mxapiwfassignment', 'mxapiwodetail', 'api']);
        expect(two.paths['/apimeta/{os}']!.get.parameters[0].schema.enum).to.not.include('api');
        const all = await documentOf(t, '/maximo/oslc/oas/api?lean=1', wilson);
        // Routes for administrators only (login locks, the management interface) are not in another user's document.
        for (const path of ['/loginlocks', '/loginlocks/users/{name}', '/mmi', '/members/{id}/{metric}']) {
            expect(all.paths[path], path).to.not.exist();
        }

        const admins = await documentOf(t, '/maximo/oslc/oas/api', maxadmin);
        expect(admins.paths['/loginlocks']).to.exist();
        expect(admins.paths['/mmi']).to.exist();
        expect(all).to.equal(await documentOf(t, '/maximo/oslc/oas', wilson));
        expect(await documentOf(t, '/maximo/oslc/oas/api?os=mxapiasset', wilson)).to.equal(two.paths ? await documentOf(t, '/maximo/oslc/oas?os=mxapiasset', wilson) : {});
    });

    test('refusals: a login first, structures by name, other paths and methods by name, Maximo\'s parameters Osprey does not carry out', async () => {

        const anonymous = await t.inject('/maximo/oslc/oas');
        expect(anonymous.statusCode).to.equal(401);
        // No Basic challenge: the API page logs in with its own form.
        expect(anonymous.headers['www-authenticate']).to.not.exist();
        expect((await t.inject('/maximo/oslc/whoami')).headers['www-authenticate']).to.exist();
        const wrong = await t.inject({ url: '/maximo/oslc/oas', headers: maxauth('wilson', 'nope') });
        expect(wrong.statusCode).to.equal(401);

        const cases: [string, number, string, string?][] = [
            ['/maximo/oslc/oas/mxapinothing', 404, 'The object structure MXAPINOTHING does not exist.'],
            ['/maximo/oslc/oas?os=mxapinothing', 404, 'MXAPINOTHING (named by os=) does not exist'],
            ['/maximo/oslc/oas?os=,', 400, 'os names no object structure'],
            ['/maximo/oslc/oas?os=mxapiautoscript', 501, 'automation script service'],
            ['/maximo/oslc/oas/mxapiautoscript', 501, 'automation script service'],
            ['/maximo/oslc/oas/mxapiasset?os=mxapiasset', 400, 'is the document of MXAPIASSET already'],
            ['/maximo/oslc/oas/mxapiasset/more', 404, '/maximo/oslc/oas/mxapiasset/more is no OpenAPI document'],
            ['/maximo/api/oas/a/b/c', 404, 'they are /maximo/api/oas'],
            ['/maximo/oslc/oas?module=ASSET', 400, 'The query parameter module is not carried out by this server'],
            ['/maximo/oslc/oas?includeactions=1', 400, 'includeactions'],
            ['/maximo/oslc/oas?addinternal=1', 400, 'addinternal'],
            ['/maximo/oslc/oas?primary=1', 400, 'primary'],
            ['/maximo/oslc/oas?oslc.where=x', 400, 'The query parameter oslc.where is not carried out on an OpenAPI document'],
            ['/maximo/oslc/oas', 405, 'read with GET, not POST', 'POST']
        ];
        for (const [url, status, message, method] of cases) {
            const res = await t.inject({ method: method ?? 'GET', url, headers: wilson });
            expect(res.statusCode, url).to.equal(status);
            expect(res.result.Error.message, url).to.contain(message);
        }

        // The os= parameter is the document's only.
        const elsewhere = await t.inject({ url: '/maximo/oslc/whoami?os=mxapiasset', headers: wilson });
        expect(elsewhere.result.Error.message).to.contain('The query parameter os is not carried out on an information endpoint');
    });

    test('the page and its files, under their own security policy; other names refused by name', async () => {

        const page = await t.inject('/maximo/oas3/api.html');
        expect(page.statusCode).to.equal(200);
        expect(page.headers['content-type']).to.equal('text/html; charset=utf-8');
        expect(page.headers['content-security-policy']).to.equal(openApiPagePolicy);
        expect(page.payload).to.contain('<script src="swagger-ui-bundle.js"></script>');
        for (const [name, type] of [['swagger-ui-bundle.js', 'application/javascript; charset=utf-8'], ['swagger-ui.css', 'text/css; charset=utf-8'], ['favicon-32x32.png', 'image/png'], ['api.js', 'application/javascript; charset=utf-8']]) {
            const file = await t.inject(`/maximo/oas3/${name}`);
            expect(file.statusCode, name).to.equal(200);
            expect(file.headers['content-type'], name).to.equal(type);
            expect(file.rawPayload.length, name).to.be.above(500);
        }

        // Read from the package once.
        expect((await t.inject('/maximo/oas3/swagger-ui.css')).rawPayload).to.equal((await t.inject('/maximo/oas3/swagger-ui.css')).rawPayload);
        const redirect = await t.inject('/maximo/oas3/');
        expect(redirect.statusCode).to.equal(302);
        expect(redirect.headers.location).to.equal('/maximo/oas3/api.html');
        const missing = await t.inject('/maximo/oas3/index.html');
        expect(missing.statusCode).to.equal(404);
        expect(missing.result.Error.message).to.contain('/maximo/oas3/index.html is not a file of the API page: its files are api.html, api.js');
        // No login is read on the page: credentials in its URL are refused by name.
        const credentials = await t.inject('/maximo/oas3/api.html?_lid=wilson&_lpwd=wilson');
        expect(credentials.statusCode).to.equal(400);
        expect(credentials.result.Error.message).to.contain('The query parameter _lid is not carried out on the API page');
    });

    test('what the demo\'s YAML does not declare: an attribute\'s description, a default length, a relation\'s description', () => {

        const registry = t.server.app.osprey.registry;
        const wo = registry.get('MXAPIWODETAIL')!;
        const described = { ...wo.root.attributes.get('description')!, description: 'What is to be done', title: undefined, length: undefined };
        expect(attributeSchema(described, registry.domains())).to.include({ description: 'What is to be done', title: 'description', maxLength: 100 });
        const relations = { ...wo.def.relations, asset: { ...wo.def.relations.asset!, description: 'The asset worked on' } };
        const schemas = structureSchemas({ ...wo, def: { ...wo.def, relations } }, registry.domains());
        expect(String((schemas.mxapiwodetail as any).properties.asset.description)).to.startWith('The asset worked on (relation asset: ');
    });

    test('the actions of a structure the user may run, on its record and collection routes', async () => {

        const registry = t.server.app.osprey.registry;
        const routes = listedRoutes(t.server, 'maximo', 'oslc');
        const user = { userid: 'SOMEONE', isAdmin: false, groups: ['EVERYONE'] } as unknown as UserProfile;
        const handler = () => null;
        const actions = (structure: Structure) => (structure.name === 'MXAPIWODETAIL' ? [
            { name: 'countall', kind: 'action', method: 'countall', structure: 'MXAPIWODETAIL', spec: { scope: 'collection', right: 'none', handler } },
            { name: 'purge', kind: 'action', method: 'purge', structure: 'MXAPIWODETAIL', spec: { scope: 'collection', description: 'Purge', handler } },
            { name: 'look', kind: 'action', method: 'look', structure: 'MXAPIWODETAIL', spec: { right: 'read', description: 'Look', handler } }
        ] as RegisteredAction[] : []);
        const document = JSON.parse(await oasText({ registry, routes, contextRoot: 'maximo', home: 'oslc', version: '1', user, actions })) as Doc;
        expect(String(document.paths['/os/mxapiwodetail']!.get.description)).to.endWith('Its collection actions (action=NAME): countall.');
        expect(String(document.paths['/os/mxapiwodetail/{id}']!.get.description)).to.endWith('Its record actions (action=NAME): look (Look).');
        expect(String(document.paths['/os/mxapiasset/{id}']!.get.description)).to.endWith('a record action.');
        expect(document.paths['/os/mxapiwodetail/{id}/woactivity']!.get.description).to.not.exist();
    });

    test('a route no catalog entry describes is listed by its path, under its plugin', async () => {

        const user = { userid: 'WILSON', isAdmin: false, groups: ['EVERYONE'] } as unknown as UserProfile;
        const routes = [
            { method: 'get', path: '/thing/{name}', id: 'thing.read', root: false, plugin: 'things' },
            { method: 'get', path: '/thing/{name}/{part}', id: 'thing.part', root: false, plugin: 'things' },
            { method: 'delete', path: '/stray', id: 'DELETE /maximo/oslc/stray', root: false }
        ];
        const document = JSON.parse(await oasText({ registry: t.server.app.osprey.registry, routes, contextRoot: 'maximo', home: 'oslc', version: '1', user, actions: () => [] })) as Doc;
        expect(document.paths['/thing/{name}']!.get).to.include({ tags: ['Plugin things'], summary: 'GET /thing/{name}', 'x-osprey-route': 'thing.read' });
        expect(document.paths['/thing/{name}']!.get.parameters).to.equal([{ name: 'name', in: 'path', required: true, description: 'The name', schema: { type: 'string' } }]);
        expect(document.paths['/thing/{name}/{part}']!.get.parameters[1]).to.include({ name: 'part', description: 'part' });
        expect(document.paths['/stray']!.delete.tags).to.equal(['Other']);
    });

    test('a document is made in slices: the event loop has turns between the structures\' parts', async () => {

        const registry = t.server.app.osprey.registry;
        const routes = listedRoutes(t.server, 'maximo', 'oslc');
        const user = { userid: 'MAXADMIN', isAdmin: true, groups: ['MAXADMIN'] } as unknown as UserProfile;
        // A pause that gives a turn at every step, and counts the steps and the turns other work had meanwhile.
        let pauses = 0;
        let turns = 0;
        const pause = () => {

            ++pauses;
            setImmediate(() => ++turns);
            return new Promise<void>((resolve) => setImmediate(resolve));
        };

        const text = await oasText({ registry, routes, contextRoot: 'maximo', home: 'oslc', version: '1', user, actions: () => [] }, undefined, '', pause);
        const structures = Object.keys((JSON.parse(text) as Doc).paths).filter((path) => /^\/os\/[a-z0-9]+$/.test(path)).length;
        expect(structures).to.equal(registry.list().length);
        // Each structure's paths and schemas are a step.
        expect(pauses).to.equal(2 * structures);
        expect(turns).to.equal(pauses);
    });

    test('the document of a set of rights is made once', async () => {

        const first = await t.inject({ url: '/maximo/oslc/oas', headers: wilson });
        const again = await t.inject({ url: '/maximo/oslc/oas', headers: wilson });
        expect(again.payload).to.equal(first.payload);

        // Kept within a budget of characters, the least recently used going first; a part too large is not kept.
        let made = 0;
        const cache = new PartCache(10);
        const make = (name: string) => {

            return () => `${name}${++made}`;
        };

        expect(cache.get('a', make('a'))).to.equal('a1');
        expect(cache.get('b', make('b'))).to.equal('b2');
        expect(cache.get('a', make('a'))).to.equal('a1');          // a is now the most recently used
        expect(cache.get('c', make('cccccc'))).to.equal('cccccc3');  // 2 + 2 + 7 > 10: b goes
        expect(cache.get('a', make('a'))).to.equal('a1');
        expect(cache.get('b', make('b'))).to.equal('b4');
        expect(cache.get('big', make('more than ten'))).to.equal('more than ten5');
        expect(cache.get('big', make('more than ten'))).to.equal('more than ten6');
    });
});

// The fixtures' structures, each on a server of its own: the document is valid whatever the YAML declares.
for (const from of ['valid', 'authz', 'secrets']) {
    onEachDatabase(lab, `the OpenAPI document of the ${from} fixture`, { settings: { demo: false, adminUser: 'MAXADMIN', adminPassword: 'maxadmin' }, fixture: { from } }, (t) => {

        before(async () => {

            const { users } = t.server.app.osprey;
            await users.ensureGroup('PLANNERS', 'Planners', false);
            await users.create({ userid: 'WILSON', password: 'wilson', groups: ['EVERYONE', 'PLANNERS'] });
            // Routes of no plugin and without an id, as an embedder may add (the document is made after them).
            t.server.route({ method: 'GET', path: '/maximo/oslc/embedded', options: { app: { home: 'oslc' }, handler: () => 'embedded' } });
            t.server.route({ method: 'GET', path: '/maximo/embedded/{name*}', handler: () => 'embedded' });
        });

        test('valid for the administrator and a user, every route of the home, only the structures each may read', async () => {

            const registry = t.server.app.osprey.registry;
            const admin = await documentOf(t, '/maximo/oslc/oas', maxadmin);
            await expectValid(admin);
            expectEveryRoute(t, 'oslc', admin, true);
            expect(admin.paths[`/os/${registry.list()[0]!.id}/{id}`]).to.exist();
            expect(admin.paths['/embedded']!.get).to.include({ tags: ['Other'], 'x-osprey-route': 'get /maximo/oslc/embedded' });
            expect(admin.paths['/embedded/{name}']!.servers).to.equal([{ url: '/maximo' }]);
            expect(admin.tags.map((tag: { name: string }) => tag.name)).to.equal(registry.list().map((structure) => structure.name));
            // Only what answers (found by a hostile probe): checkosauthorized without its structure only refuses,
            // and app= is allowedappoptions' alone.
            expect(admin.paths['/permission/checkosauthorized']).to.not.exist();
            const takesApp = Object.entries(admin.paths).filter(([, item]: [string, any]) => item.get?.parameters?.some((parameter: { $ref?: string }) => /app$/i.test(parameter.$ref ?? ''))).map(([path]) => path);
            expect(takesApp).to.equal(['/permission/allowedappoptions']);
            const user = await documentOf(t, '/maximo/oslc/oas', wilson);
            await expectValid(user);
            const profile = (await t.server.app.osprey.users.profile('WILSON'))!;
            const readable = registry.list().filter((structure) => structure.def.access.read.some((group) => profile.groups.includes(group))).map((structure) => structure.name);
            expect(user.tags.map((tag: { name: string }) => tag.name)).to.equal(readable);
            if (from === 'authz') {
                expect(readable).to.not.include('MXAUTHPAYROLL');
                const refused = await t.inject({ url: '/maximo/oslc/oas/mxauthpayroll', headers: wilson });
                expect(refused.statusCode).to.equal(403);
                expect(refused.result.Error.message).to.contain('not authorized to read MXAUTHPAYROLL');
            }

            if (from === 'secrets') {
                const secret = Object.values(admin.components.schemas).flatMap((schema: any) => Object.values(schema.properties ?? {})).filter((property: any) => property.writeOnly);
                expect(secret.length).to.be.above(0);
            }
        });
    });
}
