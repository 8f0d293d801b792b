import * as ChildProcess from 'node:child_process';
import * as Fs from 'node:fs';
import * as Os from 'node:os';
import * as Path from 'node:path';

import * as Code from '@hapi/code';
import * as Lab from '@hapi/lab';

import { testDatabases } from '../helpers/databases';
import { dataDir, startProcess } from '../helpers/process';
import { root } from '../helpers/server';


const { experiment, test } = exports.lab = Lab.script();
const { expect } = Code;

// The README's Attachments section, run as pasted (its shell block, against a real server process on a fresh demo
// database; only the port differs): a failing example there is a failing test here.

const readme = Fs.readFileSync(Path.join(root, 'README.md'), 'utf8');
const section = readme.slice(readme.indexOf('### Attachments\n'), readme.indexOf('### Actions\n'));
const script = /```sh\n([\s\S]*?)```/.exec(section)![1]!;

for (const database of testDatabases) {
    experiment(`the README's attachment examples (${database.name})`, { timeout: 60_000 }, () => {

        test('run as written: upload, list, identical download, a range, the meta, the delete', async () => {

            const created = await database.create();
            const server = await startProcess({ DATABASE_URL: created.url, OSPREY_DATA: dataDir() });
            const dir = Fs.mkdtempSync(Path.join(Os.tmpdir(), 'osprey-readme-'));
            try {
                const run = ChildProcess.spawnSync('bash', ['-eo', 'pipefail', '-c', script.replaceAll('127.0.0.1:8080', `127.0.0.1:${server.port}`)], { cwd: dir, encoding: 'utf8' });
                expect(run.status, run.stderr).to.equal(0);
                const lines = run.stdout.split('\n');
                expect(lines[0]).to.match(/^location: http:\/\/127\.0\.0\.1:\d+\/maximo\/oslc\/os\/mxapiwodetail\/_QkVERk9SRC8xMDAw\/doclinks\/\d+\r?$/i);
                expect(JSON.parse(lines[1]!).member[0].describedBy).to.include({ fileName: 'pump.jpg', description: 'The failed pump' });
                expect(lines[2]).to.equal('identical');
                expect(lines[3]).to.equal('pump');
                expect(JSON.parse(lines[4]!)).to.include({ title: 'pump.jpg', urlType: 'FILE', attachmentSize: 16 });
                expect(lines[5]).to.equal('204');
            }
            finally {
                await server.stop();
                await created.drop();
                Fs.rmSync(dir, { recursive: true, force: true });
            }
        });
    });
}
