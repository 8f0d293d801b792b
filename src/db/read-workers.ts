import { Worker } from 'node:worker_threads';

import { remember } from './remember';
import { likeAnyFunction, likeAnySource, likeSetFunction } from './like-any';
import { deadlineFunction, StatementTimeout } from './sqlite-deadline';


// SQLite's reads whose cost follows what a client sends, off the event loop (issue 34). better-sqlite3 runs a
// statement from start to end on the thread that calls it, and the deadline of sqlite-deadline.ts only ticks
// where the statement calls JavaScript (an EXISTS, lower()): `count=1` with 32 OR-ed child LIKE terms held the
// event loop 11.1 s, every other request (/health too) waiting, and a plain scan could not be interrupted at
// all. So these reads run on worker threads, each with its own read-only connection to the same file (WAL: a
// reader sees every commit made before its statement starts, so a GET after a PATCH sees it), and the event loop
// only posts the statement and takes the rows back.
//
// The statement timeout is exact for every statement form. The worker keeps the same deadline as the main
// thread did (osprey_deadline() and lower() throw once it has passed), so a statement that calls JavaScript ends
// itself and its worker goes on serving. The main thread also keeps the deadline: when it passes, the request is
// refused at once (503), whatever the statement is doing; a worker that has not answered `graceMs` later (a
// plain scan or sort, which never calls JavaScript) is terminated and replaced by a new one. A terminated
// worker's thread ends at the next call into JavaScript or with its statement; nothing waits for it.
//
// Plain JavaScript for `new Worker(…, { eval: true })`, as checkpoints.ts: the tests run the source under a
// TypeScript loader that a worker thread does not inherit. The lower() and osprey_deadline() functions are
// those of knex.ts and sqlite-deadline.ts; the statements are cached by SQL text as sqlite-client.ts does.

export const workerCount = 2;

/** How long after the deadline a worker may still answer before it is replaced. */
export const graceMs = 100;

/** The most jobs an idle worker takes at once from those waiting. */
export const batchSize = 8;

const workerSource = `
const { parentPort, workerData } = require('node:worker_threads');
const Database = require(workerData.driver);
const db = new Database(workerData.filename, { readonly: true });
db.pragma('busy_timeout = 5000');
parentPort.postMessage({ ready: true });
let deadline = 0;
let ticks = 0;
const late = () => {
    deadline = 0;
    const error = new Error('past the deadline');
    error.code = 'OSPREY_STATEMENT_TIMEOUT';
    throw error;
};
db.function('lower', { deterministic: true }, (value) => {
    if (deadline && (++ticks & 63) === 0 && performance.now() > deadline) {
        late();
    }
    return value === null ? null : String(value).toLowerCase();
});
const likeSets = ${likeAnySource};
db.function(workerData.likeSetFunction, { deterministic: true }, likeSets.set);
db.function(workerData.likeAnyFunction, { deterministic: true }, (value, set) => {
    if (deadline && (++ticks & 63) === 0 && performance.now() > deadline) {
        late();
    }
    return likeSets.test(value, set);
});
db.function(workerData.deadlineFunction, { deterministic: false }, () => {
    if (deadline && performance.now() > deadline) {
        late();
    }
    return 1;
});
const cache = new Map();
const prepared = (sql) => {
    let statement = cache.get(sql);
    if (statement) {
        cache.delete(sql);
    }
    else {
        statement = db.prepare(sql);
        if (cache.size >= workerData.cacheSize) {
            cache.delete(cache.keys().next().value);
        }
    }
    cache.set(sql, statement);
    return statement;
};
const plain = (rows) => {
    for (const row of rows) {
        for (const value of row) {
            if (value !== null && typeof value !== 'string' && (typeof value !== 'number' || !Number.isFinite(value) || Object.is(value, -0))) {
                return false;
            }
        }
    }
    return true;
};
const run = (statement, bindings) => {
    // A Buffer arrives as a Uint8Array, which better-sqlite3 does not bind.
    bindings = bindings.map((value) => (value instanceof Uint8Array && !Buffer.isBuffer(value) ? Buffer.from(value.buffer, value.byteOffset, value.byteLength) : value));
    // Rows go back as their column names and arrays of values: the structured clone of a row object writes its
    // keys again for every row, which cost more than the statement for a report's batches of 500. Values that
    // JSON spells exactly (text, finite numbers but -0, null: no blob) go as one JSON text, which the event loop
    // parses in a quarter of the time the structured clone of the arrays took to read back.
    if (statement.reader) {
        const values = statement.raw(true).all(bindings);
        statement.raw(false);
        const columns = statement.columns().map((column) => column.name);
        return plain(values) ? { columns, json: JSON.stringify(values) } : { columns, values };
    }
    const { changes, lastInsertRowid } = statement.run(bindings);
    return { changes, lastInsertRowid };
};
// A batch of jobs, each answered as soon as it is done, each under a deadline of its own from its start.
parentPort.on('message', ({ jobs, timeoutMs }) => {
    for (const { id, statements } of jobs) {
        const started = performance.now();
        deadline = timeoutMs ? started + timeoutMs : 0;
        ticks = 0;
        try {
            let results;
            if (statements.length === 1) {
                results = [run(prepared(statements[0].sql), statements[0].bindings)];
            }
            else {
                db.exec('BEGIN');
                results = statements.map(({ sql, bindings }) => run(prepared(sql), bindings));
                db.exec('COMMIT');
            }
            deadline = 0;
            parentPort.postMessage({ id, results, ms: performance.now() - started });
        }
        catch (error) {
            deadline = 0;
            if (db.inTransaction) {
                db.exec('ROLLBACK');
            }
            parentPort.postMessage({ id, error: { message: String(error && error.message || error), code: error && error.code, name: error && error.name } });
        }
    }
});
`;

