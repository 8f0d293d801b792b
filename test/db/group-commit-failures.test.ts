import * as Fs from 'node:fs';
import * as Os from 'node:os';
import * as Path from 'node:path';

import * as Code from '@hapi/code';
import * as Lab from '@hapi/lab';
import type { Knex } from 'knex';

import { clientOf, type Db } from '../../src/db/db';
import { createKnex } from '../../src/db/knex';
import { groupCommits, transaction } from '../../src/db/transaction';
import type { TransactionKey } from '../../src/write/apply/transaction-ids';
import { recordTransactionId } from '../../src/write/apply/transaction-ids';


// Found by the review of group commit (src/db/group-commit.ts): each failed on its first version.
const { experiment, test, before, after } = exports.lab = Lab.script();
const { expect } = Code;

const settleWithin = <T>(promise: Promise<T>, ms: number): Promise<string> => Promise.race([
    promise.then(() => 'ok', (error: Error) => `rejected: ${error.message}`),
    new Promise<string>((resolve) => setTimeout(() => resolve('pending'), ms))
]);

const newKnex = async (): Promise<{ knex: Knex; dir: string }> => {

    const dir = Fs.mkdtempSync(Path.join(Os.tmpdir(), 'osprey-review-'));
    const knex = createKnex({ databaseUrl: `sqlite:${Path.join(dir, 'db.sqlite')}` });
    await knex.raw('create table t (name text primary key)');
    await knex.raw('create table osprey_transaction (id text, userid text, objectstructure text, created integer, primary key (id, userid, objectstructure))');
    return { knex, dir };
};

const insert = (name: string) => {

    return (db: Db) => db.rows('insert into t (name) values (?)', [name]);
};

experiment('group commit when things go wrong', () => {

    let knex: Knex;
    let dir: string;
    before(async () => ({ knex, dir } = await newKnex()));
    after(async () => {

        await knex.destroy();
        Fs.rmSync(dir, { recursive: true, force: true });
    });

    test('a BEGIN IMMEDIATE that fails fails the write (as alone() did) instead of being retried without end', async () => {

        const client = clientOf(knex);
        const query = client._query.bind(client);
        let begins = 0;
        client._query = (connection, obj) => {

            // Fails 3 times only, so that the test ends: a failure that persists (SQLITE_BUSY while another process
            // holds the lock, SQLITE_READONLY, an I/O error) spins the microtask queue for ever, timers never fire.
            if (obj.sql === 'BEGIN IMMEDIATE' && ++begins <= 3) {
                return Promise.reject(Object.assign(new Error('database is locked'), { code: 'SQLITE_BUSY' }));
            }

            return query(connection, obj);
        };

        try {
            const outcome = await transaction(knex, insert('x')).then(() => 'ok', (error: Error) => error.message);
            expect({ outcome, begins }).to.equal({ outcome: 'database is locked', begins: 1 });
        }
        finally {
            client._query = query;
        }
    });

    test('a write is not told "already processed" on the strength of a write that was rolled back and never committed', async () => {

        const key = { id: 'T1', userid: 'U', structure: 'os' };
        let firstRuns = 0;
        const grouped = <T>(work: (db: Db) => Promise<T>) => transaction(knex, work, { grouped: true });
        const outcomes = await Promise.all([
            grouped(async (db) => {

                if (++firstRuns > 1) {                      // the failure that ended the transaction persists (disk full)
                    throw Object.assign(new Error('database or disk is full'), { code: 'SQLITE_FULL' });
                }

                await recordTransactionId(db, key, Date.now(), 3600_000);
            }),
            grouped((db) => recordTransactionId(db, key as TransactionKey, Date.now(), 3600_000)),
            grouped(async (db) => {

                await db.rows('rollback');                  // stands for an I/O error that ends the transaction
                throw new Error('the transaction is gone');
            })
        ].map((promise) => promise.then(() => 'ok', (error: Error) => error.message)));
        const recorded = await knex('osprey_transaction').select('id');
        // The first write's re-run fails; the second, run again too, now records T1 itself.
        expect(outcomes).to.equal(['database or disk is full', 'ok', 'the transaction is gone']);
        expect(recorded).to.equal([{ id: 'T1' }]);
    });

    test('a short write is not held until a long write queued after it ends', async () => {

        let longRunning = true;
        let shortWhileLong: boolean | undefined;
        const short = transaction(knex, insert('short'), { grouped: true }).then(() => (shortWhileLong = longRunning));
        const long = transaction(knex, async (db) => {      // an all-or-nothing bulk: one work, slicing the loop, not marked short

            await insert('long')(db);
            for (let i = 0; i < 200 && shortWhileLong === undefined; ++i) {
                await new Promise((resolve) => setImmediate(resolve));
            }

            longRunning = false;
        });
        await Promise.all([short, long]);
        expect(shortWhileLong).to.be.true();               // first version: the short write was answered after the long one
    });

    // Last: it shortens how long a write may wait in the queue.
    test('a transaction() inside a work fails instead of wedging the writer for good', { timeout: 10_000 }, async () => {

        groupCommits(knex, 500);                            // as long as a write may wait (60 s on a server)
        const outer = transaction(knex, async (db) => {

            await insert('outer')(db);
            await transaction(knex, insert('inner'));       // e.g. a plugin hook calling server.inTransaction / runWrite
        });
        expect(await settleWithin(outer, 3000)).to.match(/^rejected: The write waited 500 ms for SQLite's writer connection/);
        expect(await settleWithin(transaction(knex, insert('unrelated')), 1000)).to.equal('ok');
    });
});
