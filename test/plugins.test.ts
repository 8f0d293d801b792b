import * as ChildProcess from 'node:child_process';
import * as Fs from 'node:fs';
import * as Os from 'node:os';
import * as Path from 'node:path';

import type * as Hapi from '@hapi/hapi';
import * as Code from '@hapi/code';
import * as Lab from '@hapi/lab';

import { app } from '../src/app';
import { loadOptions } from '../src/config';
import * as Root from '../src/index';
import { loadPlugins, pluginName, PluginError } from '../src/user-plugins';
import { testDatabases } from './helpers/databases';
import { runToExit, startProcess } from './helpers/process';
import { maxadmin, root, startTestServer, wilson, type TestServer } from './helpers/server';


const { experiment, test, before, after } = exports.lab = Lab.script();
const { expect } = Code;

const tmp = () => Fs.mkdtempSync(Path.join(Os.tmpdir(), 'osprey-plugins-'));
const hello = Path.join(__dirname, 'fixtures', 'plugins', 'hello');
const compiled = (name: string) => Path.join('dist', 'test', 'fixtures', 'plugins', name);

experiment('user plugins: configuration and loading', () => {

    test('OSPREY_PLUGINS is a comma-separated list, `plugins` a list or the same string; none by default', () => {

        expect(loadOptions({}).plugins).to.equal([]);
        expect(loadOptions({ OSPREY_PLUGINS: ' ./a.js, b ,,' }).plugins).to.equal(['./a.js', 'b']);
        const dir = tmp();
        const file = Path.join(dir, 'osprey.config.yaml');
        Fs.writeFileSync(file, 'plugins: [./one, ./two]\n');
        expect(loadOptions({}, file).plugins).to.equal(['./one', './two']);
        Fs.writeFileSync(file, 'plugins: [42]\n');
        expect(() => loadOptions({}, file)).to.throw(/osprey\.config\.yaml: plugins/);
    });

    test('a module\'s default export, else its `plugin` export, else the module\'s export itself is the plugin; paths resolve from the working directory', () => {

        const dir = tmp();
        Fs.writeFileSync(Path.join(dir, 'default.js'), 'exports.default = { name: "a", register() {} };\n');
        Fs.writeFileSync(Path.join(dir, 'named.js'), 'exports.plugin = { pkg: { name: "b" }, register() {} };\n');
        Fs.writeFileSync(Path.join(dir, 'whole.js'), 'module.exports = { name: "w", register() {} };\n');
        const plugins = loadPlugins(['./default.js', './named', './whole'], dir);
        expect(plugins.map(pluginName)).to.equal(['a', 'b', 'w']);
        expect(loadPlugins([])).to.equal([]);
        Fs.mkdirSync(Path.join(dir, 'node_modules', 'osprey-plugin-c'), { recursive: true });
        Fs.writeFileSync(Path.join(dir, 'node_modules', 'osprey-plugin-c', 'index.js'), 'exports.plugin = { name: "c", register() {} };\n');
        expect(loadPlugins(['osprey-plugin-c', Path.join(dir, 'named.js')], dir).map(pluginName)).to.equal(['c', 'b']);
    });

    test('a bad path, a module that throws, one without a plugin and one named twice are start-up errors that name it', () => {

        const dir = tmp();
        Fs.writeFileSync(Path.join(dir, 'throws.js'), 'throw new Error("broken\\nsecond line");\n');
        Fs.writeFileSync(Path.join(dir, 'empty.js'), 'module.exports = null;\n');
        Fs.writeFileSync(Path.join(dir, 'nameless.js'), 'exports.plugin = { register() {} };\n');
        Fs.writeFileSync(Path.join(dir, 'plain.js'), 'exports.plugin = { name: "plain" };\n');
        Fs.writeFileSync(Path.join(dir, 'text.js'), 'exports.default = "plugin";\n');
        Fs.writeFileSync(Path.join(dir, 'ok.js'), 'exports.plugin = { name: "ok", register() {} };\n');
        expect(() => loadPlugins(['./missing'], dir)).to.throw(PluginError, `Plugin ./missing: no module is found at that path (resolved from ${dir})`);
        expect(() => loadPlugins(['./throws.js'], dir)).to.throw(PluginError, `Plugin ./throws.js could not be loaded from ${Path.join(dir, 'throws.js')}: broken`);
        for (const name of ['empty', 'nameless', 'plain', 'text']) {
            expect(() => loadPlugins([`./${name}`], dir)).to.throw(PluginError, new RegExp(`^Plugin \\./${name}: .*${name}\\.js exports no hapi plugin`));
        }

        for (const candidate of [null, 'plugin', { register: 'no' }, { name: '', register: () => null }, { name: 42, register: () => null }]) {
            expect(pluginName(candidate)).to.not.exist();
        }

        expect(() => loadPlugins(['./ok', './ok.js'], dir)).to.throw(PluginError, /^Plugin \.\/ok\.js: the module .*ok\.js is already named as \.\/ok$/);
    });
});