export interface Statement {
    readonly sql: string;
    readonly bindings: readonly unknown[];
}

interface Job {
    readonly id: number;
    readonly statements: readonly Statement[];
    readonly resolve: (answer: Ran) => void;
    readonly reject: (error: Error) => void;
    settled: boolean;
}

interface Slot {
    readonly worker: Worker;
    /** The jobs posted to it and not answered yet, in the order it runs them. */
    jobs: Job[];
    /** The deadline of the first of them. */
    timer?: NodeJS.Timeout;
    /** Its connection is open: it takes jobs (a deadline never counts a worker's start). */
    ready?: boolean;
}

const timeout = () => new StatementTimeout('The statement ran past OSPREY_STATEMENT_TIMEOUT_MS and was interrupted.');

const stopped = () => new Error('The SQLite read workers are stopped.');

// An error as the worker saw it: a SQLite error keeps its code (SQLITE_READONLY…), the deadline is the
// StatementTimeout the error edge answers 503.
const rebuilt = (error: { message: string; code?: string; name?: string }): Error => {

    if (error.code === 'OSPREY_STATEMENT_TIMEOUT') {
        return timeout();
    }

    return Object.assign(new Error(error.message), { code: error.code, name: error.name ?? 'Error' });
};

type Answer = { ready?: true; id: number; results?: unknown[]; ms?: number; error?: { message: string; code?: string } };

// A row object from its array of values, made by a function compiled once per list of column names: an object
// literal gets its final shape at once, where adding the columns one by one through a computed key (the loop
// below) cost a report's 10,000 rows about a third more than parsing their JSON. The names are the statement's
// own columns, each written as a JSON string in the literal, so no name is ever code. A list with `__proto__`
// (a literal key would set the prototype) or a name twice takes the loop.
type RowMaker = (values: readonly unknown[]) => Record<string, unknown>;

const makers = new Map<string, RowMaker>();

const byLoop = (columns: readonly string[]): RowMaker => {

    return (values) => {

        const row: Record<string, unknown> = {};
        for (let i = 0; i < columns.length; ++i) {
            row[columns[i]!] = values[i];
        }

        return row;
    };
};

