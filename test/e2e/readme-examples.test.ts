import * as ChildProcess from 'node:child_process';
import * as Fs from 'node:fs';
import * as Os from 'node:os';
import * as Path from 'node:path';

import * as Code from '@hapi/code';
import * as Lab from '@hapi/lab';

import { testDatabases } from '../helpers/databases';
import { dataDir, startProcess } from '../helpers/process';
import { root } from '../helpers/server';
import { answerPattern, readmeBlocks, statements } from './readme-blocks';


const { experiment, test } = exports.lab = Lab.script();
const { expect } = Code;

// Every shell example of the README runs: the blocks below in README order, in one shell, against a real server
// process on a fresh demo database (only the port differs from what a reader pastes). Every request curl sends
// must answer 2xx or a status its command's trailing comment names (`# 204; 404 if none`), curl must succeed, and where the README shows an answer (a comment line `# {…}` or `# […]`
// right after a command, `…` standing for anything) the answer must match it. A block another test runs as
// written (the set-up commands, a server started with other settings, a plugin loaded) is named in `elsewhere`
// with that test, which must read the README at that block.

const readme = Fs.readFileSync(Path.join(root, 'README.md'), 'utf8');
const blocks = readmeBlocks(readme);

const elsewhere: { starts: string; test: string; reads: string }[] = [
    // `npm install && npm test` is what .ci/run runs; npm start is started as written by the production tests.
    { starts: 'npm install && npm start', test: '.ci/run', reads: 'npm test' },
    { starts: 'npm install && npm start', test: 'test/e2e/npm-start.test.ts', reads: 'SIGTERM' },
    // A production build replaces node_modules, which the suite runs from: run by hand on a clone, as recorded there.
    { starts: 'npm ci && npm run build', test: 'docs/production.md', reads: 'npm prune --omit=dev' },
    // The osprey command runs in the checkout on a database of its own (DATABASE_URL), not the demo server's.
    { starts: 'printf \'%s\\n\' \'Juniper-Cliff-73\' | npm run --silent osprey', test: 'test/e2e/readme-users.test.ts', reads: '### Users and groups' },
    { starts: 'mkdir osprey-hello', test: 'test/e2e/plugin-package.test.ts', reads: '### A plugin in its own folder' },
    { starts: 'DATABASE_URL=postgres://', test: 'test/e2e/readme-examples.test.ts', reads: 'every PostgreSQL experiment' },
    { starts: '# OSPREY_CORS_ORIGINS=', test: 'test/http/readme-browsers.test.ts', reads: '### Browsers and proxies' },
    { starts: 'npx tsc -p tsconfig.json && npx lab --typescript -m 0 test/e2e/client-java.test.ts', test: 'test/e2e/client-java.test.ts', reads: 'compileSteps' },
    { starts: 'mkdir osprey-notes', test: 'test/e2e/plugin-chapter.test.ts', reads: '### Writing a plugin' },
    { starts: 'OSPREY_PLUGINS=', test: 'test/e2e/plugin-chapter.test.ts', reads: '### Writing a plugin' },
    { starts: 'H=http://localhost:8080/maximo/oslc', test: 'test/e2e/plugin-chapter.test.ts', reads: '### Writing a plugin' }
];

const jsExample = /^```js file=work-orders\.js\n([\s\S]*?)^```$/m.exec(readme)![1]!;

const ownedElsewhere = (text: string) => elsewhere.find((entry) => text.startsWith(entry.starts));
const runHere = blocks.filter((block) => !ownedElsewhere(block.text));

// curl, as the examples call it, with each request's status line, arguments and body kept in a folder; files are
// named by the clock so that requests inside $(…) and pipelines keep their order.
const wrapper = (log: string) => `
curl() { local f="${log}/$(date +%s%N)"; printf '%s\\n' "$*" > "$f.args"; command curl -D "$f.head" "$@" | tee "$f.body"; }
block() { touch "${log}/$(date +%s%N).block-$1"; }
`;

interface Request {
    block: number;
    args: string;
    status: number;
    body: string;
}

