import * as Code from '@hapi/code';
import * as Lab from '@hapi/lab';
import type { Knex } from 'knex';

import { createKnex } from '../../src/db/knex';
import { NeedsTransaction, singleStatement } from '../../src/db/single-statement';
import { transaction } from '../../src/db/transaction';
import { onCommit, type Commit } from '../../src/write/after-commit';
import { testDatabases } from '../helpers/databases';
import { watchSql as watch } from '../helpers/sent-sql';
import { copyFixture, ownedNotes, removeCopy } from '../helpers/fixtures';
import { maxadmin, maxauth, startTestServer, type TestServer } from '../helpers/server';


const { experiment, test, before, after } = exports.lab = Lab.script();
const { expect } = Code;

// Single-statement writes exist on PostgreSQL only: SQLite's writes share COMMITs (group-commit.ts) instead.
const postgres = testDatabases.filter((database) => database.name === 'postgresql');

const wos = '/maximo/oslc/os/mxapiwodetail';

const controls = (sent: string[]) => sent.filter((sql) => /^\s*(begin|commit|rollback)\b/i.test(sql));
// The node's own heartbeat (src/cluster/members.ts) shares the pool and may land between a test's statements on
// a loaded machine: it is no write of the request's.
const writes = (sent: string[]) => sent.filter((sql) => !/^\s*(select|begin|commit|rollback)\b/i.test(sql) && !/"osprey_member"/.test(sql));

