import Database from 'better-sqlite3';
import * as Code from '@hapi/code';
import * as Lab from '@hapi/lab';

import { createKnex, sqliteFile } from '../../src/db/knex';
import { changesHeard, notifyChanges } from '../../src/db/pg-client';
import { ReadCache } from '../../src/db/read-cache';
import { changeStamp, otherWritesMs, preparedStatement, statementCacheSize } from '../../src/db/sqlite-client';
import { transaction } from '../../src/db/transaction';
import { testDatabases } from '../helpers/databases';


const { experiment, test } = exports.lab = Lab.script();
const { expect } = Code;

experiment('the SQLite statement cache', () => {

    test('prepares a statement once per SQL text and drops the least recently used beyond its size', () => {

        const db = new Database(':memory:');
        const first = preparedStatement(db, 'select 1 as n');
        expect(preparedStatement(db, 'select 1 as n')).to.shallow.equal(first);
        for (let i = 0; i < statementCacheSize; ++i) {
            preparedStatement(db, `select ${i + 2} as n`);
        }

        const again = preparedStatement(db, 'select 1 as n');
        expect(again).to.not.shallow.equal(first);
        expect(again.get()).to.equal({ n: 1 });
        db.close();
    });

    test('runs statements with per-query options through knex itself', async () => {

        const database = await testDatabases[0]!.create();
        const knex = createKnex({ databaseUrl: database.url });
        try {
            const [row] = await knex.raw('select 9007199254740993 as n').options({ safeIntegers: true }) as { n: bigint }[];
            expect(row!.n).to.equal(9007199254740993n);
            const [plain] = await knex.raw('select 2 as n') as { n: number }[];
            expect(plain!.n).to.equal(2);
        }
        finally {
            await knex.destroy();
            await database.drop();
        }
    });
});