for (const database of testDatabases) {
    experiment(`a user plugin on the server (${database.name})`, () => {

        let t: TestServer;
        const given: Hapi.Plugin<unknown> = {
            name: 'given',
            register: (server) => {

                server.route({ method: 'GET', path: '/given', options: { auth: false, handler: () => ({ given: true }) } });
            }
        };

        before(async () => {

            t = await startTestServer(database, { plugins: [hello] });
        });

        after(() => t.stop());

        test('its routes answer after the built-in ones, behind Osprey\'s login and error shape, with their own parameters', async () => {

            const res = await t.inject({ url: '/maximo/hello/mxapiasset?shout=1', headers: wilson });
            expect(res.statusCode).to.equal(200);
            expect(res.result).to.equal({ hello: 'WILSON', structure: 'MXAPIASSET', object: 'ASSET', shout: true });
            expect((await t.inject({ url: '/maximo/hello/mxapiasset' })).statusCode).to.equal(401);
            const missing = await t.inject({ url: '/maximo/hello/nothing', headers: maxadmin });
            expect(missing.statusCode).to.equal(404);
            expect(missing.result.Error).to.include({ reasonCode: 'BMXAA8727E', statusCode: '404' });
            expect(missing.result.Error.message).to.contain('No structure nothing');
            expect(t.server.registrations).to.include(['osprey', 'health', 'resources', 'hello']);
            const order = Object.keys(t.server.registrations);
            expect(order.indexOf('hello')).to.be.above(order.indexOf('unserved'));
        });

        test('createServer takes plugin objects too, and the built-in routes are still held to the parameter table', async () => {

            const server = await Root.createServer({ options: t.options, plugins: [given] });
            await server.initialize();
            expect((await server.inject('/given')).result).to.equal({ given: true });
            expect((await server.inject({ url: '/maximo/health?shout=1' })).statusCode).to.equal(400);
            await server.stop();
        });
    });
}

