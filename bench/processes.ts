import * as ChildProcess from 'node:child_process';
import * as Net from 'node:net';

import { root } from './options';


export const freePort = (): Promise<number> => {

    return new Promise((resolve, reject) => {

        const probe = Net.createServer().listen(0, '127.0.0.1', () => {

            const port = (probe.address() as Net.AddressInfo).port;
            probe.close(() => resolve(port));
        }).on('error', reject);
    });
};

// Servers must not outlive the harness, whether it ends normally, fails, is interrupted or loses its stdout.
const running = new Set<ChildProcess.ChildProcess>();
process.on('exit', () => running.forEach((child) => child.kill('SIGTERM')));
for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
    process.once(signal, () => process.exit(130));
}

export interface ServerProcess {
    name: string;
    pid: number;
    port: number;
    url: string;
    output: () => string;
    stop: () => Promise<void>;
}

// Starts a server script as its own process (the load generator must not share its CPU time with the
// server's event loop) and waits for the line that says it listens.
export const startServer = async (name: string, script: string, env: Record<string, string>, nodeArgs: string[] = [], ready = 'listening on'): Promise<ServerProcess> => {

    const port = await freePort();
    const child = ChildProcess.spawn(process.execPath, [...nodeArgs, script], {
        cwd: root,
        env: { PATH: process.env.PATH, ...env, PORT: String(port) },
        stdio: ['ignore', 'pipe', 'pipe']
    });

    running.add(child);
    let output = '';
    const exited = new Promise<void>((resolve) => child.on('exit', () => resolve(void running.delete(child))));
    const started = await new Promise<boolean>((resolve) => {

        const collect = (chunk: Buffer) => {

            // Keep the start and the end of what a server says; a long log is of no use here.
            output = output.length > 20_000 ? output.slice(0, 10_000) + output.slice(-10_000) + chunk : output + chunk;
            if (output.includes(ready)) {
                resolve(true);
            }
        };

        child.stdout.on('data', collect);
        child.stderr.on('data', collect);
        void exited.then(() => resolve(false));
    });

    if (!started) {
        throw new Error(`${name} did not start:\n${output}`);
    }

    return {
        name,
        pid: child.pid!,
        port,
        url: `http://127.0.0.1:${port}`,
        output: () => output,
        stop: () => {

            if (child.exitCode === null && child.signalCode === null) {
                child.kill('SIGTERM');
            }

            return exited;
        }
    };
};
