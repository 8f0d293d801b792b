import { Worker } from 'node:worker_threads';

import type { DatabaseOptions } from './knex';


// SQLite's checkpoints on a worker thread (issue 19). In WAL mode a commit appends the pages it changed to the
// -wal file, and a checkpoint copies them back into the database file. By default the connection whose commit
// takes the WAL past 1,000 pages runs the checkpoint inside that COMMIT: on the event loop, for better-sqlite3.
// Measured on 200,000 work orders in groups of 8 updates, that was 20 µs of each update's 26 µs of COMMIT, a
// sixth of an update's CPU in the server, and all requests waited meanwhile. So where better-sqlite3 writes a
// file, a worker thread with its own connection runs a PASSIVE checkpoint every `everyMs`: it copies what no
// reader still needs, never waits for a lock and never holds up a writer or a reader. The writer connection
// still checkpoints by itself once the WAL passes `fallbackPages` (40 MB of 4 KB pages), should the worker fall
// behind or stop. What a commit guarantees does not change: the worker's connection syncs as the server's
// OSPREY_SQLITE_SYNCHRONOUS says (in WAL mode a checkpoint syncs the WAL before it copies, and the file after).
// The sqlite3 driver runs every statement, checkpoints included, on libuv's threads already.

export const everyMs = 100;
export const fallbackPages = 10_000;

export interface Checkpointer {
    stop(): Promise<void>;
}

// Plain JavaScript for `new Worker(…, { eval: true })`: the source tree runs under a TypeScript loader in tests,
// which a worker thread does not inherit.
const workerSource = `
const { parentPort, workerData } = require('node:worker_threads');
const Database = require(workerData.driver);
const db = new Database(workerData.filename);
db.pragma('synchronous = ' + workerData.synchronous);
const timer = setInterval(() => {
    try {
        db.pragma('wal_checkpoint(PASSIVE)');
    }
    catch (error) {
        parentPort.postMessage({ error: String(error && error.message || error) });
    }
}, workerData.everyMs);
parentPort.on('message', () => {
    clearInterval(timer);
    db.close();
    parentPort.close();
});
`;

// Whether the server's writes checkpoint on a worker: better-sqlite3 on a file.
export const checkpointsApart = (options: DatabaseOptions, filename: string): boolean => options.sqliteDriver !== 'sqlite3' && filename !== ':memory:';

// Starts the worker on the database file; `onError` hears a checkpoint that failed (the next one tries again).
export const startCheckpoints = (filename: string, synchronous: string, onError: (message: string) => void): Checkpointer => {

    const worker = new Worker(workerSource, { eval: true, workerData: { driver: require.resolve('better-sqlite3'), filename, synchronous, everyMs } });
    worker.on('message', (message: { error?: string }) => onError(String(message.error)));
    worker.on('error', (error) => onError(error.message));
    // The worker never keeps the process alive: the server's stop ends it, and a process that exits otherwise
    // leaves the WAL to the next connection, as SQLite does after any crash.
    worker.unref();
    const exited = new Promise<void>((resolve) => worker.once('exit', () => resolve()));
    return {
        stop: async () => {

            worker.postMessage('stop');
            const late = setTimeout(() => void worker.terminate(), 5000);
            await exited;
            clearTimeout(late);
        }
    };
};