experiment('the package root', () => {

    test('the root re-exports the framework\'s own values', () => {

        expect(Root.app).to.shallow.equal(app);
        expect(Root.validateOptions({}).plugins).to.equal([]);
        expect(Root.reasonCodes.notFound.code).to.equal('BMXAA8727E');
        expect(Root.maximoError('stale').output.statusCode).to.equal(409);
    });

    test('require(main) after the build exposes the documented names, and `types` is there', () => {

        const pkg = JSON.parse(Fs.readFileSync(Path.join(root, 'package.json'), 'utf8')) as { main: string; types: string };
        const names = ChildProcess.execFileSync(process.execPath, ['-e', 'console.log(JSON.stringify(Object.keys(require("./")).sort()))'], { cwd: root, encoding: 'utf8' });
        expect(JSON.parse(names)).to.equal([
            'Joi', 'app', 'attachmentMeta', 'boundModels', 'bulkAction', 'bulkWrite', 'callService', 'checkDescription', 'checkFileName', 'checkLink', 'checkTitle', 'clientAddress', 'createRecord', 'createServer', 'decodedName',
            'deleteAttachment', 'docTypePattern', 'documentType', 'downloadAttachment', 'errorAnswer', 'flag', 'flagOf', 'header', 'headerText', 'homeHref', 'homeRoutes', 'inTransaction', 'isAllowed', 'jsonPayload',
            'jsonSchema', 'keyInput', 'linkHref', 'listAttachments', 'loginsOf', 'maximoError', 'mboSchema', 'modelsOf', 'notProvided', 'onCommit', 'openApiDocument', 'openApiOther', 'openApiPageFile',
            'openApiPageFiles', 'openApiPagePolicy', 'openApiStructure', 'parseSelect', 'passwordCredentials', 'pdfContentSecurityPolicy', 'planSelect',
            'propertyText', 'purgeWhileRunning', 'readChildren', 'readCollection', 'readLookup', 'readMember', 'reasonCodes', 'recordBody', 'refuseCrossSite', 'refuseOtherLogins', 'relationName', 'removeRecord', 'returnPath', 'runAction', 'runWrite', 'selectSettings',
            'selectionSchema', 'sessionCookieHeader', 'sessionToken', 'structureOf', 'syncRecord', 'typeTable', 'unservedMetric', 'unservedRoutes', 'updateRecord', 'uploadAttachment', 'uploadLink', 'userOf', 'validateOptions',
            'writeSettingsFor'
        ]);
        expect(Fs.existsSync(Path.join(root, pkg.main))).to.be.true();
        const types = Fs.readFileSync(Path.join(root, pkg.types), 'utf8');
        for (const name of ['Osprey', 'Credentials', 'Registry', 'Structure', 'BusinessObject', 'Attribute', 'OspreyOptions', 'AppOptions', 'ServerSetup', 'ReasonName', 'MaximoErrorData', 'ObjectModel', 'TransactionScope', 'Db', 'UserProfile', 'HomeRoute', 'DomainDef', 'SelectPlan', 'Member', 'ResourceRequest', 'ReadQuery', 'WriteOptions', 'WriteOutcome', 'BulkResult', 'CollectionAnswer', 'Commit', 'CommittedWrite', 'CommitSubscriber', 'ActionCall', 'ActionSpec', 'EngineWrites', 'ActionOutcome', 'BulkActionResult', 'AttachmentRequest', 'DownloadAnswer', 'ReportCall', 'ReportRendererSpec', 'RenderedReport', 'RegisteredRenderer', 'ComputedSpec']) {
            expect(types).to.contain(name);
        }
    });

    test('the compiled server starts with a compiled plugin named by OSPREY_PLUGINS and answers its route', async () => {

        const server = await startProcess({ DATABASE_URL: 'sqlite::memory:', OSPREY_DATA: tmp(), OSPREY_PLUGINS: `./${compiled('hello')}` });
        try {
            const res = await fetch(`http://127.0.0.1:${server.port}/maximo/hello/mxapiwodetail`, { headers: wilson });
            expect(res.status).to.equal(200);
            expect(await res.json()).to.equal({ hello: 'WILSON', structure: 'MXAPIWODETAIL', object: 'WORKORDER', shout: false });
        }
        finally {
            expect(await server.stop()).to.equal(0);
        }
    });

    test('a bad plugin path, or a module without a plugin, stops the start naming it, without a stack trace', async () => {

        const missing = await runToExit({ DATABASE_URL: 'sqlite::memory:', OSPREY_DATA: tmp(), OSPREY_PLUGINS: './no/such/plugin' });
        expect(missing.code).to.equal(1);
        expect(missing.output).to.contain(`Plugin ./no/such/plugin: no module is found at that path (resolved from ${root})`);
        expect(missing.output).to.not.contain('    at ');
        const none = await runToExit({ DATABASE_URL: 'sqlite::memory:', OSPREY_DATA: tmp(), OSPREY_PLUGINS: compiled('not-a-plugin.js') });
        expect(none.code).to.equal(1);
        expect(none.output).to.contain(`${compiled('not-a-plugin.js')}: ${Path.join(root, compiled('not-a-plugin.js'))} exports no hapi plugin`);
        expect(none.output).to.not.contain('    at ');
    });
});
