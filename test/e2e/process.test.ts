import * as Fs from 'node:fs';
import * as Http from 'node:http';
import * as Path from 'node:path';

import * as Code from '@hapi/code';
import * as Lab from '@hapi/lab';
import { ApiHome, MaximoClientBuilder } from '@maximomize/maximo-api-client';
import BetterSqlite from 'better-sqlite3';

import { testDatabases } from '../helpers/databases';
import { quiet } from '../helpers/npm-client';
import { dataDir, runToExit, startProcess } from '../helpers/process';
import { fixtures, root } from '../helpers/server';


const { experiment, test } = exports.lab = Lab.script();
const { expect } = Code;


const rawGet = (port: number, path: string, headers: Record<string, string>): Promise<{ status: number; rawHeaders: string[]; body: string }> => new Promise((resolve, reject) => {


    Http.get({ host: '127.0.0.1', port, path, headers }, (res) => {

        let body = '';
        res.on('data', (chunk) => (body += chunk));
        res.on('end', () => resolve({ status: res.statusCode!, rawHeaders: res.rawHeaders, body }));
    }).on('error', reject);
});


for (const database of testDatabases) {
    experiment(`the real server process (${database.name})`, { timeout: 60_000 }, () => {

        test('serves the demo to the npm Maximo client with credentials on /oslc, and drains on SIGTERM', async () => {

            const created = await database.create();
            const dir = dataDir();
            // The log's two formats, one on each database: the banner for a person, or its JSON line.
            const pretty = database.name === 'sqlite';
            const running = await startProcess({ DATABASE_URL: created.url, OSPREY_DATA: dir, OSPREY_LOG: 'info', OSPREY_LOG_FORMAT: pretty ? 'pretty' : 'json' });
            try {
                expect(running.output()).to.contain(`is listening on http://127.0.0.1:${running.port}/maximo`);
                if (pretty) {
                    expect(running.output()).to.contain('database:   SQLite');
                    expect(running.output()).to.contain('WILSON / wilson');
                }
                else {
                    const started = JSON.parse(running.output().split('\n').find((line) => line.includes('is listening on'))!);
                    expect(started).to.include({ level: 'info', url: `http://127.0.0.1:${running.port}/maximo`, structures: 8 });
                    expect(started.database as string).to.startWith('PostgreSQL postgres://');
                }

                const login = await rawGet(running.port, '/maximo/oslc/login', { maxauth: Buffer.from('wilson:wilson').toString('base64') });
                expect(login.status).to.equal(200);
                expect(login.rawHeaders).to.include('Set-Cookie');
                expect(login.rawHeaders).to.include('x-request-id');

                const client = new MaximoClientBuilder().baseUrl('127.0.0.1').port(running.port).ssl(false).contextRoot('maximo')
                    .withCredentials('wilson', 'wilson').apiHome(ApiHome.OSLC).logger(quiet).build();
                await client.authenticate();
                const info = client.oslcInfoService;
                expect((await info.getWhoAmI() as { userName: string }).userName).to.equal('WILSON');
                expect((await info.fetchApiHomeDocument() as { whoami: { href: string } }).whoami.href).to.equal(`http://127.0.0.1:${running.port}/maximo/oslc/whoami`);
                expect((await info.getSystemInfo() as { database: { kind: string } }).database.kind).to.equal(database.name);
                expect((await info.getInstalledProducts() as { member: { name: string }[] }).member[0]!.name).to.equal('Osprey');
                expect((await info.getServerMembers() as { member: { thisServer: boolean }[] }).member[0]!.thisServer).to.be.true();
                expect((await info.getLicenses() as { member: unknown[] }).member).to.have.length(1);
                expect((await info.getApiMetadataDocument() as unknown[]).length).to.equal(8);

                const apiHome = await rawGet(running.port, '/maximo/api/whoami', { maxauth: Buffer.from('maxadmin:maxadmin').toString('base64') });
                expect(JSON.parse(apiHome.body).userName).to.equal('MAXADMIN');
            }
            finally {
                expect(await running.stop()).to.equal(0);
                await created.drop();
            }

            expect(running.output()).to.contain('draining requests');
            // Each request is a line: pretty, or JSON (the whole output then is JSON lines).
            if (pretty) {
                expect(running.output()).to.match(/INFO: GET \/maximo\/oslc\/login 200 \d+ ms WILSON 127\.0\.0\.1 \[/);
            }
            else {
                const lines = running.output().trim().split('\n').filter((line) => line.startsWith('{')).map((line) => JSON.parse(line));
                expect(lines.find((line) => line.msg === 'request' && line.path === '/maximo/oslc/login')).to.include({ status: 200, user: 'WILSON', client: '127.0.0.1' });
                expect(lines.at(-1).msg).to.equal('Osprey stopped');
            }

            expect(Fs.existsSync(Path.join(dir, 'secret'))).to.be.true();
        });
    });
}

experiment('starting the server', { timeout: 60_000 }, () => {

    test('runs on the sqlite3 driver too', async () => {

        const dir = dataDir();
        const running = await startProcess({ DATABASE_URL: `sqlite:${Path.join(dir, 'osprey.sqlite')}`, OSPREY_SQLITE_DRIVER: 'sqlite3', OSPREY_DATA: dir });
        try {
            const res = await rawGet(running.port, '/maximo/api/os/mxapiasset?count=1', { maxauth: Buffer.from('wilson:wilson').toString('base64') });
            // Counted through the sqlite3 driver; the file is read beside it with better-sqlite3.
            const file = new BetterSqlite(Path.join(dir, 'osprey.sqlite'), { readonly: true });
            const { n } = file.prepare('select count(*) as n from asset').get() as { n: number };
            file.close();
            expect(n).to.be.above(0);
            expect(JSON.parse(res.body)).to.equal({ totalCount: n });
        }
        finally {
            await running.stop();
        }
    });

    test('a structure file with three mistakes stops the start and names all three', async () => {

        const { code, output } = await runToExit({ OSPREY_STRUCTURES: Path.join(fixtures, 'three-mistakes'), DATABASE_URL: 'sqlite::memory:', OSPREY_DATA: dataDir() });
        expect(code).to.equal(1);
        expect(output).to.contain('Object structures are not valid (3 problems)');
        expect(output).to.contain('mxbroken.yaml:7:22 at attributes.brokennum.type: "type" must be one of');
        expect(output).to.contain('mxbroken.yaml:8:37 at attributes.description.length');
        expect(output).to.contain('mxbroken.yaml:9:26 at attributes.status.colour');
        expect(output).to.not.contain('    at ');
    });

    test('a bad setting stops the start naming it', async () => {

        const { code, output } = await runToExit({ PORT: 'x', OSPREY_DATA: dataDir() });
        expect(code).to.equal(1);
        expect(output).to.contain('- PORT: "port" must be a number');
    });

    test('validate checks a folder without starting anything', async () => {

        const Child = await import('node:child_process');
        const ok = Child.spawnSync(process.execPath, [Path.join(root, 'dist', 'src', 'validate.js'), Path.join(root, 'structures')], { encoding: 'utf8' });
        expect(ok.status).to.equal(0);
        expect(ok.stdout).to.contain('8 object structures and 8 domains are valid');
        const bad = Child.spawnSync(process.execPath, [Path.join(root, 'dist', 'src', 'validate.js'), Path.join(fixtures, 'three-mistakes')], { encoding: 'utf8' });
        expect(bad.status).to.equal(1);
        expect(bad.stderr).to.contain('(3 problems)');
        // A YAML action whose handler no plugin registered: only the composed server knows, and validate says so.
        const Os = await import('node:os');
        const folder = Fs.mkdtempSync(Path.join(Os.tmpdir(), 'osprey-validate-'));
        for (const file of Fs.readdirSync(Path.join(root, 'structures'))) {
            const text = Fs.readFileSync(Path.join(root, 'structures', file), 'utf8');
            Fs.writeFileSync(Path.join(folder, file), text.replace('handler: changeStatus', 'handler: approveAll'));
        }

        const unhandled = Child.spawnSync(process.execPath, [Path.join(root, 'dist', 'src', 'validate.js'), folder], { encoding: 'utf8' });
        Fs.rmSync(folder, { recursive: true });
        expect(unhandled.status).to.equal(1);
        expect(unhandled.stderr).to.contain('names the handler approveAll, which no plugin registered');
        expect(unhandled.stderr).to.not.contain('    at ');

        // A report naming a renderer no plugin registered, likewise.
        const reports = Fs.mkdtempSync(Path.join(Os.tmpdir(), 'osprey-validate-'));
        for (const file of Fs.readdirSync(Path.join(root, 'structures'))) {
            const text = Fs.readFileSync(Path.join(root, 'structures', file), 'utf8');
            Fs.writeFileSync(Path.join(reports, file), file === 'mxapiwodetail.yaml' ? text.replace('reports:\n', 'reports:\n  - { name: wotext, title: Text, handler: plainText }\n') : text);
        }

        const unrendered = Child.spawnSync(process.execPath, [Path.join(root, 'dist', 'src', 'validate.js'), reports], { encoding: 'utf8' });
        Fs.rmSync(reports, { recursive: true });
        expect(unrendered.status).to.equal(1);
        expect(unrendered.stderr.trim()).to.equal(`${Path.join(reports, 'mxapiwodetail.yaml')}: the report wotext of MXAPIWODETAIL names the renderer plainText, which no plugin registered (server.registerReportRenderer); the registered renderers are: none.`);
    });
});
