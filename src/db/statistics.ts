import type { Knex } from 'knex';

import type { DatabaseKind } from './knex';


// The query planners of both databases choose joins, index walks and sorts from table statistics. A table just
// filled and never analyzed makes them guess: on PostgreSQL a relation where of a few EXISTS terms over the
// fresh demo data was seen to take 1.7 s, and over 30 s with some random clauses (the where-property test timed
// out in CI); SQLite, lacking statistics, walked an index backwards with a row lookup each where a scan and
// sort was faster (issue 19).

// After a bulk load (the demo seed, a generated data set): statistics for every table.
// In a transaction, which lifts OSPREY_STATEMENT_TIMEOUT_MS as for the seed it follows (src/db/pg-client.ts): on a
// loaded machine a short timeout cancelled it and the start failed.
export const analyzeAll = async (knex: Knex): Promise<void> => {

    await knex.transaction((trx) => trx.raw('analyze'));
};

// At start (a database the server did not just seed) and every hour while it runs: SQLite's own judgement of
// which statistics are missing or stale (PRAGMA optimize: it analyzes only tables whose size changed much since
// their last analysis, and nothing when none did). analysis_limit bounds the rows one analysis reads per index,
// so that a large table costs milliseconds on the event loop, not the 0.6 s a full ANALYZE of 200,000 work
// orders takes. PostgreSQL's autovacuum keeps its statistics by itself.
export const optimizeStatistics = async (knex: Knex, kind: DatabaseKind): Promise<void> => {

    if (kind === 'sqlite') {
        await knex.raw('pragma analysis_limit = 1000');
        await knex.raw('pragma optimize');
    }
};

export const optimizeEveryMs = 3600_000;

// Runs optimizeStatistics every `everyMs` until the returned function stops it; a failure is reported, not thrown.
export const keepStatistics = (knex: Knex, kind: DatabaseKind, onError: (error: unknown) => void, everyMs = optimizeEveryMs): (() => void) => {

    if (kind !== 'sqlite') {
        return () => undefined;
    }

    const timer = setInterval(() => optimizeStatistics(knex, kind).catch(onError), everyMs);
    timer.unref();
    return () => clearInterval(timer);
};
