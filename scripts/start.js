'use strict';

// `npm start`: build only when needed, then run the server in this very process. npm's `sh -c` execs this
// command, so the SIGTERM npm forwards (or systemd sends) reaches the server itself, which drains and exits 0.
// Plain JavaScript on purpose: it must run where TypeScript is not installed (`npm ci --omit=dev`).

const ChildProcess = require('child_process');
const Fs = require('fs');
const Path = require('path');


const root = Path.join(__dirname, '..');
const main = Path.join(root, 'dist', 'src', 'main.js');
const stamp = Path.join(root, 'dist', '.tsbuildinfo');          // tsc's incremental state; touched after a build here


const newest = (path) => {

    const stat = Fs.statSync(path, { throwIfNoEntry: false });
    if (!stat) {
        return 0;
    }

    if (!stat.isDirectory()) {
        return stat.mtimeMs;
    }

    return Fs.readdirSync(path).reduce((latest, name) => Math.max(latest, newest(Path.join(path, name))), stat.mtimeMs);
};


const tsc = () => {

    try {
        return require.resolve('typescript/bin/tsc', { paths: [root] });
    }
    catch {
        return undefined;
    }
};


const build = () => {

    const built = Fs.existsSync(main) ? newest(stamp) : 0;
    const sources = Math.max(newest(Path.join(root, 'src')), newest(Path.join(root, 'plugins')), newest(Path.join(root, 'tsconfig.json')));
    if (built >= sources) {
        return;
    }

    const compiler = tsc();
    if (!compiler) {
        if (!built) {
            process.stderr.write('Osprey is not built (dist/src/main.js is missing) and TypeScript is not installed: run `npm ci && npm run build` (or `npm install && npm run build`) once, then `npm start` or `node dist/src/main.js`.\n');
            process.exit(1);
        }

        process.stderr.write('dist/ is older than src/ and TypeScript is not installed: starting the last build (`npm run build` with the dev dependencies updates it).\n');
        return;
    }

    const result = ChildProcess.spawnSync(process.execPath, [compiler, '-p', Path.join(root, 'tsconfig.json')], { cwd: root, stdio: 'inherit' });
    if (result.status !== 0) {
        process.exit(result.status ?? 1);
    }

    const now = new Date();
    Fs.utimesSync(stamp, now, now);
};


build();
require(main);
