// OSPREY_STATEMENT_TIMEOUT_MS on SQLite (issue 18). better-sqlite3 offers JavaScript neither sqlite3_interrupt nor
// a progress handler, but it does call JavaScript functions from inside a running statement, and an exception
// thrown there ends the statement with that exception. So every better-sqlite3 connection has a function
// osprey_deadline(), which throws once the running statement is past its deadline, and the parts of a read
// whose cost can grow past a scan of one table call it: every EXISTS a relation or child term compiles to
// (src/read/compile/compile-where.ts) calls it each time it is evaluated (SQLite evaluates a term that names
// no column of the subquery's table once per evaluation of the subquery, not per row it reads), and lower(),
// which case-insensitive matching calls per row and term, every 64th call. A plain scan of one table is not
// interrupted, nor one evaluation of one EXISTS; their cost is one pass over a table, which the cost limits
// (src/read/plan/cost.ts) leave as the bound.
//
// Statements run one at a time on the event loop, so one deadline at a time is all there is to keep. As on
// PostgreSQL, a statement inside a transaction (a write, the migration, the demo seed) has none.
//
// On a SQLite file, the reads whose cost a client decides no longer run here but on worker threads
// (read-workers.ts), whose connections keep the same deadline, and where the main thread ends a statement that
// never calls JavaScript (a plain scan) exactly at its deadline too. What still runs here under this deadline:
// the point reads Osprey makes (a record by key), and every read of an in-memory database.

export const deadlineFunction = 'osprey_deadline';

/** Thrown from inside a statement past its deadline: answered 503 BMXAA1728E, as PostgreSQL's 57014 is. */
export class StatementTimeout extends Error {

    readonly code = 'OSPREY_STATEMENT_TIMEOUT';
}

let deadline = 0;
let ticks = 0;

const late = (): never => {

    deadline = 0;
    throw new StatementTimeout('The statement ran past OSPREY_STATEMENT_TIMEOUT_MS and was interrupted.');
};

// osprey_deadline(): once per evaluation of an EXISTS, each of which may read many rows, so the clock is read
// every time (about as costly as the call itself).
export const tick = (): 1 => {

    if (deadline && performance.now() > deadline) {
        late();
    }

    return 1;
};

// From lower(), called per row: the clock is read every 64th call, a few microseconds apart.
export const tickOften = (): void => {

    if (deadline && (++ticks & 63) === 0 && performance.now() > deadline) {
        late();
    }
};

// Runs one statement's rows under a deadline `timeoutMs` from now (none for 0). It takes the statement and its
// bindings rather than a closure: it runs for every read.
export const allWithin = <T>(timeoutMs: number, statement: { all: (bindings: unknown[]) => T }, bindings: unknown[]): T => {

    if (!timeoutMs) {
        return statement.all(bindings);
    }

    deadline = performance.now() + timeoutMs;
    ticks = 0;
    try {
        return statement.all(bindings);
    }
    finally {
        deadline = 0;
    }
};
