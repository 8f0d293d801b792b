import * as Code from '@hapi/code';
import * as Lab from '@hapi/lab';
import Knex from 'knex';

import { clientOf, connectionDb, poolDb } from '../../src/db/db';
import { createKnex } from '../../src/db/knex';
import { NeedsTransaction, singleStatementDb } from '../../src/db/single-statement';
import { learnRewrites, storesAsBound, storesAsWritten } from '../../src/db/rewrites';
import { testDatabases } from '../helpers/databases';
import { watchSql } from '../helpers/sent-sql';
import { maxadmin, startTestServer, type TestServer } from '../helpers/server';


const { experiment, test } = exports.lab = Lab.script();
const { expect } = Code;

const wos = '/maximo/oslc/os/mxapiwodetail';

// A trigger that changes a column the update does not set.
const triggers = {
    sqlite: ['create trigger wo_touch after update of description on workorder begin update workorder set estdur = 99 where workorderid = new.workorderid; end'],
    postgresql: [
        'create function wo_touch() returns trigger language plpgsql as $$ begin new.estdur := 99; return new; end $$',
        'create trigger wo_touch before update on workorder for each row execute function wo_touch()'
    ]
};

experiment('an update answers the row as stored, triggers or not (db/rewrites.ts)', () => {

    for (const database of testDatabases) {
        test(`returns the set columns where nothing else changes the row, the whole row where a trigger may (${database.name})`, { timeout: 60_000 }, async () => {

            const created = await database.create();
            let t: TestServer | undefined;
            try {
                t = await startTestServer(database, { databaseUrl: created.url });
                const knex = t.server.app.osprey.knex as Knex.Knex;
                expect(storesAsWritten(knex, 'workorder')).to.be.true();
                const post = await t.inject({ method: 'POST', url: wos, headers: { ...maxadmin, properties: '*' }, payload: { siteid: 'BEDFORD', description: 'Rewrites', estdur: 1 } });
                expect(post.statusCode).to.equal(201);
                const path = new URL(post.headers.location as string).pathname;
                // Every other work order and every other table's rows, as stored: the update changes its record only.
                const others = async () => {

                    const db = t!.server.app.osprey.knex as Knex.Knex;
                    return {
                        workorders: await db('workorder').whereNot('workorderid', post.result.workorderid).orderBy('workorderid'),
                        tasks: await db('woactivity').orderBy('woactivityid'),
                        statuses: await db('wostatus').orderBy('wostatusid'),
                        assets: await db('asset').orderBy('assetuid')
                    };
                };

                const patchAndRead = async (description: string) => {

                    const before = await others();
                    const patch = await t!.inject({ method: 'PATCH', url: path, headers: { ...maxadmin, properties: '*' }, payload: { description, wopriority: '2' } });
                    expect(patch.statusCode).to.equal(200);
                    const read = await t!.inject({ url: `${path}?oslc.select=*`, headers: maxadmin });
                    expect(patch.result).to.equal(read.result);
                    expect(await others()).to.equal(before);
                    return patch.result;
                };

                // The answer is the row read under the lock with the set columns as the database stored them
                // ('2' is stored as the integer 2).
                // On SQLite the update has no RETURNING (its values are stored as bound); on PostgreSQL it has.
                const sent = await watchSql(t.server.app.osprey.knex as Knex.Knex, () => patchAndRead('First'));
                const update = sent.find((sql) => /^update "workorder"/.test(sql));
                expect(update).to.exist();
                expect(/ returning /.test(update!)).to.equal(database.name === 'postgresql');
                const plain = (await t.inject({ url: `${path}?oslc.select=*`, headers: maxadmin })).result as Record<string, unknown>;
                expect(plain).to.include({ description: 'First', wopriority: 2, estdur: 1 });
                expect(plain).to.equal({ ...post.result, description: 'First', wopriority: 2, _rowstamp: plain._rowstamp, changedate: plain.changedate });

                await t.server.stop();
                t = undefined;
                const raw = createKnex({ databaseUrl: created.url });
                for (const sql of triggers[database.name]) {
                    await raw.raw(sql);
                }

                // Learned at the next start: the trigger's change is in the answer.
                expect(storesAsWritten(raw, 'workorder')).to.be.false();
                await learnRewrites(raw, database.name, ['workorder', 'asset', 'nosuchtable']);
                expect(storesAsWritten(raw, 'workorder')).to.be.false();
                expect(storesAsWritten(raw, 'asset')).to.be.true();
                await raw.destroy();
                t = await startTestServer(database, { databaseUrl: created.url });
                expect(storesAsWritten(t.server.app.osprey.knex as Knex.Knex, 'workorder')).to.be.false();
                expect(storesAsWritten(t.server.app.osprey.knex as Knex.Knex, 'asset')).to.be.true();
                expect(await patchAndRead('Second')).to.include({ description: 'Second', estdur: 99 });
            }
            finally {
                await t?.server.stop();
                await created.drop();
            }
        });
    }
});

