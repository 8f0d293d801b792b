import * as ChildProcess from 'node:child_process';
import * as Fs from 'node:fs';
import * as Net from 'node:net';
import * as Os from 'node:os';
import * as Path from 'node:path';

import { root } from './server';


// Data folders of server processes, removed when the test run ends: a test may stop a process and start another
// on the same folder (its secret and its SQLite file), so they outlive each process.
const dataDirs: string[] = [];
process.once('exit', () => dataDirs.forEach((dir) => Fs.rmSync(dir, { recursive: true, force: true })));

export const dataDir = (): string => {

    const dir = Fs.mkdtempSync(Path.join(Os.tmpdir(), 'osprey-e2e-'));
    dataDirs.push(dir);
    return dir;
};

// Whether nothing listens on the port any more (a connection is refused).
export const portFreed = (port: number): Promise<boolean> => new Promise((resolve) => {

    const socket = Net.connect(port, '127.0.0.1', () => {

        socket.destroy();
        resolve(false);
    });
    socket.on('error', (err: NodeJS.ErrnoException) => resolve(err.code === 'ECONNREFUSED'));
});

export const freePort = (): Promise<number> => new Promise((resolve) => {


    const probe = Net.createServer().listen(0, '127.0.0.1', () => {

        const port = (probe.address() as Net.AddressInfo).port;
        probe.close(() => resolve(port));
    });
});

export interface RunningServer {
    port: number;
    output: () => string;
    stop: () => Promise<number | null>;
}

// Starts the compiled server (npm test compiles before lab runs) as a separate process on a free port; `command`
// starts it another way (`npm start`), the signal of stop() going to that command's own process, from `cwd`.
export const startProcess = async (env: Record<string, string>, command: readonly string[] = [process.execPath, Path.join(root, 'dist', 'src', 'main.js')], cwd = root): Promise<RunningServer> => {

    const port = await freePort();
    const child = ChildProcess.spawn(command[0]!, command.slice(1), {
        cwd,
        env: { PATH: process.env.PATH, HOME: process.env.HOME, OSPREY_LOG: 'error', ...env, PORT: String(port) },
        stdio: ['ignore', 'pipe', 'pipe']
    });
    let output = '';
    child.stdout.on('data', (chunk) => (output += chunk));
    child.stderr.on('data', (chunk) => (output += chunk));
    const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));

    const ready = await Promise.race([
        new Promise<boolean>((resolve) => child.stdout.on('data', () => output.includes('is listening on') && resolve(true))),
        exited.then(() => false)
    ]);
    if (!ready) {
        throw new Error(`the server did not start:\n${output}`);
    }

    return {
        port,
        output: () => output,
        stop: () => {

            child.kill('SIGTERM');
            return exited;
        }
    };
};

// Runs the server to its exit (for starts that must fail) and returns the exit code and output.
export const runToExit = (env: Record<string, string>): Promise<{ code: number | null; output: string }> => {

    return new Promise((resolve) => {

        ChildProcess.execFile(process.execPath, [Path.join(root, 'dist', 'src', 'main.js')], { cwd: root, env: { PATH: process.env.PATH, OSPREY_LOG: 'error', PORT: '0', ...env } }, (err, stdout, stderr) => {

            resolve({ code: err ? (err as ChildProcess.ExecFileException).code as number : 0, output: stdout + stderr });
        });
    });
};
