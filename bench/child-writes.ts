import * as Fs from 'node:fs';
import * as Os from 'node:os';
import * as Path from 'node:path';

import { startServer } from './processes';
import { scratchDatabase, takeOption } from './scratch-database';
import { summarizeProfile } from './profile';
import { measureResponsiveness } from './responsiveness';


// Times writes of a work order's child rows (issue 34): a create with n tasks, a merge of n new tasks, a merge
// of the same n again (each one an update), an update that replaces them with n others, while another
// connection sends GET /maximo/health one after the other. Prints one line per write: its time, and the
// health checks' p99 and max. Not part of npm run bench (which has the 32,000-task merge among its goals).
//
//   npm run --silent build && node dist/bench/child-writes.js [--pg postgres://postgres@127.0.0.1:5432/postgres] [--profile DIR] [1000,8000,32000]
//
// --profile: the server runs under node --cpu-prof, and the functions it spent most time in are printed.

const args = process.argv.slice(2);
const option = (name: string) => takeOption(args, name);

const adminUrl = option('--pg');
const profile = option('--profile');
const counts = (args[0] ?? '1000,8000,32000').split(',').map(Number);

const headers = { maxauth: Buffer.from('wilson:wilson').toString('base64'), 'content-type': 'application/json' };
const wos = '/maximo/oslc/os/mxapiwodetail';

const tasks = (n: number, from: number, text: string) => Array.from({ length: n }, (_, i) => ({ taskid: from + i, description: `${text} ${i}`, estdur: 1.5 }));

const database = () => scratchDatabase('osprey_children', adminUrl);

const main = async () => {

    const db = await database();
    const data = Fs.mkdtempSync(Path.join(Os.tmpdir(), 'osprey-children-data-'));
    const server = await startServer('Osprey', 'dist/src/main.js', {
        DATABASE_URL: db.url, OSPREY_DEMO: '1', OSPREY_LOG: 'error', OSPREY_SECRET: 'osprey-benchmark-secret-0123456789abcdef', OSPREY_DATA: data
    }, profile ? ['--cpu-prof', `--cpu-prof-dir=${profile}`] : [], 'is listening on');
    try {
        const request = async (method: string, path: string, body: unknown, extra: Record<string, string> = {}) => {

            const res = await fetch(server.url + path, { method, headers: { ...headers, ...extra }, body: JSON.stringify(body) });
            if (res.status >= 300) {
                throw new Error(`${method} ${path}: ${res.status} ${await res.text()}`);
            }

            return res;
        };

        const time = async (title: string, path: string, body: unknown, extra: Record<string, string>) => {

            const result = await measureResponsiveness(server.url, {}, { name: title, title, method: 'POST', path, headers: { ...headers, ...extra }, body: JSON.stringify(body) });
            const { work, health } = result;
            process.stdout.write(`${title.padEnd(44)} ${String(work.status).padEnd(4)} ${work.seconds.toFixed(2).padStart(7)} s   health p99 ${health.p99.toFixed(1).padStart(7)} ms, max ${health.max.toFixed(1).padStart(7)} ms (${health.requests} checks)\n`);
        };

        const merge = { 'x-method-override': 'PATCH', patchtype: 'MERGE' };
        const update = { 'x-method-override': 'PATCH' };
        process.stdout.write(`${adminUrl ? 'PostgreSQL' : 'SQLite'}\n`);
        for (const n of counts) {
            await time(`create with ${n} tasks`, wos, { siteid: 'BEDFORD', description: 'children', woactivity: tasks(n, 1, 'new') }, {});
            const created = await request('POST', wos, { siteid: 'BEDFORD', description: 'children' });
            const path = new URL(created.headers.get('location')!).pathname;
            await time(`merge of ${n} new tasks`, path, { woactivity: tasks(n, 1, 'new') }, merge);
            await time(`merge of the same ${n} tasks`, path, { woactivity: tasks(n, 1, 'changed') }, merge);
            await time(`update replacing ${n} tasks by ${n}`, path, { woactivity: tasks(n, n + 1, 'other') }, update);
        }
    }
    finally {
        await server.stop();
        await db.drop();
        Fs.rmSync(data, { recursive: true, force: true });
    }

    if (profile) {
        const file = Fs.readdirSync(profile).filter((name) => name.endsWith('.cpuprofile')).map((name) => Path.join(profile, name)).sort((a, b) => Fs.statSync(b).mtimeMs - Fs.statSync(a).mtimeMs)[0]!;
        const summary = summarizeProfile(file, undefined, 30);
        process.stdout.write(`busy ${summary.busyMs} ms, idle ${summary.idleMs} ms\n${summary.functions.map((entry) => `${String(entry.selfMs).padStart(7)} ms ${String(entry.percent).padStart(5)} %  ${entry.name}`).join('\n')}\n`);
    }
};

main().catch((error) => {

    process.stderr.write(`${error.stack}\n`);
    process.exit(1);
});
