// Reads of one turn of the event loop run together, at its end (issue 19).
//
// better-sqlite3 answers a statement at once, on the event loop, so a request that only reads ran from its first
// byte to its answer in one go, and the next request found the CPU's caches full of the other stages' code and
// data: the same member statement took 27 µs in a loop inside the server and 46–51 µs inside a request. A
// statement through the pool's Db (db.ts poolDb: `rows`, which every read of the read pipeline's pages and
// records takes; knex builders are not deferred) now waits for the end of the turn (setImmediate): the requests
// that arrived in the turn run their first stages one after another (routing, authentication, planning), then
// their statements one after another, then their answers. Under 10 connections a member GET took 157–202 µs of
// CPU instead of 252–321, and a count=1 179–203 instead of 269–290 (README, Performance). At one connection
// nothing changes but one turn of the loop. Writes already run this way (group-commit.ts).
//
// Where a statement's answer arrives later (PostgreSQL, the sqlite3 driver), the answers that arrived in one
// turn go on together at its end: a member GET on PostgreSQL took 325 µs of CPU instead of 370.

let turn: Promise<void> | undefined;

// Resolves at the end of this turn of the event loop, one promise for every read that asks in it. A read asked
// for while the turn's reads run (a request's second statement) waits for the next turn.
export const endOfTurn = (): Promise<void> => {

    turn ??= new Promise((resolve) => {

        setImmediate(() => {

            turn = undefined;
            resolve();
        });
    });
    return turn;
};
