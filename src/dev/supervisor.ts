import * as Child from 'node:child_process';
import * as Fs from 'node:fs';
import * as Path from 'node:path';


// `npm run dev`: a supervisor that watches the structures folder and restarts the server (dist/src/main.js, a
// child process) when a YAML file changes, once `npm run validate`'s checks pass on the new files. The checks run
// in a child too (dist/src/validate.js), so they are exactly those of a start, plugins included. While the new
// files have errors the old server keeps running, with the structures it loaded; each change prints one line.
// A restart is a start: new tables, columns and indexes are migrated (src/db/migrate.ts).

export interface SupervisorOptions {
    /** The structures folder watched. */
    readonly dir: string;
    /** The folder of the compiled entry points, main.js and validate.js (dist/src). */
    readonly dist: string;
    /** The environment of the server and of the checks (OSPREY_STRUCTURES is set to `dir`). */
    readonly env: NodeJS.ProcessEnv;
    /** Where the supervisor's lines and the server's output go. */
    readonly out: NodeJS.WritableStream;
    /** How long the folder must be still before a reload (editors write a file in several steps). */
    readonly debounceMs: number;
}

export class Supervisor {

    readonly #dir: string;
    readonly #dist: string;
    readonly #env: NodeJS.ProcessEnv;
    readonly #out: NodeJS.WritableStream;
    readonly #debounceMs: number;
    readonly #changed = new Set<string>();
    #watcher?: Fs.FSWatcher;
    #timer?: NodeJS.Timeout;
    #server?: Child.ChildProcess;
    #reloading: Promise<void> = Promise.resolve();

    constructor(options: SupervisorOptions) {

        this.#dir = Path.resolve(options.dir);
        this.#dist = options.dist;
        this.#env = { ...options.env, OSPREY_STRUCTURES: this.#dir };
        this.#out = options.out;
        this.#debounceMs = options.debounceMs;
    }

    /** Checks the folder, starts the server if it is valid, and watches the folder. */
    async start(): Promise<void> {

        // Linux and macOS name the file that changed.
        this.#watcher = Fs.watch(this.#dir, (event, fileName) => this.#change(String(fileName)));
        await this.#load('start');
    }

    /** Stops watching and stops the server. */
    async close(): Promise<void> {

        clearTimeout(this.#timer);
        this.#watcher?.close();
        await this.#reloading;
        await this.#stopServer();
    }

    /** The process id of the server running, if one is. */
    get serverPid(): number | undefined {

        return this.#server?.pid;
    }

    /** Resolves when the reloads asked so far are done (tests wait on it). */
    settled(): Promise<void> {

        return this.#reloading;
    }

    #print(line: string) {

        this.#out.write(`[osprey dev] ${line}\n`);
    }

    #change(fileName: string) {

        // Only YAML files are structures; an editor's swap and backup files are not.
        if (!/\.ya?ml$/i.test(fileName)) {
            return;
        }

        this.#changed.add(fileName);
        clearTimeout(this.#timer);
        this.#timer = setTimeout(() => {

            const what = [...this.#changed].sort().join(', ');
            this.#changed.clear();
            this.#reloading = this.#reloading.then(() => this.#load(`${what} changed`));
        }, this.#debounceMs);
    }

    // A load that runs when the supervisor is closed may start a server: close() waits for it, then stops it.
    async #load(what: string): Promise<void> {

        const check = await this.#validate();
        if (!check.ok) {
            const keeps = this.#server ? 'the server keeps running with the structures it loaded before' : 'the server is not started';
            this.#print(`${what}: not loaded, ${keeps}:\n${check.output.trimEnd()}`);
            return;
        }

        await this.#stopServer();
        this.#server = Child.spawn(process.execPath, [Path.join(this.#dist, 'main.js')], { env: this.#env, stdio: ['ignore', 'pipe', 'pipe'] });
        this.#server.stdout!.pipe(this.#out, { end: false });
        this.#server.stderr!.pipe(this.#out, { end: false });
        const server = this.#server;
        server.on('exit', (code, signal) => {

            if (this.#server === server) {
                this.#server = undefined;
                this.#print(`the server stopped (${signal ?? `exit code ${code}`}); it starts again when a structure file changes`);
            }
        });
        this.#print(`${what}: ${check.output.trim()}; the server ${what === 'start' ? 'starts' : 'restarts'}`);
    }

    #validate(): Promise<{ ok: boolean; output: string }> {

        return new Promise((resolve) => {

            const child = Child.spawn(process.execPath, [Path.join(this.#dist, 'validate.js'), this.#dir], { env: this.#env, stdio: ['ignore', 'pipe', 'pipe'] });
            let output = '';
            child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
            child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
            child.on('close', (code) => resolve({ ok: code === 0, output }));
        });
    }

    async #stopServer(): Promise<void> {

        const server = this.#server;
        if (!server) {
            return;
        }

        this.#server = undefined;
        const exited = new Promise((resolve) => server.once('exit', resolve));
        server.kill('SIGTERM');
        await exited;
    }
}
