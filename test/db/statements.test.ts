import * as Code from '@hapi/code';
import * as Lab from '@hapi/lab';

import { poolDb, runRows, type Db, type DriverClient, type Row, type RowsOptions } from '../../src/db/db';
import { createKnex } from '../../src/db/knex';
import { remember } from '../../src/db/remember';
import { insertReturning, namedSelections, selectLinked, selectOne, updateReturning } from '../../src/db/statements';
import { transaction } from '../../src/db/transaction';
import { testDatabases } from '../helpers/databases';


const { experiment, test } = exports.lab = Lab.script();
const { expect } = Code;

experiment('bounded maps of compiled SQL', () => {

    test('start afresh when full', () => {

        const map = new Map<string, number>();
        for (let i = 0; i < 5; ++i) {
            expect(remember(map, `k${i}`, i, 3)).to.equal(i);
        }

        expect([...map.keys()]).to.equal(['k3', 'k4']);
    });
});

experiment('named statements on PostgreSQL', () => {

    // A stand-in for knex's PostgreSQL client that records the statements it is asked for and answers with the
    // outcomes given, so that the naming is checked whatever database the suite runs on.
    const fakePg = (outcomes: (Error | unknown[])[]) => {

        const sent: { name?: string; sql: string; bindings: readonly unknown[] }[] = [];
        const client: DriverClient = {
            acquireConnection: () => Promise.resolve({}),
            releaseConnection: () => Promise.resolve(),
            _query: (_connection, obj) => {

                sent.push({ name: obj.options?.name, sql: obj.sql, bindings: obj.bindings });
                const outcome = outcomes.shift();
                return outcome instanceof Error ? Promise.reject(outcome) : Promise.resolve({ ...obj, response: { rows: outcome } });
            }
        };
        const rows = (sql: string, bindings: unknown[] = []) => runRows(client, 'postgresql', {}, sql, bindings);
        return { rows, sent, client, names: () => sent.map((statement) => statement.name!) };
    };

    const failure = (code: string, message: string) => Object.assign(new Error(message), { code });

    test('one name per SQL text, its placeholders numbered; a changed plan is a 503 and moves every name to a new generation', async () => {

        const { rows, sent, names } = fakePg([[{ a: 1 }], [{ a: 2 }], [], failure('0A000', 'cached plan must not change result type'), [{ a: 3 }]]);
        const sql = 'select "a" from "t" where "b" = ? and "c" = ?';
        expect(await rows(sql, [1, 'x'])).to.equal([{ a: 1 }]);
        expect(sent[0]).to.include({ sql: 'select "a" from "t" where "b" = $1 and "c" = $2', bindings: [1, 'x'] });
        expect(await rows(sql, [2, 'y'])).to.equal([{ a: 2 }]);
        expect(await rows('select 1', [])).to.equal([]);
        expect(names()[0]).to.equal(names()[1]);
        expect(names()[2]).to.not.equal(names()[0]);
        expect(names()[0]).to.match(/^osprey_\d+_[\w-]{27}$/);

        const error = await expect(rows(sql, [3, 'z'])).to.reject();
        expect((error as unknown as { output: { statusCode: number } }).output.statusCode).to.equal(503);
        expect(await rows(sql, [3, 'z'])).to.equal([{ a: 3 }]);
        expect(names()[4]).to.not.equal(names()[3]);
        expect(names()[4]!.slice(names()[4]!.lastIndexOf('_'))).to.equal(names()[3]!.slice(names()[3]!.lastIndexOf('_')));
    });

    test('a where-shaped statement runs unnamed, its placeholders numbered', async () => {

        const { sent, client } = fakePg([]);
        await runRows(client, 'postgresql', {}, 'select count(*) as "n" from "t" where "c" = ?', [1], { shapes: 'client' });
        expect(sent).to.equal([{ name: undefined, sql: 'select count(*) as "n" from "t" where "c" = $1', bindings: [1] }]);
    });

    test('linked reads of columns a select chose are named once repeated, for the first lists only; the rest run unnamed', async () => {

        const { sent, names, client } = fakePg([]);
        const db = { kind: 'postgresql', rows: (sql: string, bindings?: readonly unknown[], options?: RowsOptions) => runRows(client, 'postgresql', {}, sql, bindings, options) } as unknown as Db;
        const read = async (columns: string[], narrowed: boolean) => {

            await selectLinked(db, 'thing', columns, ['name'], [['a']], { orderBy: 'id', narrowed });
            return names()[names().length - 1];
        };

        const { max, uses, lists, seen } = namedSelections;
        const saved = { lists: [...lists], seen: [...seen] };
        lists.clear();
        seen.clear();
        try {
            // A list sent once or twice runs unnamed; its third read is named, and so is every read after it.
            expect(await read(['id', 'c0'], true)).to.be.undefined();
            expect(await read(['id', 'c0'], true)).to.be.undefined();
            const first = await read(['id', 'c0'], true);
            expect(first).to.exist();
            expect(await read(['id', 'c0'], true)).to.equal(first);
            for (let i = 1; i < max; ++i) {
                for (let j = 0; j < uses; ++j) {
                    await read(['id', `c${i}`], true);
                }
            }

            expect(lists.size).to.equal(max);
            // Full: another list runs unnamed however often it is read; one named before stays named; whole
            // rows are always named.
            for (let i = 0; i < uses + 1; ++i) {
                expect(await read(['id', 'other'], true)).to.be.undefined();
            }

            expect(await read(['id', 'c0'], true)).to.equal(first);
            expect(await read(['id', 'other', 'more'], false)).to.exist();
            expect(sent[sent.length - 2]!.sql).to.equal('select "id", "c0" from "thing" where "name" in ($1) order by "id" asc');
        }
        finally {
            lists.clear();
            seen.clear();
            saved.lists.forEach((list) => lists.add(list));
            saved.seen.forEach(([list, count]) => seen.set(list, count));
        }
    });

    test('other errors pass through unchanged', async () => {

        const unsupported = failure('0A000', 'FOR UPDATE is not allowed with aggregate functions');
        const { rows } = fakePg([unsupported, failure('42P01', 'relation "t" does not exist')]);
        expect(await expect(rows('select count(*) from "t" for update')).to.reject()).to.shallow.equal(unsupported);
        await expect(rows('select 1 from "t"')).to.reject('relation "t" does not exist');
    });
});

