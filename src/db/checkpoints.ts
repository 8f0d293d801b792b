import { Worker } from 'node:worker_threads';

import type { DatabaseOptions } from './knex';


// SQLite's checkpoints on a worker thread (issue 19). In WAL mode a commit appends the pages it changed to the
// -wal file, and a checkpoint copies them back into the database file. By default the connection whose commit
// takes the WAL past 1,000 pages runs the checkpoint inside that COMMIT: on the event loop, for better-sqlite3.
// Measured on 200,000 work orders in groups of 8 updates, that was 20 µs of each update's 26 µs of COMMIT, a
// sixth of an update's CPU in the server, and all requests waited meanwhile. So where better-sqlite3 writes a
// file, a worker thread with its own connection runs a PASSIVE checkpoint every `everyMs`: it copies what no
// reader still needs, never waits for a lock and never holds up a writer or a reader. The writer connection
// then checkpoints by itself only once the WAL passes `fallbackPages` (40 MB of 4 KB pages), should the worker
// fall behind; should the worker stop, the writer goes back to SQLite's 1,000 pages. The worker's connection
// syncs as OSPREY_SQLITE_SYNCHRONOUS says (in WAL mode a checkpoint syncs the WAL before it copies, and the
// file after). The sqlite3 driver runs every statement, checkpoints included, on libuv's threads already.
//
// SQLite 3.7.0 to 3.51.2 could corrupt a database when one connection checkpointed while another's commit
// reset the WAL; better-sqlite3 bundles a later one, and with an older library (built against the system's)
// the writer keeps checkpointing by itself.

export const everyMs = 100;
export const fallbackPages = 10_000;
export const defaultPages = 1000;
const reportEveryMs = 60_000;

export interface Checkpointer {
    stop(): Promise<void>;
}

// Plain JavaScript for `new Worker(…, { eval: true })`: the source tree runs under a TypeScript loader in tests,
// which a worker thread does not inherit. A checkpoint that fails is reported, at most once a minute.
const workerSource = `
const { parentPort, workerData } = require('node:worker_threads');
const Database = require(workerData.driver);
const db = new Database(workerData.filename);
db.pragma('synchronous = ' + workerData.synchronous);
let reported = -Infinity;
const timer = setInterval(() => {
    try {
        db.pragma('wal_checkpoint(PASSIVE)');
    }
    catch (error) {
        if (Date.now() - reported >= workerData.reportEveryMs) {
            reported = Date.now();
            parentPort.postMessage({ error: String(error && error.message || error) });
        }
    }
}, workerData.everyMs);
parentPort.on('message', () => {
    clearInterval(timer);
    db.close();
    parentPort.close();
});
`;

const safeFrom = [3, 51, 3];

const versionAtLeast = (version: string, least: readonly number[]) => {

    const parts = version.split('.').map(Number);
    for (const [i, wanted] of least.entries()) {
        if ((parts[i] ?? 0) !== wanted) {
            return (parts[i] ?? 0) > wanted;
        }
    }

    return true;
};

// Whether the server's writes checkpoint on a worker: better-sqlite3 on a file, with a SQLite past the race.
export const checkpointsApart = (options: DatabaseOptions, filename: string, sqliteVersion: string): boolean => {

    return options.sqliteDriver !== 'sqlite3' && filename !== ':memory:' && versionAtLeast(sqliteVersion, safeFrom);
};

// Starts the worker on the database file. `onError` hears a checkpoint that failed (the next one tries again),
// `onExit` a worker that ended before stop (it could not open the file, or it failed).
export const startCheckpoints = (filename: string, synchronous: string, onError: (message: string) => void, onExit: () => void): Checkpointer => {

    const worker = new Worker(workerSource, { eval: true, workerData: { driver: require.resolve('better-sqlite3'), filename, synchronous, everyMs, reportEveryMs } });
    let stopping = false;
    worker.on('message', (message: { error?: string }) => onError(String(message.error)));
    worker.on('error', (error) => onError(error.message));
    // The worker never keeps the process alive: the server's stop ends it, and a process that exits otherwise
    // leaves the WAL to the next connection, as SQLite does after any crash.
    worker.unref();
    const exited = new Promise<void>((resolve) => worker.once('exit', () => resolve(stopping ? undefined : onExit())));
    return {
        stop: async () => {

            stopping = true;
            worker.postMessage('stop');
            const late = setTimeout(() => void worker.terminate(), 5000);
            await exited;
            clearTimeout(late);
        }
    };
};
