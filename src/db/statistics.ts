import type { Knex } from 'knex';

import type { DatabaseKind } from './knex';


// The query planners of both databases choose joins, index walks and sorts from table statistics. A table just
// filled and never analyzed makes them guess: on PostgreSQL a relation where of a few EXISTS terms over the
// fresh demo data was seen to take 1.7 s, and over 30 s with some random clauses (the where-property test timed
// out in CI); SQLite, lacking statistics, walked an index backwards with a row lookup each where a scan and
// sort was faster (issue 19).

// After a bulk load (the demo seed, a generated data set): statistics for every table.
export const analyzeAll = async (knex: Knex): Promise<void> => {

    await knex.raw('analyze');
};

// At start (a database the server did not just seed): SQLite's own judgement of which statistics are missing or
// stale (PRAGMA optimize, cheap when nothing changed). PostgreSQL's autovacuum keeps its statistics by itself.
// Running it periodically and after large bulks is left to issue 19.
export const optimizeStatistics = async (knex: Knex, kind: DatabaseKind): Promise<void> => {

    if (kind === 'sqlite') {
        await knex.raw('pragma optimize');
    }
};