for (const database of testDatabases) {

    experiment(`statements made once per shape (${database.name})`, () => {

        const all = ['id', 'name', 'site', 'qty'];
        const pgOnly = database.name === 'postgresql' ? test : () => undefined;
        const withTable = async (work: (db: Db) => Promise<void>) => {

            const created = await database.create();
            const knex = createKnex({ databaseUrl: created.url });
            try {
                await knex.schema.createTable('thing', (t) => {

                    t.increments('id');
                    t.string('name');
                    t.string('site');
                    t.integer('qty').defaultTo(7);
                });
                await work(poolDb(knex));
            }
            finally {
                await knex.destroy();
                await created.drop();
            }
        };

        test('insert answers the row as stored; an undefined value takes the column default', async () => {

            await withTable(async (db) => {

                expect(await insertReturning(db, 'thing', { name: 'a', site: 'X', qty: undefined }, all)).to.equal({ id: 1, name: 'a', site: 'X', qty: 7 });
                expect(await insertReturning(db, 'thing', {}, all)).to.equal({ id: 2, name: null, site: null, qty: 7 });
                expect(await insertReturning(db, 'thing', { name: 'c', site: null, qty: 3 }, all)).to.equal({ id: 3, name: 'c', site: null, qty: 3 });
            });
        });

        test('select by equality: a null key value is "is null", columns and a lock as asked', async () => {

            await withTable(async (db) => {

                await db.query('thing').insert([{ name: 'a', site: 'X' }, { name: 'a', site: null }]);
                expect(await selectOne(db, 'thing', { name: 'a', site: null }, { columns: all })).to.include({ id: 2 });
                expect(await selectOne(db, 'thing', { name: 'a', site: 'X' }, { columns: ['id'] })).to.equal({ id: 1 });
                expect(await selectOne(db, 'thing', { name: 'b', site: 'X' }, { columns: all })).to.be.undefined();
                await transaction(db.knex, async (trx) => {

                    expect(await selectOne(trx, 'thing', { id: 1 }, { columns: all, lock: database.name === 'postgresql' })).to.include({ name: 'a' });
                });
            });
        });

        test('update answers the rows it changed, none when the where misses', async () => {

            await withTable(async (db) => {

                await db.query('thing').insert({ name: 'a', site: 'X' });
                expect(await updateReturning(db, 'thing', { qty: 9, name: undefined }, { id: 1, site: 'X' }, all)).to.equal([{ id: 1, name: 'a', site: 'X', qty: 9 }]);
                expect(await updateReturning(db, 'thing', { qty: 10 }, { id: 1, site: 'Y' }, all)).to.equal([]);
                expect(await db.rows('select "qty" from "thing" where "id" = ?', [1])).to.equal([{ qty: 9 }]);
                expect(await updateReturning(db, 'thing', { qty: '11', name: 'b', site: undefined }, { id: 1 }, 'set')).to.equal([{ qty: 11, name: 'b' }]);
            });
        });

        test('linked rows: each matching row once, tuples padded to the shape\'s count, with an owner filter, an order and a limit', async () => {

            await withTable(async (db) => {

                await db.query('thing').insert([{ name: 'a', site: 'X', qty: 7 }, { name: 'b', site: 'X', qty: 7 }, { name: 'a', site: 'Y', qty: 7 }, { name: 'c', site: 'X', qty: 1 }, { name: 'b', site: 'Y', qty: 7 }]);
                const names = (rows: Row[]) => rows.map((row) => row.id);
                // Three tuples fill a shape of four: the first is sent twice and still matches once.
                expect(await selectLinked(db, 'thing', all, ['name', 'site'], [['b', 'Y'], ['a', 'X'], ['z', 'Z']], { orderBy: 'id' })).to.equal([
                    { id: 1, name: 'a', site: 'X', qty: 7 },
                    { id: 5, name: 'b', site: 'Y', qty: 7 }
                ]);
                expect(names(await selectLinked(db, 'thing', all, ['name'], [['a'], ['c'], ['b']], { orderBy: 'id' }))).to.equal([1, 2, 3, 4, 5]);
                expect(names(await selectLinked(db, 'thing', all, ['name'], [['a'], ['c'], ['b']], { orderBy: 'id', owner: { column: 'site', value: 'X' } }))).to.equal([1, 2, 4]);
                expect(names(await selectLinked(db, 'thing', all, ['name'], [['a'], ['c'], ['b']], { orderBy: 'id', limit: 2 }))).to.equal([1, 2]);
                expect(names(await selectLinked(db, 'thing', ['id'], ['name'], [['a']], { orderBy: 'id' }))).to.equal([1, 3]);
                const many = Array.from({ length: 300 }, (_, i) => [i % 2 ? 'a' : `n${i}`]);
                expect(names(await selectLinked(db, 'thing', all, ['name'], many, { orderBy: 'id' }))).to.equal([1, 3]);
                const pairs = Array.from({ length: 500 }, (_, i) => (i === 499 ? ['c', 'X'] : [`n${i}`, 'X']));
                expect(names(await selectLinked(db, 'thing', all, ['name', 'site'], pairs, { orderBy: 'id' }))).to.equal([4]);
                await expect(selectLinked(db, 'thing', all, ['name'], [], { orderBy: 'id' })).to.reject(RangeError);
                await expect(selectLinked(db, 'thing', all, ['name'], [...many, ...many], { orderBy: 'id' })).to.reject(RangeError);
            });
        });

        test('a column added by another server after a statement was made changes nothing it answers', async () => {

            await withTable(async (db) => {

                await insertReturning(db, 'thing', { name: 'a' }, all);
                expect(await selectOne(db, 'thing', { id: 1 }, { columns: all })).to.equal({ id: 1, name: 'a', site: null, qty: 7 });
                await db.knex.schema.alterTable('thing', (t) => t.string('added').defaultTo('new'));
                expect(await selectOne(db, 'thing', { id: 1 }, { columns: all })).to.equal({ id: 1, name: 'a', site: null, qty: 7 });
                expect(await insertReturning(db, 'thing', { name: 'b' }, all)).to.equal({ id: 2, name: 'b', site: null, qty: 7 });
                expect(await updateReturning(db, 'thing', { qty: 1 }, { id: 2 }, all)).to.equal([{ id: 2, name: 'b', site: null, qty: 1 }]);
            });
        });

        pgOnly('a column type changed under a prepared statement: that request is a 503 to send again, the next is served', async () => {

            await withTable(async (db) => {

                await insertReturning(db, 'thing', { name: 'a' }, all);
                // One transaction holds one connection: the statement is prepared on it, then its result type
                // changes (rolled back with the transaction, as if another server had widened and narrowed it).
                const error = await expect(transaction(db.knex, async (trx) => {

                    await selectOne(trx, 'thing', { id: 1 }, { columns: all });
                    await trx.rows('alter table "thing" alter column "name" type varchar(500)');
                    await selectOne(trx, 'thing', { id: 1 }, { columns: all });
                })).to.reject();
                const { output, data } = error as unknown as { output: { statusCode: number }; data: unknown };
                expect(output.statusCode).to.equal(503);
                expect(data).to.equal({ reasonCode: 'BMXAA1725E' });
                await transaction(db.knex, async (trx) => {

                    expect(await selectOne(trx, 'thing', { id: 1 }, { columns: all })).to.equal({ id: 1, name: 'a', site: null, qty: 7 });
                });
            });
        });
    });
}
