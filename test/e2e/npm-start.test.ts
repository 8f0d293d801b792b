import * as ChildProcess from 'node:child_process';
import * as Fs from 'node:fs';
import * as Os from 'node:os';
import * as Path from 'node:path';

import * as Code from '@hapi/code';
import * as Lab from '@hapi/lab';

import { testDatabases } from '../helpers/databases';
import { dataDir, portFreed, startProcess } from '../helpers/process';
import { root } from '../helpers/server';


const { experiment, test } = exports.lab = Lab.script();
const { expect } = Code;


for (const database of testDatabases) {
    experiment(`npm start (${database.name})`, { timeout: 120_000 }, () => {

        test('serves, and a SIGTERM sent to the npm process reaches the server, which drains, frees the port and exits 0', async () => {

            // package.json's start is `exec node scripts/start.js`: Debian's sh (dash) does not exec the last
            // command of `sh -c` itself, and npm forwards a SIGTERM to its child only, so without `exec` the shell
            // died and the server went on listening.
            const created = await database.create();
            const running = await startProcess({ DATABASE_URL: created.url, OSPREY_DATA: dataDir() }, ['npm', 'start', '--silent']);
            try {
                const res = await fetch(`http://127.0.0.1:${running.port}/maximo/oslc/whoami`, { headers: { maxauth: Buffer.from('wilson:wilson').toString('base64') } });
                expect(res.status).to.equal(200);
            }
            finally {
                expect(await running.stop()).to.equal(0);
                await created.drop();
            }

            expect(await portFreed(running.port)).to.be.true();
            expect(running.output()).to.match(/Osprey received SIGTERM, draining requests[\s\S]*Osprey stopped/);
        });
    });
}

experiment('the start launcher (scripts/start.js)', { timeout: 180_000 }, () => {

    // A project of its own beside a copy of the launcher: src/main.ts prints its arguments.
    const project = () => {

        const dir = Fs.mkdtempSync(Path.join(Os.tmpdir(), 'osprey-launcher-'));
        Fs.mkdirSync(Path.join(dir, 'scripts'));
        Fs.mkdirSync(Path.join(dir, 'src'));
        Fs.copyFileSync(Path.join(root, 'scripts', 'start.js'), Path.join(dir, 'scripts', 'start.js'));
        Fs.writeFileSync(Path.join(dir, 'tsconfig.json'), JSON.stringify({
            compilerOptions: { outDir: 'dist', rootDir: '.', incremental: true, tsBuildInfoFile: 'dist/.tsbuildinfo', types: ['node'] },
            include: ['src/**/*.ts']
        }));
        Fs.writeFileSync(Path.join(dir, 'src', 'main.ts'), 'console.log(`main ${process.argv.slice(2).join(\' \')}`);\n');
        const run = () => ChildProcess.spawnSync(process.execPath, [Path.join(dir, 'scripts', 'start.js'), '--config', 'x.yaml'], { cwd: dir, encoding: 'utf8' });
        const typescript = (present: boolean) => (present ? Fs.symlinkSync(Path.join(root, 'node_modules'), Path.join(dir, 'node_modules')) : Fs.rmSync(Path.join(dir, 'node_modules')));
        return { dir, run, typescript };
    };

    test('builds when dist is missing or older than src and TypeScript is there, else runs the last build or says what to do', () => {

        const { dir, run, typescript } = project();
        try {
            // Not built, no TypeScript (npm ci --omit=dev on a fresh clone): one sentence, exit 1.
            const unbuilt = run();
            expect(unbuilt.status).to.equal(1);
            expect(unbuilt.stdout).to.equal('');
            expect(unbuilt.stderr).to.equal('Osprey is not built (dist/src/main.js is missing) and TypeScript is not installed: run `npm ci && npm run build` (or `npm install && npm run build`) once, then `npm start` or `node dist/src/main.js`.\n');

            // With TypeScript: built, then run in the same process with the arguments.
            typescript(true);
            const built = run();
            expect(built.status, built.stderr).to.equal(0);
            expect(built.stdout).to.equal('main --config x.yaml\n');
            expect(Fs.existsSync(Path.join(dir, 'dist', 'src', 'main.js'))).to.be.true();

            // Up to date: no build needed, so none is missed without TypeScript.
            typescript(false);
            const again = run();
            expect(again.status).to.equal(0);
            expect(again.stderr).to.equal('');
            expect(again.stdout).to.equal('main --config x.yaml\n');

            // src changed, no TypeScript: the last build runs, and it says so.
            const later = new Date(Date.now() + 60_000);
            Fs.writeFileSync(Path.join(dir, 'src', 'main.ts'), 'console.log(\'changed\');\n');
            Fs.utimesSync(Path.join(dir, 'src', 'main.ts'), later, later);
            const stale = run();
            expect(stale.status).to.equal(0);
            expect(stale.stderr).to.equal('dist/ is older than src/ and TypeScript is not installed: starting the last build (`npm run build` with the dev dependencies updates it).\n');
            expect(stale.stdout).to.equal('main --config x.yaml\n');

            // With TypeScript again: rebuilt.
            typescript(true);
            const rebuilt = run();
            expect(rebuilt.status, rebuilt.stderr).to.equal(0);
            expect(rebuilt.stdout).to.equal('changed\n');
        }
        finally {
            Fs.rmSync(dir, { recursive: true, force: true });
        }
    });
});