for (const database of postgres) {
    experiment(`a PATCH of the record's own attributes runs as its one update, db/single-statement.ts (${database.name})`, () => {

        let t: TestServer;
        before(async () => {

            t = await startTestServer(database);
        });

        after(async () => {

            await t.stop();
        });

        const knexOf = () => t.server.app.osprey.knex as Knex;

        // Every work order, task, status and asset row, as stored.
        const tables = async () => {

            const knex = knexOf();
            return {
                workorders: await knex('workorder').orderBy('workorderid'),
                tasks: await knex('woactivity').orderBy('woactivityid'),
                statuses: await knex('wostatus').orderBy('wostatusid'),
                assets: await knex('asset').orderBy('assetuid')
            };
        };

        const created = async () => {

            const post = await t.inject({ method: 'POST', url: wos, headers: { ...maxadmin, properties: '*' }, payload: { siteid: 'BEDFORD', description: 'Single', estdur: 1 } });
            expect(post.statusCode).to.equal(201);
            return { path: new URL(post.headers.location as string).pathname, row: post.result as Record<string, unknown> };
        };

        test('sends no BEGIN, no COMMIT and no row lock; answers and stores the update; changes nothing else', async () => {

            const { path, row } = await created();
            const earlier = await tables();
            let patch: Awaited<ReturnType<typeof t.inject>> | undefined;
            const sent = await watch(knexOf(), async () => {

                patch = await t.inject({ method: 'PATCH', url: path, headers: { ...maxadmin, properties: '*' }, payload: { description: 'Once', wopriority: '3' } });
            });
            expect(patch!.statusCode).to.equal(200);
            expect(controls(sent)).to.equal([]);
            expect(sent.some((sql) => /for update/i.test(sql))).to.be.false();
            expect(writes(sent)).to.have.length(1);
            expect(writes(sent)[0]).to.match(/^update "workorder"/);
            expect(patch!.result).to.equal({ ...row, description: 'Once', wopriority: 3, _rowstamp: patch!.result._rowstamp, changedate: patch!.result.changedate });
            const read = await t.inject({ url: `${path}?oslc.select=*`, headers: maxadmin });
            expect(read.result).to.equal(patch!.result);

            const later = await tables();
            const id = row.workorderid;
            expect(later.workorders.filter((each) => each.workorderid !== id)).to.equal(earlier.workorders.filter((each) => each.workorderid !== id));
            expect({ ...later, workorders: [] }).to.equal({ ...earlier, workorders: [] });
        });

        test('a record changed between its read and the update is written in a transaction, from the changed row', async () => {

            const { path, row } = await created();
            const other = createKnex({ databaseUrl: t.options.databaseUrl });
            let changed = false;
            let patch: Awaited<ReturnType<typeof t.inject>> | undefined;
            try {
                const sent = await watch(knexOf(), async () => {

                    patch = await t.inject({ method: 'PATCH', url: path, headers: { ...maxadmin, properties: '*' }, payload: { description: 'Raced' } });
                }, async (sql) => {

                    // Another writer changes the record just before the first update is sent.
                    if (!changed && /^update "workorder"/.test(sql)) {
                        changed = true;
                        await other('workorder').where({ workorderid: row.workorderid }).update({ wopriority: 7, rowstamp: other.raw('rowstamp + 1') });
                    }
                });

                expect(changed).to.be.true();
                expect(patch!.statusCode).to.equal(200);
                // The first update missed (the rowstamp it named had gone); the write ran again under the row's lock.
                expect(controls(sent).map((sql) => sql.split(';')[0])).to.equal(['BEGIN', 'COMMIT']);
                expect(sent.filter((sql) => /for update/i.test(sql))).to.have.length(1);
                expect(writes(sent)).to.have.length(2);
                expect(patch!.result).to.include({ description: 'Raced', wopriority: 7 });
                const stored = await other('workorder').where({ workorderid: row.workorderid }).first();
                expect(stored).to.include({ description: 'Raced', wopriority: 7 });
                expect(String(stored.rowstamp)).to.equal(String(patch!.result._rowstamp));
            }
            finally {
                await other.destroy();
            }
        });

        // Runs a PATCH of `path` while another writer changes the record just before the PATCH's first update.
        const raced = async (path: string, id: unknown, headers: Record<string, string>, payload: object) => {

            const other = createKnex({ databaseUrl: t.options.databaseUrl });
            let changed = false;
            let patch: Awaited<ReturnType<typeof t.inject>> | undefined;
            try {
                const sent = await watch(knexOf(), async () => {

                    patch = await t.inject({ method: 'PATCH', url: path, headers: { ...maxadmin, ...headers }, payload });
                }, async (sql) => {

                    if (!changed && /^update "workorder"/.test(sql)) {
                        changed = true;
                        await other('workorder').where({ workorderid: id }).update({ wopriority: 8, rowstamp: other.raw('rowstamp + 1') });
                    }
                });
                expect(changed).to.be.true();
                return { patch: patch!, sent, stored: await other('workorder').where({ workorderid: id }).first() };
            }
            finally {
                await other.destroy();
            }
        };

        test('an If-Match read before another writer changed the record is refused after the rerun, and nothing of the PATCH is written', async () => {

            const { path, row } = await created();
            const { patch, sent, stored } = await raced(path, row.workorderid, { 'if-match': String(row._rowstamp) }, { description: 'Stale' });
            expect(patch.statusCode).to.equal(412);
            // The single update missed; the rerun read the record under its lock and found another ETag.
            expect(controls(sent).map((sql) => sql.split(';')[0])).to.equal(['BEGIN', 'ROLLBACK']);
            expect(writes(sent)).to.have.length(1);
            expect(stored).to.include({ description: 'Single', wopriority: 8 });
        });

        test('after-commit subscribers hear a PATCH that ran again exactly once, after its commit', async () => {

            const { path, row } = await created();
            const heard: Commit[] = [];
            const stop = onCommit(t.server.app.osprey, (commit) => {

                heard.push(commit);
            });
            try {
                const { patch, stored } = await raced(path, row.workorderid, {}, { description: 'Heard once' });
                expect(patch.statusCode).to.equal(204);
                expect(stored).to.include({ description: 'Heard once', wopriority: 8 });
            }
            finally {
                stop();
            }

            expect(heard.map((commit) => commit.writes.map((write) => `${write.operation}:${write.id}`))).to.equal([[`update:${path.split('/').pop()!}`]]);
        });

        test('a write of more than its own row (a status, a child, a transaction id, _action) runs in a transaction', async () => {

            const bodies = [
                { payload: { status: 'APPR' }, headers: {} },
                { payload: { description: 'With a task', woactivity: [{ taskid: 10, description: 'Task' }] }, headers: {} },
                { payload: { description: 'Once only' }, headers: { transactionid: 'single-statement-1' } },
                { payload: { _action: 'Delete' }, headers: {} },
                // An answer with a child: rendered in the transaction, so that nothing read after the write fails it.
                { payload: { description: 'Answered with tasks' }, headers: { properties: 'wonum,woactivity{taskid}' } }
            ];
            for (const { payload, headers } of bodies) {
                const { path } = await created();
                let patch: Awaited<ReturnType<typeof t.inject>> | undefined;
                const sent = await watch(knexOf(), async () => {

                    patch = await t.inject({ method: 'PATCH', url: path, headers: { ...maxadmin, ...headers }, payload });
                });
                expect(patch!.statusCode, JSON.stringify(payload)).to.equal('properties' in headers ? 200 : 204);
                expect(controls(sent).map((sql) => sql.split(';')[0])).to.equal(['BEGIN', 'COMMIT']);
            }
        });

        test('a body with an error writes nothing and answers as in a transaction', async () => {

            const { path } = await created();
            const earlier = await tables();
            const patch = await t.inject({ method: 'PATCH', url: path, headers: maxadmin, payload: { wopriority: 'lots' } });
            expect(patch.statusCode).to.equal(400);
            expect(patch.result.Error.reasonCode).to.equal('BMXAA4214E');
            expect(await tables()).to.equal(earlier);
        });
    });

    experiment(`a single-statement PATCH names the record's owner (${database.name})`, () => {

        let t: TestServer;
        let structures: string;
        const wilson = maxauth('wilson', 'wilson-secret');
        before(async () => {

            structures = copyFixture({ only: [], add: { 'mxtestnote.yaml': ownedNotes } });
            t = await startTestServer(database, { structures, demo: false, adminUser: 'MAXADMIN', adminPassword: 'maxadmin' });
            await t.server.app.osprey.users.create({ userid: 'WILSON', password: 'wilson-secret', groups: ['EVERYONE'] });
        });

        after(async () => {

            await t.stop();
            removeCopy(structures);
        });

        test('a record given to another user, its rowstamp unchanged, between the read and the update is not changed', async () => {

            const knex = t.server.app.osprey.knex as Knex;
            const post = await t.inject({ method: 'POST', url: '/maximo/oslc/os/mxtestnote', headers: { ...wilson, properties: '*' }, payload: { body: 'mine' } });
            expect(post.statusCode).to.equal(201);
            const path = new URL(post.headers.location as string).pathname;
            const id = post.result.noteid as number;
            const other = createKnex({ databaseUrl: t.options.databaseUrl });
            let given = false;
            let patch: Awaited<ReturnType<typeof t.inject>> | undefined;
            try {
                const sent = await watch(knex, async () => {

                    patch = await t.inject({ method: 'PATCH', url: path, headers: wilson, payload: { body: 'changed' } });
                }, async (sql) => {

                    // A plugin's raw SQL that hands the note to MAXADMIN without raising its rowstamp.
                    if (!given && /^update "note"/.test(sql)) {
                        given = true;
                        await other('note').where({ noteid: id }).update({ author: 'MAXADMIN' });
                    }
                });
                expect(given).to.be.true();
                expect(writes(sent)).to.have.length(1);
                expect(controls(sent).map((sql) => sql.split(';')[0])).to.equal(['BEGIN', 'ROLLBACK']);
                expect(await other('note').where({ noteid: id }).first()).to.include({ author: 'MAXADMIN', body: 'mine' });
            }
            finally {
                await other.destroy();
            }

            // The rerun read the note under its lock: no longer WILSON's, it is not his to change.
            expect(patch!.statusCode, patch!.payload).to.equal(404);
        });
    });

    experiment(`the single-statement Db (${database.name})`, () => {

        let created: { url: string; drop: () => Promise<void> };
        let knex: Knex;

        before(async () => {

            created = await database.create();
            knex = createKnex({ databaseUrl: created.url, statementTimeoutMs: 300 });
            await knex.schema.createTable('item', (table) => {

                table.string('name').primary();
                table.integer('qty');
            });
        });

        after(async () => {

            await knex.destroy();
            await created.drop();
        });

        const reset = async () => {

            await knex('item').del();
            await knex('item').insert([{ name: 'a', qty: 1 }, { name: 'b', qty: 2 }]);
        };

        const items = async () => await knex('item').orderBy('name').select('name', 'qty');

        test('runs reads and the last statement, answering the work\'s result', async () => {

            await reset();
            const done = await singleStatement(knex, async (db) => {

                expect(db.autocommit).to.be.true();
                const [row] = await db.rows('select "qty" from "item" where "name" = ?', ['a']);
                const read = await db.query('item').where({ name: 'b' }).first();
                return await db.rows('update "item" set "qty" = ? where "name" = ? returning "qty"', [Number(row!.qty) + Number(read.qty), 'a'], { last: true });
            });
            expect(done).to.equal({ result: [{ qty: 3 }] });
            expect(await items()).to.equal([{ name: 'a', qty: 3 }, { name: 'b', qty: 2 }]);
        });

        test('hands to a transaction, having written nothing, a write that needs one', async () => {

            const works: ((db: Parameters<Parameters<typeof singleStatement>[1]>[0]) => Promise<unknown>)[] = [
                (db) => db.rows('insert into "item" ("name", "qty") values (?, ?)', ['c', 1]),
                async (db) => await db.query('item').insert({ name: 'c', qty: 1 }),
                async (db) => await db.query('item').where({ name: 'a' }).update({ qty: 9 }),
                async (db) => await db.knex('item').insert({ name: 'c', qty: 1 }),
                // The last statement changed no row: the row it named is not as read.
                (db) => db.rows('update "item" set "qty" = ? where "name" = ? returning "qty"', [5, 'nosuch'], { last: true }),
                // A read cut by the statement timeout, which a transaction lifts.
                (db) => db.rows('select pg_sleep(1) as "slept"')
            ];
            for (const work of works) {
                await reset();
                expect(await singleStatement(knex, work)).to.be.undefined();
                expect(await items()).to.equal([{ name: 'a', qty: 1 }, { name: 'b', qty: 2 }]);
            }

            await expect(singleStatement(knex, () => Promise.reject(new Error('Plain')))).to.reject('Plain');
            expect(new NeedsTransaction('a reason').message).to.equal('This write needs a transaction: a reason.');
        });

        test('refuses any statement after its last one, and every statement once it ended', async () => {

            await reset();
            let kept: Parameters<Parameters<typeof singleStatement>[1]>[0] | undefined;
            const last = (db: NonNullable<typeof kept>) => db.rows('update "item" set "qty" = ? where "name" = ? returning "qty"', [4, 'a'], { last: true });
            const seconds: ((db: NonNullable<typeof kept>) => Promise<unknown>)[] = [
                last,
                (db) => db.rows('delete from "item" where "name" = ?', ['b']),
                async (db) => await db.query('item').where({ name: 'b' }).del()
            ];
            for (const second of seconds) {
                await reset();
                await expect(singleStatement(knex, async (db) => {

                    kept = db;
                    await last(db);
                    await second(db);
                })).to.reject(/after its one statement, which has committed/);
                expect(await items()).to.equal([{ name: 'a', qty: 4 }, { name: 'b', qty: 2 }]);
            }

            await expect(kept!.rows('select 1')).to.reject(/The transaction has ended/);
            await expect(kept!.query('item').first()).to.reject(/The transaction has ended/);
        });

        test('a write whose row another transaction holds past the statement timeout runs again in a transaction, once', async () => {

            await reset();
            const holder = createKnex({ databaseUrl: created.url });
            try {
                const trx = await holder.transaction();
                await trx('item').where({ name: 'a' }).forUpdate().first();
                let runs = 0;
                const writing = transaction(knex, async (db) => {

                    ++runs;
                    // As the write engine reads its record: under a lock in a transaction (operations.ts).
                    const [row] = await db.rows(`select "qty" from "item" where "name" = ?${db.autocommit ? '' : ' for update'}`, ['a']);
                    return await db.rows('update "item" set "qty" = ? where "name" = ? and "qty" = ? returning "qty"', [Number(row!.qty) + 10, 'a', Number(row!.qty)], { last: true });
                }, { single: true });
                await new Promise((resolve) => setTimeout(resolve, 600));
                await trx('item').where({ name: 'a' }).update({ qty: 5 });
                await trx.commit();
                expect(await writing).to.equal([{ qty: 15 }]);
                expect(runs).to.equal(2);
                expect(await items()).to.equal([{ name: 'a', qty: 15 }, { name: 'b', qty: 2 }]);
            }
            finally {
                await holder.destroy();
            }
        });
    });
}
