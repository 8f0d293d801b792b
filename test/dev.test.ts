import * as Fs from 'node:fs';
import * as Http from 'node:http';
import * as Os from 'node:os';
import * as Path from 'node:path';
import { PassThrough } from 'node:stream';

import * as Code from '@hapi/code';
import * as Lab from '@hapi/lab';

import { Supervisor } from '../src/dev/supervisor';
import { dataDir, freePort } from './helpers/process';
import { demoStructures, root } from './helpers/server';


const lab = exports.lab = Lab.script();
const { experiment, test } = lab;
const { expect } = Code;

const made: string[] = [];
lab.after(() => made.splice(0).forEach((dir) => Fs.rmSync(dir, { recursive: true, force: true })));

const structuresCopy = (): string => {

    const dir = Fs.mkdtempSync(Path.join(Os.tmpdir(), 'osprey-dev-'));
    made.push(dir);
    Fs.cpSync(demoStructures, dir, { recursive: true });
    return dir;
};

// What the supervisor and its server printed, and a wait for a text to appear in it (after what was seen before).
const output = () => {

    const out = new PassThrough();
    let text = '';
    out.on('data', (chunk: Buffer) => (text += chunk.toString()));
    const waitFor = (needle: string, count = 1) => new Promise<void>((resolve) => {

        const look = () => (text.split(needle).length > count ? resolve() : setTimeout(look, 50));
        look();
    });

    return { out, text: () => text, waitFor };
};

const status = (port: number, path: string): Promise<number> => new Promise((resolve, reject) => {

    Http.get({ host: '127.0.0.1', port, path, headers: { maxauth: Buffer.from('wilson:wilson').toString('base64') } }, (res) => {

        res.resume();
        res.on('end', () => resolve(res.statusCode!));
    }).on('error', reject);
});

// A server of its own: its data folder, its SQLite file and its port.
const serverEnv = (port: number) => {

    const data = dataDir();
    return { PATH: process.env.PATH, OSPREY_LOG: 'error', OSPREY_DATA: data, DATABASE_URL: `sqlite:${Path.join(data, 'osprey.sqlite')}`, PORT: String(port) };
};

const edit = (file: string, change: (text: string) => string) => Fs.writeFileSync(file, change(Fs.readFileSync(file, 'utf8')));

experiment('npm run dev', { timeout: 120_000 }, () => {

    test('restarts the server when a structure file changes, and keeps it running while the files have errors', async () => {

        const dir = structuresCopy();
        const port = await freePort();
        const { out, text, waitFor } = output();
        const supervisor = new Supervisor({ dir, dist: Path.join(root, 'dist', 'src'), out, env: serverEnv(port), debounceMs: 100 });
        try {
            await supervisor.start();
            await waitFor('is listening on');
            expect(text()).to.contain(`[osprey dev] start: ${dir}: 8 object structures and 8 domains are valid`);
            expect(await status(port, '/maximo/oslc/os/mxapiasset?oslc.select=newattr&oslc.pageSize=1')).to.equal(400);

            // An attribute added: the server restarts, and its column is migrated.
            Fs.writeFileSync(Path.join(dir, 'notes.txt'), 'not a structure');
            edit(Path.join(dir, 'mxapiasset.yaml'), (yaml) => yaml.replace('attributes:\n', 'attributes:\n  newattr: { type: aln, length: 10 }\n'));
            await waitFor('is listening on', 2);
            await supervisor.settled();
            expect(text()).to.contain('[osprey dev] mxapiasset.yaml changed: ');
            expect(text()).to.contain('; the server restarts\n');
            expect(text()).to.not.contain('notes.txt');
            expect(await status(port, '/maximo/oslc/os/mxapiasset?oslc.select=newattr&oslc.pageSize=1')).to.equal(200);

            // A mistake: the line says where, and the server that runs keeps answering.
            edit(Path.join(dir, 'mxapiperson.yaml'), (yaml) => yaml.replace(/^title:/m, 'titel:'));
            await waitFor('not loaded');
            expect(text()).to.contain(`[osprey dev] mxapiperson.yaml changed: not loaded, the server keeps running with the structures it loaded before:\nObject structures are not valid (1 problem):\n- ${Path.join(dir, 'mxapiperson.yaml')}:2:1 at titel: "titel" is not allowed; did you mean "title"?`);
            expect(await status(port, '/maximo/oslc/os/mxapiasset?oslc.select=newattr&oslc.pageSize=1')).to.equal(200);

            // A server that stops on its own is said to have stopped.
            process.kill(supervisor.serverPid!, 'SIGKILL');
            await waitFor('the server stopped (SIGKILL)');
            expect(supervisor.serverPid).to.not.exist();

            // Files that are valid but that the database cannot be migrated to: the new server says why and stops.
            edit(Path.join(dir, 'mxapiperson.yaml'), (yaml) => yaml.replace(/^titel:/m, 'title:'));
            edit(Path.join(dir, 'mxapiasset.yaml'), (yaml) => yaml.replace('assettype: { type: upper, length: 16', 'assettype: { type: integer'));
            await waitFor('the server stopped (exit code 1)');
            expect(text()).to.contain('The database cannot be migrated');
        }
        finally {
            await supervisor.close();
        }

        expect(supervisor.serverPid).to.not.exist();
    });

    test('does not start a server on structures with errors, and starts it once they are mended', async () => {

        const dir = structuresCopy();
        edit(Path.join(dir, 'mxapiperson.yaml'), (yaml) => yaml.replace(/^title:/m, 'titel:'));
        const port = await freePort();
        const { out, text, waitFor } = output();
        const supervisor = new Supervisor({ dir, dist: Path.join(root, 'dist', 'src'), out, env: serverEnv(port), debounceMs: 100 });
        try {
            await supervisor.start();
            expect(text()).to.startWith('[osprey dev] start: not loaded, the server is not started:\n');
            expect(supervisor.serverPid).to.not.exist();
            edit(Path.join(dir, 'mxapiperson.yaml'), (yaml) => yaml.replace(/^titel:/m, 'title:'));
            await waitFor('is listening on');
            expect(await status(port, '/maximo/oslc/os/mxapiperson?oslc.pageSize=1')).to.equal(200);
        }
        finally {
            await supervisor.close();
        }
    });
});