for (const database of testDatabases) {

    experiment(`reads cached while the database is unchanged (${database.name})`, () => {

        const heard = async (read: () => Promise<number>, expected: number) => {

            for (let i = 0; i < 200 && await read() !== expected; ++i) {
                await new Promise((resolve) => setTimeout(resolve, 10));
            }
        };

        const withTable = async (work: (knex: ReturnType<typeof createKnex>, url: string) => Promise<void>) => {

            const db = await database.create();
            const knex = createKnex({ databaseUrl: db.url });
            try {
                await knex.schema.createTable('item', (t) => {

                    t.string('name').primary();
                    t.integer('qty');
                });
                await knex('item').insert({ name: 'a', qty: 1 });
                if (database.name === 'postgresql') {
                    await notifyChanges(knex, ['item']);
                    expect(await changesHeard(knex)).to.be.true();
                }

                await work(knex, db.url);
            }
            finally {
                await knex.destroy();
                await db.drop();
            }
        };

        const loader = (knex: ReturnType<typeof createKnex>) => {

            const counter = { loads: 0 };
            const load = async () => {

                ++counter.loads;
                const row = await knex('item').where({ name: 'a' }).first() as { qty: number };
                return row.qty;
            };

            return { counter, load };
        };

        test('a value is read again after a write of this server, and only then', async () => {

            await withTable(async (knex) => {

                const cache = new ReadCache<number>(knex, ['item']);
                const { counter, load } = loader(knex);
                expect(await cache.read('a', load)).to.equal(1);
                expect(await cache.read('a', load)).to.equal(1);
                expect(counter.loads).to.equal(1);

                // Beginning and ending a transaction changes nothing (SQLite calls BEGIN IMMEDIATE a writer).
                await transaction(knex, (db) => db.rows('select "qty" from "item"'));
                await expect(transaction(knex, async (db) => {

                    await db.rows('select "qty" from "item"');
                    throw new Error('no write after all');
                })).to.reject('no write after all');
                expect(await cache.read('a', load)).to.equal(1);
                expect(counter.loads).to.equal(1);

                await transaction(knex, (db) => db.rows('update "item" set "qty" = ? where "name" = ?', [2, 'a']));
                // Read at once: this server counted its own write.
                expect(await cache.read('a', load)).to.equal(2);
                // PostgreSQL's notice of the same write follows (it may drop the value once more); then it is kept.
                await new Promise((resolve) => setTimeout(resolve, database.name === 'postgresql' ? 200 : 0));
                expect(await cache.read('a', load)).to.equal(2);
                const loads = counter.loads;
                expect(await cache.read('a', load)).to.equal(2);
                expect(await cache.read('a', load)).to.equal(2);
                expect(counter.loads).to.equal(loads);
            });
        });

        test('a burst of reads of one key while it is not cached runs one load; a failed load fails them all, and the next read loads again', async () => {

            await withTable(async (knex) => {

                const cache = new ReadCache<number>(knex, ['item']);
                const { counter, load } = loader(knex);
                const burst = await Promise.all(Array.from({ length: 20 }, () => cache.read('a', load)));
                expect(burst).to.equal(Array.from({ length: 20 }, () => 1));
                expect(counter.loads).to.equal(1);

                // Another key is a flight of its own.
                expect(await Promise.all([cache.read('b', load), cache.read('b', load)])).to.equal([1, 1]);
                expect(counter.loads).to.equal(2);

                await knex('item').update({ qty: 3 });
                let failures = 0;
                const failing = () => {

                    ++failures;
                    return Promise.reject(new Error('database gone'));
                };

                const results = await Promise.allSettled(Array.from({ length: 5 }, () => cache.read('a', failing)));
                expect(results.every((result) => result.status === 'rejected')).to.be.true();
                expect(failures).to.equal(1);
                expect(await cache.read('a', load)).to.equal(3);
            });
        });

        test('writes to other tables keep the value; a write to its table or a schema change drops it', async () => {

            await withTable(async (knex) => {

                await knex.schema.createTable('other', (t) => t.integer('n'));
                const cache = new ReadCache<number>(knex, ['ITEM']);
                const { counter, load } = loader(knex);
                expect(await cache.read('a', load)).to.equal(1);
                await knex('other').insert({ n: 1 });
                await knex('other').update({ n: 2 });
                await knex('other').delete();
                expect(await cache.read('a', load)).to.equal(1);
                expect(counter.loads).to.equal(1);

                await knex.raw('update "item" set qty = 4');
                expect(await cache.read('a', load)).to.equal(4);
                await knex('item').insert({ name: 'c', qty: 0 });
                await knex('item').where({ name: 'c' }).delete();
                expect(await cache.read('a', load)).to.equal(4);
                expect(counter.loads).to.equal(3);

                await knex.schema.alterTable('other', (t) => t.integer('m'));
                expect(await cache.read('a', load)).to.equal(4);
                expect(counter.loads).to.equal(4);
            });
        });

        test('a value is read again after another connection (another node) wrote', async () => {

            await withTable(async (knex, url) => {

                const cache = new ReadCache<number>(knex, ['item']);
                const { counter, load } = loader(knex);
                expect(await cache.read('a', load)).to.equal(1);
                if (database.name === 'sqlite') {
                    const other = new Database(sqliteFile(url));
                    other.prepare('update item set qty = 3').run();
                    other.close();
                    // Another process's commit is seen within otherWritesMs (the pragma is not asked every read).
                    await new Promise((resolve) => setTimeout(resolve, otherWritesMs));
                }
                else {
                    const other = createKnex({ databaseUrl: url });
                    await other('item').update({ qty: 3 });
                    await other.destroy();
                    await heard(() => cache.read('a', load), 3);          // the notice comes a moment after the commit
                }

                expect(await cache.read('a', load)).to.equal(3);
                expect(await cache.read('a', load)).to.equal(3);
                expect(counter.loads).to.equal(2);
            });
        });

        const pgOnly = database.name === 'postgresql' ? test : () => undefined;

        pgOnly('nothing is cached while the node does not hear of changes, and caching resumes', async () => {

            await withTable(async (knex) => {

                const cache = new ReadCache<number>(knex, ['item']);
                const { counter, load } = loader(knex);
                await cache.read('a', load);
                await knex.raw('select pg_terminate_backend(pid) from pg_stat_activity where datname = current_database() and query = ?', ['listen osprey_change']);
                for (let i = 0; i < 200 && changeStamp(knex, ['item']) !== undefined; ++i) {
                    await new Promise((resolve) => setTimeout(resolve, 10));
                }

                expect(changeStamp(knex, ['item'])).to.be.undefined();
                await cache.read('a', load);
                await cache.read('a', load);
                expect(counter.loads).to.equal(3);

                await new Promise((resolve) => setTimeout(resolve, 1100));
                expect(await changesHeard(knex)).to.be.true();
                await cache.read('a', load);
                await cache.read('a', load);
                expect(counter.loads).to.equal(4);
            });
        });

        test('a value read while a write landed is read again next time, and the cache stays bounded', async () => {

            await withTable(async (knex) => {

                const cache = new ReadCache<number>(knex, ['item'], 1);
                const { counter, load } = loader(knex);
                await cache.read('a', async () => {

                    const value = await load();
                    await knex('item').insert({ name: 'b', qty: 5 });
                    return value;
                });
                expect(await cache.read('a', load)).to.equal(1);
                expect(counter.loads).to.equal(2);

                const b = async () => {

                    ++counter.loads;
                    return ((await knex('item').where({ name: 'b' }).first()) as { qty: number }).qty;
                };

                expect(await cache.read('b', b)).to.equal(5);
                expect(await cache.read('a', load)).to.equal(1);
                expect(counter.loads).to.equal(4);
                expect(await cache.read('a', load)).to.equal(1);
                expect(counter.loads).to.equal(4);
            });
        });
    });
}

experiment('change stamps', () => {

    test('are only given where the database can tell them', async () => {

        const pg = createKnex({ databaseUrl: 'postgres://postgres@127.0.0.1:1/none' });
        expect(changeStamp(pg, ['item'])).to.be.undefined();
        await pg.destroy();

        const database = await testDatabases[0]!.create();
        const knex = createKnex({ databaseUrl: database.url });
        try {
            await knex.destroy();                           // no open connection: nothing to ask
            expect(changeStamp(knex, ['item'])).to.be.undefined();
        }
        finally {
            await database.drop();
        }
    });
});