const rowMaker = (columns: readonly string[]): RowMaker => {

    const key = JSON.stringify(columns);
    let maker = makers.get(key);
    if (!maker) {
        const literal = !columns.includes('__proto__') && new Set(columns).size === columns.length;
        maker = literal ? new Function('v', `return { ${columns.map((name, i) => `${JSON.stringify(name)}: v[${i}]`).join(', ')} };`) as RowMaker : byLoop(columns);
        remember(makers, key, maker, 500);
    }

    return maker;
};

// A reader's rows as the worker sends them (column names and arrays of values) made objects again; what a
// statement changed passes as it is.
const asRows = (result: unknown): unknown => {

    const sent = result as { columns?: string[]; values?: unknown[][]; json?: string };
    if (!sent.columns || (!sent.values && sent.json === undefined)) {
        return result;
    }

    const { columns } = sent;
    // A blob arrives as a Uint8Array: a Buffer again (no copy), as a read on the event loop gives it.
    const values = sent.values?.map((value) => value.map((each) => (each instanceof Uint8Array && !Buffer.isBuffer(each) ? Buffer.from(each.buffer, each.byteOffset, each.byteLength) : each))) ?? JSON.parse(sent.json!) as unknown[][];
    return values.map(rowMaker(columns));
};

/** What a job answers: each statement's rows (or what it changed), and how long the worker took to run them. */
export interface Ran {
    readonly results: unknown[];
    readonly ms: number;
}

export class ReadWorkers {

    readonly #filename: string;
    readonly #timeoutMs: number;
    readonly #cacheSize: number;
    readonly #size: number;
    readonly #batch: number;
    readonly #slots = new Set<Slot>();
    readonly #queue: Job[] = [];
    #ids = 0;
    #stopped = false;
    /** Workers replaced after a deadline (for the tests). */
    replaced = 0;

    constructor(options: { readonly filename: string; readonly timeoutMs: number; readonly cacheSize: number; readonly size?: number; readonly batch?: number }) {

        this.#filename = options.filename;
        this.#timeoutMs = options.timeoutMs;
        this.#cacheSize = options.cacheSize;
        this.#size = options.size ?? workerCount;
        this.#batch = options.batch ?? batchSize;
    }

