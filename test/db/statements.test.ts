import * as Code from '@hapi/code';
import * as Lab from '@hapi/lab';

import { createKnex } from '../../src/db/knex';
import { insertReturning, rawRows, remember, selectOne, updateReturning } from '../../src/db/statements';
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

for (const database of testDatabases) {

    experiment(`statements made once per shape (${database.name})`, () => {

        const withTable = async (work: (knex: ReturnType<typeof createKnex>) => Promise<void>) => {

            const db = await database.create();
            const knex = createKnex({ databaseUrl: db.url });
            try {
                await knex.schema.createTable('thing', (t) => {

                    t.increments('id');
                    t.string('name');
                    t.string('site');
                    t.integer('qty').defaultTo(7);
                });
                await work(knex);
            }
            finally {
                await knex.destroy();
                await db.drop();
            }
        };

        test('insert answers the row as stored; an undefined value takes the column default', async () => {

            await withTable(async (knex) => {

                expect(await insertReturning(knex, 'thing', { name: 'a', site: 'X', qty: undefined })).to.equal({ id: 1, name: 'a', site: 'X', qty: 7 });
                expect(await insertReturning(knex, 'thing', {})).to.equal({ id: 2, name: null, site: null, qty: 7 });
                expect(await insertReturning(knex, 'thing', { name: 'c', site: null, qty: 3 })).to.equal({ id: 3, name: 'c', site: null, qty: 3 });
            });
        });

        test('select by equality: a null key value is "is null", columns and a lock as asked', async () => {

            await withTable(async (knex) => {

                await knex('thing').insert([{ name: 'a', site: 'X' }, { name: 'a', site: null }]);
                expect(await selectOne(knex, 'thing', { name: 'a', site: null })).to.include({ id: 2 });
                expect(await selectOne(knex, 'thing', { name: 'a', site: 'X' }, { columns: ['id'] })).to.equal({ id: 1 });
                expect(await selectOne(knex, 'thing', { name: 'b', site: 'X' })).to.be.undefined();
                await knex.transaction(async (trx) => {

                    expect(await selectOne(trx, 'thing', { id: 1 }, { lock: database.name === 'postgresql' })).to.include({ name: 'a' });
                });
            });
        });

        test('update answers the rows it changed, none when the where misses', async () => {

            await withTable(async (knex) => {

                await knex('thing').insert({ name: 'a', site: 'X' });
                expect(await updateReturning(knex, 'thing', { qty: 9, name: undefined }, { id: 1, site: 'X' })).to.equal([{ id: 1, name: 'a', site: 'X', qty: 9 }]);
                expect(await updateReturning(knex, 'thing', { qty: 10 }, { id: 1, site: 'Y' })).to.equal([]);
                expect(await rawRows(knex, 'select "qty" from "thing" where "id" = ?', [1])).to.equal([{ qty: 9 }]);
            });
        });
    });
}
