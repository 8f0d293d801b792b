import * as ChildProcess from 'node:child_process';
import * as Fs from 'node:fs';
import * as Os from 'node:os';
import * as Path from 'node:path';

import * as Code from '@hapi/code';
import * as Lab from '@hapi/lab';

import { testDatabases } from '../helpers/databases';
import { portFreed, startProcess } from '../helpers/process';
import { root } from '../helpers/server';


const { after, before, experiment, test } = exports.lab = Lab.script();
const { expect } = Code;

// README's Production section: `npm ci && npm run build`, `npm prune --omit=dev`, `node dist/src/main.js`, on a
// copy of the working tree as a clone holds it (the files git tracks, and the dist/ that `npm test` builds before
// lab runs; `npm ci` would fetch and compile for minutes), with production dependencies only. This is what catches
// a devDependency the server needs at run time.

const readme = Fs.readFileSync(Path.join(root, 'README.md'), 'utf8');
const section = readme.slice(readme.indexOf('\n## Production\n'), readme.indexOf('\n**One SQLite driver.**'));
const commands = /```sh\n([\s\S]*?)```/.exec(section)![1]!.split('\n').filter(Boolean).map((line) => line.replace(/\s+#.*$/, ''));

// Tracked files as they are in the working tree (not `git archive HEAD`: the test tests the tree it runs in).
const copyTracked = (dir: string) => {

    const files = ChildProcess.execFileSync('git', ['ls-files', '-z'], { cwd: root, encoding: 'utf8' }).split('\0').filter(Boolean);
    for (const file of files) {
        const from = Path.join(root, file);
        // A tracked file deleted in the working tree (not committed yet) is not in a clone of that tree.
        if (Fs.existsSync(from)) {
            Fs.cpSync(from, Path.join(dir, file), { preserveTimestamps: true });
        }
    }

    return files.length;
};

// The project's node_modules, hard-linked (under a second, no network, no disk): npm prune then only unlinks.
// One file is copied instead: npm rewrites its hidden lockfile in place, which would write through the link into
// the project's own node_modules/.package-lock.json.
const linkModules = (dir: string) => {

    const modules = Fs.realpathSync(Path.join(root, 'node_modules'));
    const linked = ChildProcess.spawnSync('cp', ['-al', modules, Path.join(dir, 'node_modules')], { encoding: 'utf8' });
    if (linked.status !== 0) {
        // Another file system than the checkout's (a tmpfs /tmp): hard links cannot cross it; a full copy can.
        expect(linked.stderr).to.contain('link');
        Fs.rmSync(Path.join(dir, 'node_modules'), { recursive: true, force: true });
        ChildProcess.execFileSync('cp', ['-a', modules, Path.join(dir, 'node_modules')]);
    }

    const hidden = Path.join(dir, 'node_modules', '.package-lock.json');
    Fs.rmSync(hidden);
    Fs.copyFileSync(Path.join(modules, '.package-lock.json'), hidden);
};

// Offline, with an empty cache of its own: npm can fetch nothing, so a prune that needed the network fails here.
// --ignore-scripts: removing packages runs none, and no script may build into files shared with the project.
const prune = (dir: string, cache: string) => {

    const [npm, ...args] = commands.find((command) => command.startsWith('npm prune'))!.split(' ');
    return ChildProcess.spawnSync(npm!, [...args, '--offline', '--ignore-scripts', '--no-audit', '--no-fund'], {
        cwd: dir,
        encoding: 'utf8',
        env: { PATH: process.env.PATH, HOME: process.env.HOME, npm_config_cache: cache, npm_config_update_notifier: 'false' }
    });
};

const present = (dir: string, name: string) => Fs.existsSync(Path.join(dir, 'node_modules', name, 'package.json'));

experiment('a production install from a clean copy of the working tree (README, Production)', { timeout: 120_000 }, () => {

    let parent = '';
    let copy = '';
    let tracked = 0;
    let pruned: ChildProcess.SpawnSyncReturns<string>;
    let projectLockfileKept = false;

    before({ timeout: 120_000 }, () => {

        expect(Fs.existsSync(Path.join(root, 'dist', 'src', 'main.js')), 'dist/ is built by npm test before lab runs').to.be.true();
        parent = Fs.mkdtempSync(Path.join(Os.tmpdir(), 'osprey-install-'));
        copy = Path.join(parent, 'osprey');
        Fs.mkdirSync(copy);
        tracked = copyTracked(copy);
        ChildProcess.execFileSync('cp', ['-a', Path.join(root, 'dist'), Path.join(copy, 'dist')]);
        linkModules(copy);
        const hidden = Fs.statSync(Path.join(root, 'node_modules', '.package-lock.json'));
        pruned = prune(copy, Path.join(parent, 'npm-cache'));
        const later = Fs.statSync(Path.join(root, 'node_modules', '.package-lock.json'));
        projectLockfileKept = later.ino === hidden.ino && later.size === hidden.size && later.mtimeMs === hidden.mtimeMs;
    });

    after(() => Fs.rmSync(parent, { recursive: true, force: true }));

    test('npm prune --omit=dev leaves the production dependencies only, offline, and the project\'s own untouched', () => {

        expect(commands).to.equal(['npm ci && npm run build', 'npm prune --omit=dev', 'node dist/src/main.js']);
        expect(tracked).to.be.above(100);
        expect(Fs.existsSync(Path.join(copy, 'data'))).to.be.false();
        expect(pruned.status, pruned.stderr).to.equal(0);
        expect(pruned.stdout).to.match(/removed \d+ packages/);

        // The dev dependencies are gone, so the server below cannot lean on one.
        for (const dev of ['typescript', '@hapi/lab', '@hapi/code', 'sqlite3', 'eslint']) {
            expect(present(copy, dev), dev).to.be.false();
        }

        const manifest = JSON.parse(Fs.readFileSync(Path.join(copy, 'package.json'), 'utf8')) as { dependencies: Record<string, string> };
        for (const dependency of Object.keys(manifest.dependencies)) {
            expect(present(copy, dependency), dependency).to.be.true();
        }

        expect(Fs.readdirSync(Path.join(copy, 'node_modules', 'better-sqlite3', 'build', 'Release'))).to.include('better_sqlite3.node');
        // A write through a hard link would show here (npm rewrites its hidden lockfile in place).
        expect(projectLockfileKept).to.be.true();
        expect(present(root, 'typescript')).to.be.true();
        expect(present(root, 'sqlite3')).to.be.true();
    });

    for (const database of testDatabases) {
        experiment(`node dist/src/main.js in it (${database.name})`, () => {

            test('serves the demo to its login, reads and writes, and stops on SIGTERM with 0, freeing the port', async () => {

                // The README's start as it stands: the demo into ./data of the install; PostgreSQL by DATABASE_URL.
                const created = database.name === 'postgresql' ? await database.create() : undefined;
                const env: Record<string, string> = { OSPREY_LOG: 'info', ...(created ? { DATABASE_URL: created.url } : {}) };
                const [node, main] = commands.at(-1)!.split(' ');
                expect(node).to.equal('node');
                const running = await startProcess(env, [process.execPath, main!], copy);
                try {
                    const wilson = { maxauth: Buffer.from('wilson:wilson').toString('base64') };
                    const base = `http://127.0.0.1:${running.port}/maximo/oslc/os/mxapiwodetail`;
                    const whoami = await fetch(`http://127.0.0.1:${running.port}/maximo/oslc/whoami`, { headers: wilson });
                    expect(whoami.status).to.equal(200);
                    expect(await whoami.json()).to.include({ userName: 'WILSON' });

                    const read = await fetch(`${base}/_QkVERk9SRC8xMDAw?oslc.select=wonum,siteid`, { headers: wilson });
                    expect(read.status).to.equal(200);
                    expect(await read.json()).to.include({ wonum: '1000', siteid: 'BEDFORD' });

                    const posted = await fetch(base, { method: 'POST', headers: { ...wilson, 'content-type': 'application/json', properties: 'wonum,status' }, body: JSON.stringify({ siteid: 'BEDFORD', description: 'Noisy pump' }) });
                    expect(posted.status).to.equal(201);
                    const again = await fetch(`${posted.headers.get('location')!}?oslc.select=description`, { headers: wilson });
                    expect(await again.json()).to.include({ description: 'Noisy pump' });

                    // SQLite by default: the file is the install's own, in a data folder of its own.
                    expect(Fs.existsSync(Path.join(copy, 'data', 'osprey.sqlite'))).to.equal(database.name === 'sqlite');
                }
                finally {
                    expect(await running.stop()).to.equal(0);
                    await created?.drop();
                    Fs.rmSync(Path.join(copy, 'data'), { recursive: true, force: true });
                }

                expect(await portFreed(running.port)).to.be.true();
                expect(running.output()).to.match(/Osprey received SIGTERM, draining requests[\s\S]*Osprey stopped/);
            });
        });
    }
});
