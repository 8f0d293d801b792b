import * as Code from '@hapi/code';
import * as Lab from '@hapi/lab';

import { poolDb } from '../../src/db/db';
import { createKnex } from '../../src/db/knex';
import { transaction } from '../../src/db/transaction';
import { testDatabases } from '../helpers/databases';


const { experiment, test } = exports.lab = Lab.script();
const { expect } = Code;

for (const database of testDatabases) {

    experiment(`transactions on one connection (${database.name})`, () => {

        const withTable = async (work: (knex: ReturnType<typeof createKnex>) => Promise<void>) => {

            const created = await database.create();
            const knex = createKnex({ databaseUrl: created.url });
            try {
                await knex.schema.createTable('item', (t) => {

                    t.string('name').primary();
                    t.integer('qty');
                });
                await work(knex);
            }
            finally {
                await knex.destroy();
                await created.drop();
            }
        };

        const names = async (knex: ReturnType<typeof createKnex>) => (await knex('item').orderBy('name').pluck('name')) as string[];

        test('commits what the work wrote, through made-once SQL and query builders alike, and answers its result', async () => {

            await withTable(async (knex) => {

                const result = await transaction(knex, async (db) => {

                    await db.rows('insert into "item" ("name", "qty") values (?, ?)', ['a', 1]);
                    await db.query('item').insert({ name: 'b', qty: 2 });
                    return await db.rows('select "name" from "item" order by "name"');
                });
                expect(result).to.equal([{ name: 'a' }, { name: 'b' }]);
                expect(await names(knex)).to.equal(['a', 'b']);
            });
        });

        test('an error rolls everything back and is thrown as it was', async () => {

            await withTable(async (knex) => {

                await knex('item').insert({ name: 'a', qty: 1 });
                const failure = new Error('refused');
                const error = await expect(transaction(knex, async (db) => {

                    await db.rows('update "item" set "qty" = ?', [5]);
                    await db.query('item').insert({ name: 'b', qty: 2 });
                    throw failure;
                })).to.reject();
                expect(error).to.shallow.equal(failure);
                expect(await knex('item').select('name', 'qty')).to.equal([{ name: 'a', qty: 1 }]);

                // A statement the database refuses (a duplicate key) ends the transaction the same way.
                await expect(transaction(knex, async (db) => {

                    await db.rows('insert into "item" ("name", "qty") values (?, ?)', ['c', 3]);
                    await db.rows('insert into "item" ("name", "qty") values (?, ?)', ['a', 3]);
                })).to.reject();
                expect(await names(knex)).to.equal(['a']);

                // The connection went back to the pool in a usable state.
                expect(await poolDb(knex).rows('select "qty" from "item" where "name" = ?', ['a'])).to.equal([{ qty: 1 }]);
            });
        });
    });
}
