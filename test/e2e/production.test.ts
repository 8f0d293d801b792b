import * as ChildProcess from 'node:child_process';
import * as Fs from 'node:fs';
import * as Os from 'node:os';
import * as Path from 'node:path';

import * as Code from '@hapi/code';
import * as Lab from '@hapi/lab';
import BetterSqlite from 'better-sqlite3';
import Knex from 'knex';

import { testDatabases } from '../helpers/databases';
import { dataDir, portFreed, startProcess } from '../helpers/process';
import { root } from '../helpers/server';


const { experiment, test } = exports.lab = Lab.script();
const { expect } = Code;

// README's Production section and deploy/: the node the systemd unit starts, with the environment file's
// settings (only the database, port and data folder swapped), and the backups the section gives, taken while
// the node serves.

const readme = Fs.readFileSync(Path.join(root, 'README.md'), 'utf8');
const section = readme.slice(readme.indexOf('\n## Production\n'), readme.indexOf('\n## Reading and writing records\n'));
const command = (start: string) => new RegExp('`(' + start + '[^`]*)`').exec(section)![1]!;

const unit = Fs.readFileSync(Path.join(root, 'deploy', 'osprey.service'), 'utf8');
const unitValue = (key: string) => new RegExp(`^${key}=(.*)$`, 'm').exec(unit)![1]!;

const environment = Object.fromEntries(Fs.readFileSync(Path.join(root, 'deploy', 'osprey.env'), 'utf8').split('\n')
    .filter((line) => /^[A-Z_]+=/.test(line)).map((line) => [line.slice(0, line.indexOf('=')), line.slice(line.indexOf('=') + 1)]));

for (const database of testDatabases) {
    experiment(`the README's Production section (${database.name})`, { timeout: 90_000 }, () => {

        test('the unit\'s command with the environment file serves its administrator, is backed up as written while it writes, and stops on SIGTERM', async () => {

            expect(unitValue('WorkingDirectory')).to.equal('/opt/osprey');
            expect(unitValue('EnvironmentFile')).to.equal('/etc/osprey/osprey.env');
            expect(unitValue('KillSignal')).to.equal('SIGTERM');
            const [node, ...args] = unitValue('ExecStart').split(' ');
            expect(node).to.equal('/usr/bin/node');
            expect(args).to.equal(['dist/src/main.js']);
            expect(environment).to.include({ OSPREY_DEMO: '0', OSPREY_ADMIN_USER: 'MAXADMIN', OSPREY_TRUST_PROXY: '1', OSPREY_PUBLIC_ORIGINS: 'https://eam.example.com' });

            const created = await database.create();
            const dir = Fs.mkdtempSync(Path.join(Os.tmpdir(), 'osprey-backup-'));
            const running = await startProcess({ ...environment, DATABASE_URL: created.url, OSPREY_DATA: dataDir(), OSPREY_LOG: 'error' }, [process.execPath, ...args]);
            const restored = await database.create();
            let stopped: string[] = [];
            try {
                const admin = { maxauth: Buffer.from(`${environment.OSPREY_ADMIN_USER}:${environment.OSPREY_ADMIN_PASSWORD}`).toString('base64') };
                const whoami = await fetch(`http://127.0.0.1:${running.port}/maximo/oslc/whoami`, { headers: admin });
                expect(whoami.status).to.equal(200);
                // Not demo data: an empty database but for the administrator; hrefs on the public origin.
                expect(await whoami.json()).to.include({ userName: 'MAXADMIN', href: 'https://eam.example.com/maximo/oslc/whoami' });

                // Writes go on while the backup is taken; the one answered before it is in the backup.
                const write = (description: string) => fetch(`http://127.0.0.1:${running.port}/maximo/oslc/os/mxapiasset`, { method: 'POST', headers: { ...admin, 'content-type': 'application/json' }, body: JSON.stringify({ siteid: 'BEDFORD', assetnum: description, description }) });
                expect((await write('BACKED-UP')).status).to.equal(201);
                const more = Promise.all(Array.from({ length: 20 }, (_, i) => write(`MORE-${i}`)));

                let assets: string[];
                if (database.name === 'sqlite') {
                    const file = created.url.slice('sqlite:'.length);
                    const backup = command('sqlite3 ').replace('data/osprey.sqlite', file);
                    expect(backup).to.equal(`sqlite3 ${file} ".backup osprey-backup.sqlite"`);
                    ChildProcess.execSync(backup, { cwd: dir, shell: '/bin/bash', stdio: 'pipe' });
                    await more;
                    const copy = new BetterSqlite(Path.join(dir, 'osprey-backup.sqlite'), { readonly: true });
                    assets = (copy.prepare('select assetnum from asset').all() as { assetnum: string }[]).map((row) => row.assetnum);
                    copy.close();
                }
                else {
                    const dump = command('pg_dump ');
                    expect(dump).to.equal('pg_dump -Fc -f osprey.dump "$DATABASE_URL"');
                    ChildProcess.execSync(dump, { cwd: dir, shell: '/bin/bash', stdio: 'pipe', env: { ...process.env, DATABASE_URL: created.url } });
                    await more;
                    ChildProcess.execFileSync('pg_restore', ['--no-owner', '-d', restored.url, Path.join(dir, 'osprey.dump')], { stdio: 'pipe' });
                    const knex = Knex({ client: 'pg', connection: restored.url });
                    assets = (await knex('asset').select('assetnum')).map((row: { assetnum: string }) => row.assetnum);
                    await knex.destroy();
                }

                expect(assets).to.include('BACKED-UP');
            }
            finally {
                expect(await running.stop()).to.equal(0);
                if (database.name === 'sqlite') {
                    const file = created.url.slice('sqlite:'.length);
                    const copied = Path.join(dir, 'stopped', 'osprey.sqlite');
                    Fs.mkdirSync(Path.dirname(copied));
                    Fs.copyFileSync(file, copied);
                    if (Fs.existsSync(`${file}-wal`)) {
                        Fs.copyFileSync(`${file}-wal`, `${copied}-wal`);
                    }

                    const copy = new BetterSqlite(copied);
                    stopped = (copy.prepare('select assetnum from asset order by assetnum').all() as { assetnum: string }[]).map((row) => row.assetnum);
                    copy.close();
                }

                await created.drop();
                await restored.drop();
                Fs.rmSync(dir, { recursive: true, force: true });
            }

            expect(await portFreed(running.port)).to.be.true();
            expect(running.output()).to.match(/Osprey received SIGTERM, draining requests[\s\S]*Osprey stopped/);
            // "stop the server first and copy osprey.sqlite with its osprey.sqlite-wal when one is left".
            expect(stopped).to.equal(database.name === 'sqlite' ? ['BACKED-UP', ...Array.from({ length: 20 }, (_, i) => `MORE-${i}`)].sort() : []);
        });
    });
}