experiment('an update without RETURNING on SQLite only where SQLite keeps every value as bound (db/rewrites.ts storesAsBound)', () => {

    // Values and declared column types of every affinity, SQLite itself the judge: wherever storesAsBound says
    // so, the value reads back as it was bound. And it says so for what Osprey's writes bind.
    const columns = { t: 'text', v: 'varchar(20)', i: 'integer', b: 'bigint', r: 'real', f: 'float', n: 'numeric', d: 'datetime', x: 'decimal(10,2)', l: 'blob', none: '' };
    const values: unknown[] = [5, 1.5, -2, 1e20, 2 ** 53, Number.NaN, Infinity, '5', ' 5 ', '1e3', '.5', '5.', '+7', '0x10', '1_000', '5\u00a0', '\u0665', '2026-11-28T07:00:00.000Z', '2026-11-28', 'abc', '', null, Buffer.from('ab')];
    const kept = ['text', 'varchar(20)', 'blob', ''];

    test('SQLite: it answers true only for values read back as bound, and for numbers and non-numeric text in numeric columns', async () => {

        const knex = createKnex({ databaseUrl: 'sqlite::memory:' });
        try {
            await knex.raw(`create table affinity_probe (id integer primary key, ${Object.entries(columns).map(([name, type]) => `"${name}" ${type}`).join(', ')})`);
            await learnRewrites(knex, 'sqlite', ['affinity_probe']);
            let said = 0;
            for (const [column, type] of Object.entries(columns)) {
                for (const value of values) {
                    await knex('affinity_probe').del();
                    await knex('affinity_probe').insert({ id: 1, [column]: value as Knex.Knex.Value });
                    const back = (await knex('affinity_probe').select(column).first())[column];
                    const bound = storesAsBound(knex, 'affinity_probe', { [column]: value });
                    if (bound) {
                        said++;
                        expect(back, `${column} ${type} ${String(value)}`).to.equal(value);
                    }
                }

                // What Osprey's writes bind is said to be kept: numbers, dates as text, null.
                expect(storesAsBound(knex, 'affinity_probe', { [column]: null })).to.be.true();
                expect(storesAsBound(knex, 'affinity_probe', { [column]: 'abc', ...column === 'i' ? {} : { i: 5 } })).to.be.true();
                expect(storesAsBound(knex, 'affinity_probe', { [column]: 'abc', ...column === 't' ? { v: 5 } : { t: 5 } })).to.be.false();
                if (!kept.includes(type)) {
                    expect(storesAsBound(knex, 'affinity_probe', { [column]: 12.5 })).to.be.true();
                    expect(storesAsBound(knex, 'affinity_probe', { [column]: '2026-11-28T07:00:00.000Z' })).to.be.true();
                    expect(storesAsBound(knex, 'affinity_probe', { [column]: '12' })).to.be.false();
                }
                else {
                    expect(storesAsBound(knex, 'affinity_probe', { [column]: '12' })).to.be.true();
                }
            }

            expect(said).to.be.above(150);
            // A column the table does not have, a table not learned.
            expect(storesAsBound(knex, 'affinity_probe', { nosuch: 1 })).to.be.false();
            expect(storesAsBound(knex, 'workorder', { description: 'x' })).to.be.false();
        }
        finally {
            await knex.destroy();
        }
    });

    for (const database of testDatabases.filter((each) => each.name === 'postgresql')) {
        test('PostgreSQL: always false (an update returns what it stored)', async () => {

            const created = await database.create();
            const knex = createKnex({ databaseUrl: created.url });
            try {
                await knex.raw('create table affinity_probe (id integer primary key, t text)');
                await learnRewrites(knex, 'postgresql', ['affinity_probe']);
                expect(storesAsWritten(knex, 'affinity_probe')).to.be.true();
                expect(storesAsBound(knex, 'affinity_probe', { t: 'abc' })).to.be.false();
            }
            finally {
                await knex.destroy();
                await created.drop();
            }
        });
    }
});

experiment('a statement without rows answers how many rows it changed (Db changes)', () => {

    for (const database of testDatabases) {
        test(`on the pool, on a connection, and never in a single-statement write (${database.name})`, async () => {

            const created = await database.create();
            const knex = createKnex({ databaseUrl: created.url });
            try {
                await knex.raw('create table changes_probe (id integer primary key, t text)');
                await knex('changes_probe').insert([{ id: 1, t: 'a' }, { id: 2, t: 'a' }, { id: 3, t: 'b' }]);
                expect(await poolDb(knex).changes('update changes_probe set t = ? where t = ?', ['c', 'a'])).to.equal(2);
                const client = clientOf(knex);
                const connection = await client.acquireConnection();
                try {
                    const state = { ended: false };
                    const db = connectionDb(knex, connection, state);
                    expect(await db.changes('update changes_probe set t = ? where id = ?', ['d', 3])).to.equal(1);
                    expect(await db.changes('update changes_probe set t = ? where id = ?', ['d', 9])).to.equal(0);
                    expect(db.storesAsBound('changes_probe', { t: 'x' })).to.be.false();      // not learned
                    await expect(singleStatementDb(knex, connection, { ended: false, wrote: false }).changes('update changes_probe set t = ?', ['e'])).to.reject(NeedsTransaction);
                    state.ended = true;
                    await expect(db.changes('update changes_probe set t = ?', ['f'])).to.reject(/ended/);
                }
                finally {
                    await client.releaseConnection(connection);
                }

                expect(await knex('changes_probe').orderBy('id').pluck('t')).to.equal(['c', 'c', 'd']);
                // A statement whose answer tells no count (better-sqlite3's rows of a select) is an error, not 0.
                if (database.name === 'sqlite') {
                    await expect(poolDb(knex).changes('select 1 as n')).to.reject(/did not tell how many rows/);
                }
            }
            finally {
                await knex.destroy();
                await created.drop();
            }
        });
    }
});