const requests = (log: string): Request[] => {

    const found: Request[] = [];
    let block = -1;
    for (const name of Fs.readdirSync(log).sort()) {
        const marker = /\.block-(\d+)$/.exec(name);
        if (marker) {
            block = Number(marker[1]);
            continue;
        }

        if (!name.endsWith('.args')) {
            continue;
        }

        const base = Path.join(log, name.slice(0, -5));
        const body = Fs.existsSync(`${base}.body`) ? Fs.readFileSync(`${base}.body`, 'utf8') : '';
        // An example's own -D - wins over the wrapper's -D: its headers are then in the body.
        const head = Fs.existsSync(`${base}.head`) ? Fs.readFileSync(`${base}.head`, 'utf8') : body;
        const status = [...head.matchAll(/^HTTP\/[\d.]+ (\d{3})/gm)].pop();
        found.push({ block, args: Fs.readFileSync(`${base}.args`, 'utf8').trim(), status: status ? Number(status[1]) : 0, body });
    }

    return found;
};

experiment('the README\'s shell examples', () => {

    test('every block is run here or by the test named for it', () => {

        expect(blocks.length).to.be.at.least(15);
        expect(runHere.length).to.be.at.least(10);
        for (const entry of elsewhere) {
            expect(blocks.some((block) => block.text.startsWith(entry.starts)), entry.starts).to.be.true();
            expect(Fs.readFileSync(Path.join(root, entry.test), 'utf8'), entry.test).to.contain(entry.reads);
        }
    });
});

for (const database of testDatabases) {
    experiment(`the README's shell examples, run as pasted (${database.name})`, { timeout: 120_000 }, () => {

        test('every request answers 2xx and every answer shown matches', async () => {

            const created = await database.create();
            const server = await startProcess({ DATABASE_URL: created.url, OSPREY_DATA: dataDir() });
            const dir = Fs.mkdtempSync(Path.join(Os.tmpdir(), 'osprey-readme-'));
            const log = Path.join(dir, 'requests');
            Fs.mkdirSync(log);
            try {
                const script = wrapper(log) + runHere.map((block, i) => `block ${i}\n${block.text}`).join('\n');
                const run = await bash(script.replaceAll(':8080/', `:${server.port}/`), dir);
                expect(run.status, run.stderr).to.equal(0);

                const sent = requests(log);
                let checked = 0;
                for (const [i, block] of runHere.entries()) {
                    const mine = sent.filter((request) => request.block === i);
                    const commands = statements(block.text);
                    expect(mine.length, `README line ${block.line}: requests sent`).to.equal(commands.reduce((sum, command) => sum + command.requests, 0));
                    let at = 0;
                    for (const command of commands) {
                        for (const request of mine.slice(at, at + command.requests)) {
                            const where = `README line ${block.line + command.line}: curl ${request.args}`;
                            expect(request.status >= 200 && request.status < 300 || command.statuses.includes(request.status), where).to.be.true();
                        }

                        at += command.requests;
                        if (command.answer) {
                            const body = mine[at - 1]!.body.trim();
                            expect(body, `README line ${block.line + command.line}`).to.match(answerPattern(command.answer));
                            ++checked;
                        }
                    }
                }

                expect(checked).to.be.at.least(8);

                // The npm client's program of "Using Osprey from code", as written there, on the same server.
                Fs.writeFileSync(Path.join(dir, 'work-orders.js'), jsExample.replace('.port(8080)', `.port(${server.port})`));
                Fs.symlinkSync(Path.join(root, 'node_modules'), Path.join(dir, 'node_modules'));
                const node = ChildProcess.spawnSync(process.execPath, ['work-orders.js'], { cwd: dir, encoding: 'utf8', timeout: 60_000 });
                expect(node.status, node.stderr).to.equal(0);
                expect(node.stdout).to.match(/^\d+ waiting at BEDFORD; the newest: \d+, \d+, \d+\ncreated \d+ \(WAPPR\)\n$/);
                const left = await fetch(`http://127.0.0.1:${server.port}/maximo/oslc/os/mxapiwodetail?count=1&oslc.where=description=%22Pump%20vibration%22`, { headers: { maxauth: Buffer.from('wilson:wilson').toString('base64') } });
                expect(await left.json()).to.equal({ totalCount: 0 });
            }
            finally {
                await server.stop();
                await created.drop();
                Fs.rmSync(dir, { recursive: true, force: true });
            }
        });
    });
}

// Not spawnSync: a slow answer must not hold this process's timers.
const bash = (text: string, cwd: string): Promise<{ status: number | null; stderr: string }> => {

    return new Promise((resolve) => {

        const child = ChildProcess.spawn('bash', ['-eo', 'pipefail', '-c', text], { cwd, stdio: ['ignore', 'ignore', 'pipe'] });
        let stderr = '';
        child.stderr.on('data', (chunk) => (stderr += chunk));
        child.on('close', (status) => resolve({ status, stderr }));
    });
};