    /** The threads now serving (for the tests). */
    get threadIds(): number[] {

        return [...this.#slots].map((slot) => slot.worker.threadId);
    }

    /** Each statement's rows (or what it changed), in one read transaction when there are several. */
    run(statements: readonly Statement[]): Promise<Ran> {

        if (this.#stopped) {
            return Promise.reject(stopped());
        }

        while (this.#slots.size < this.#size) {
            this.#start();
        }

        return new Promise((resolve, reject) => {

            this.#queue.push({ id: ++this.#ids, statements, resolve, reject, settled: false });
            this.#next();
        });
    }

    async stop(): Promise<void> {

        this.#stopped = true;
        for (const job of this.#queue.splice(0)) {
            job.reject(stopped());
        }

        const slots = [...this.#slots];
        this.#slots.clear();
        await Promise.all(slots.map((slot) => this.#end(slot, stopped())));
    }

    #start(): void {

        const worker = new Worker(workerSource, { eval: true, workerData: { driver: require.resolve('better-sqlite3'), filename: this.#filename, deadlineFunction, likeAnyFunction, likeSetFunction, cacheSize: this.#cacheSize } });
        // The workers never keep the process alive: the server's stop ends them (knex.ts).
        worker.unref();
        const slot: Slot = { worker, jobs: [] };
        this.#slots.add(slot);
        worker.on('message', (message: Answer) => this.#answered(slot, message));
        worker.on('error', (error) => this.#failed(slot, error));
        worker.on('exit', () => this.#failed(slot, new Error('A SQLite read worker ended.')));
    }

    // An idle worker takes the jobs waiting, up to a batch: under load a worker runs a batch without waiting to
    // be woken for each statement (on a busy machine waking a thread took longer than a count), and when idle
    // each job goes at once.
    // The jobs waiting are shared among the workers free to take them (those starting included), so that two
    // reads asked together run side by side and not one behind the other.
    #next(): void {

        const free = [...this.#slots].filter((slot) => !slot.jobs.length);
        const share = Math.min(this.#batch, Math.ceil(this.#queue.length / Math.max(1, free.length)));
        for (const slot of free) {
            if (!this.#queue.length) {
                return;
            }

            if (slot.ready) {
                slot.jobs = this.#queue.splice(0, share);
                slot.worker.postMessage({ jobs: slot.jobs.map(({ id, statements }) => ({ id, statements })), timeoutMs: this.#timeoutMs });
                this.#arm(slot);
            }
        }
    }

    // The deadline of the job the worker runs now: from its post for the first of a batch, from the answer
    // before it for the others (the worker starts each deadline as it starts the job, a moment earlier).
    #arm(slot: Slot): void {

        clearTimeout(slot.timer);
        const job = slot.jobs[0];
        if (this.#timeoutMs && job) {
            slot.timer = setTimeout(() => this.#late(slot, job), this.#timeoutMs);
        }
    }

    // The deadline passed: the request is answered now; the worker has `graceMs` to end its statement itself,
    // else it is replaced, and the jobs it had not started go to another.
    #late(slot: Slot, job: Job): void {

        job.settled = true;
        job.reject(timeout());
        slot.timer = setTimeout(() => {

            ++this.replaced;
            const waiting = slot.jobs.filter((each) => each !== job && !each.settled);
            slot.jobs = [];
            this.#queue.unshift(...waiting);
            void this.#end(slot, timeout());
            this.#replace(slot);
        }, graceMs);
    }

    #answered(slot: Slot, message: Answer): void {

        if (message.ready) {
            slot.ready = true;
            this.#next();
            return;
        }

        const job = slot.jobs[0];
        if (!job || job.id !== message.id) {
            return;
        }

        slot.jobs.shift();
        if (!job.settled) {
            job.settled = true;
            if (message.error) {
                job.reject(rebuilt(message.error));
            }
            else {
                job.resolve({ results: message.results!.map(asRows), ms: message.ms! });
            }
        }

        this.#arm(slot);
        this.#next();
    }

    // A worker that failed or ended by itself: its jobs fail, and another takes its place. One that never was
    // ready (it could not open the file) is replaced by the next read that asks, and the reads waiting fail with
    // it, rather than workers being started again and again.
    #failed(slot: Slot, error: Error): void {

        if (!this.#slots.has(slot)) {
            return;
        }

        void this.#end(slot, error);
        if (slot.ready) {
            this.#replace(slot);
            return;
        }

        this.#slots.delete(slot);
        for (const job of this.#queue.splice(0)) {
            job.reject(error);
        }
    }

    #replace(slot: Slot): void {

        this.#slots.delete(slot);
        if (!this.#stopped) {
            this.#start();
            this.#next();
        }
    }

    async #end(slot: Slot, error: Error): Promise<void> {

        clearTimeout(slot.timer);
        for (const job of slot.jobs.splice(0)) {
            if (!job.settled) {
                job.settled = true;
                job.reject(error);
            }
        }

        await slot.worker.terminate().catch(() => undefined);
    }
}

// Statements that must see one committed state (a page's count and its rows: db.ts), asked for one by one: the
// batch goes to one worker, in one read transaction, once all `size` of them have been asked for.
export class Together {

    readonly #size: number;
    readonly #parts: { statement: Statement; resolve: (result: unknown) => void; reject: (error: Error) => void }[] = [];

    constructor(size: number) {

        this.#size = size;
    }

    join(statement: Statement, run: (statements: readonly Statement[]) => Promise<Ran>): Promise<unknown> {

        return new Promise((resolve, reject) => {

            this.#parts.push({ statement, resolve, reject });
            if (this.#parts.length === this.#size) {
                const parts = this.#parts.splice(0);
                run(parts.map((part) => part.statement)).then(({ results }) => parts.forEach((part, i) => part.resolve(results[i])), (error: Error) => parts.forEach((part) => part.reject(error)));
            }
        });
    }
}
