import { setImmediate as nextTurn } from 'node:timers/promises';

import * as Code from '@hapi/code';
import * as Lab from '@hapi/lab';

import { clientOf } from '../../src/db/db';
import { onEachDatabase } from '../helpers/experiments';
import { wilson, type TestServer } from '../helpers/server';
import { changes, snapshot, type Rows, type Snapshot } from '../helpers/tables';
import { admin, adminSettings } from './model/commands';
import { modelFixtures } from './model/schema';


const lab = exports.lab = Lab.script();
const { test } = lab;
const { expect } = Code;

// Writes of thousands of child rows (issue 34): each body row is matched to its stored row by a lookup, not a scan
// of the parent's rows (a merge of 32,000 tasks took 33 s on SQLite), the rows are written in batches, and the
// event loop gets turns meanwhile. Nothing here is timed: the tests check that such writes change exactly the
// rows they name, with the outcomes a body of a few rows has, and the order in which health checks are answered.

const wos = '/maximo/oslc/os/mxapiwodetail';
const n = 3000;

const merge = { ...wilson, 'x-method-override': 'PATCH', patchtype: 'MERGE' };
const update = { ...wilson, 'x-method-override': 'PATCH' };

const range = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i) => from + i);
const tasks = (ids: readonly number[], text: string) => ids.map((taskid) => ({ taskid, description: `${text} ${taskid}` }));

// The rows of a table in which `before` and `after` differ, by unique id, as what a write added, removed and changed.
const diff = (before: Snapshot, after: Snapshot, table: string, unique: string) => changes(before[table]!, after[table]!, unique);

// Every table but `tables` is as it was.
const othersUnchanged = (before: Snapshot, after: Snapshot, tables: readonly string[]) => {

    for (const table of Object.keys(before).filter((name) => !tables.includes(name))) {
        expect(after[table], table).to.equal(before[table]);
    }
};

const taskRows = (data: Snapshot, wonum: string) => data.woactivity!.filter((row) => row.parent === wonum && row.siteid === 'BEDFORD');

const byTask = (rows: Rows) => new Map(rows.map((row) => [Number(row.taskid), row]));

onEachDatabase(lab, `writes of ${n} child rows`, { timeout: 240_000 }, (t, database) => {

    const create = async (ids: readonly number[]) => {

        const res = await t.inject({ method: 'POST', url: wos, headers: { ...wilson, properties: 'wonum' }, payload: { siteid: 'BEDFORD', description: 'many', woactivity: tasks(ids, 'first') } });
        expect(res.statusCode, res.payload).to.equal(201);
        return { path: new URL(res.headers.location as string).pathname, wonum: res.result.wonum as string };
    };

    test(`a create, a merge, a replacing update and deletes of ${n} tasks change exactly the rows they name`, async () => {

        const other = await create(range(1, n));
        const wo = await create(range(1, n));
        const created = await snapshot(t);
        expect(taskRows(created, wo.wonum).map((row) => [Number(row.taskid), row.description, row.status])).to.equal(range(1, n).map((id) => [id, `first ${id}`, 'WAPPR']));

        // A merge: the first half kept as it was, the second half updated in place (same ids, new rowstamps),
        // half as many new ones added.
        const half = n / 2;
        const merged = await t.inject({ method: 'POST', url: wo.path, headers: merge, payload: { woactivity: tasks(range(half + 1, n + half), 'merged') } });
        expect(merged.statusCode, merged.payload).to.equal(204);
        const afterMerge = await snapshot(t);
        const was = byTask(taskRows(created, wo.wonum));
        const now = byTask(taskRows(afterMerge, wo.wonum));
        expect([...now.keys()]).to.equal(range(1, n + half));
        for (const id of range(1, half)) {
            expect(now.get(id)).to.equal(was.get(id));
        }

        for (const id of range(half + 1, n)) {
            expect(now.get(id)!.woactivityid).to.equal(was.get(id)!.woactivityid);
            expect(now.get(id)!.description).to.equal(`merged ${id}`);
            expect(Number(now.get(id)!.rowstamp)).to.be.above(Number(was.get(id)!.rowstamp));
        }

        const merge1 = diff(created, afterMerge, 'woactivity', 'woactivityid');
        expect(merge1.removed).to.equal([]);
        expect(merge1.added.map((row) => [row.parent, Number(row.taskid), row.description])).to.equal(range(n + 1, n + half).map((id) => [wo.wonum, id, `merged ${id}`]));
        expect(merge1.changed.map((row) => Number(row.taskid))).to.equal(range(half + 1, n));
        expect(diff(created, afterMerge, 'workorder', 'workorderid').changed.map((row) => row.wonum)).to.equal([wo.wonum]);
        othersUnchanged(created, afterMerge, ['woactivity', 'workorder']);

        // An update replaces the collection: the rows it leaves out are deleted, the ones it names kept in place.
        const replaced = await t.inject({ method: 'POST', url: wo.path, headers: update, payload: { woactivity: tasks(range(2001, 2000 + n), 'replaced') } });
        expect(replaced.statusCode, replaced.payload).to.equal(204);
        const afterReplace = await snapshot(t);
        const kept = byTask(taskRows(afterReplace, wo.wonum));
        expect([...kept.keys()]).to.equal(range(2001, 2000 + n));
        expect([...kept.values()].every((row) => row.description === `replaced ${String(row.taskid)}`)).to.be.true();
        for (const id of range(2001, n + half)) {
            expect(kept.get(id)!.woactivityid).to.equal(now.get(id)!.woactivityid);
        }

        const replace1 = diff(afterMerge, afterReplace, 'woactivity', 'woactivityid');
        expect(replace1.removed.map((row) => [row.parent, Number(row.taskid)])).to.equal(range(1, 2000).map((id) => [wo.wonum, id]));
        expect(replace1.added.map((row) => Number(row.taskid))).to.equal(range(n + half + 1, 2000 + n));
        expect(replace1.changed.map((row) => Number(row.taskid))).to.equal(range(2001, n + half));
        othersUnchanged(afterMerge, afterReplace, ['woactivity', 'workorder']);

        // Deletes named by the body: those rows go, every other stays as it was.
        const deleted = await t.inject({ method: 'POST', url: wo.path, headers: merge, payload: { woactivity: range(2001, 2000 + n).filter((id) => id % 2 === 0).map((taskid) => ({ taskid, _action: 'Delete' })) } });
        expect(deleted.statusCode, deleted.payload).to.equal(204);
        const afterDelete = await snapshot(t);
        const delete1 = diff(afterReplace, afterDelete, 'woactivity', 'woactivityid');
        expect(delete1.removed.map((row) => Number(row.taskid))).to.equal(range(2001, 2000 + n).filter((id) => id % 2 === 0));
        expect(delete1.added.length + delete1.changed.length).to.equal(0);
        othersUnchanged(afterReplace, afterDelete, ['woactivity', 'workorder']);

        // The other work order's tasks, the same task numbers, were never touched.
        expect(taskRows(afterDelete, other.wonum)).to.equal(taskRows(created, other.wonum));
    });

    test(`a body of ${n} tasks that names one twice is refused whole, as a body of two is`, async () => {

        const wo = await create(range(1, n));
        const before = await snapshot(t);

        // A stored row named twice.
        const twice = await t.inject({ method: 'POST', url: wo.path, headers: merge, payload: { woactivity: [...tasks(range(1, n), 'again'), { taskid: 7, description: 'seven again' }] } });
        expect(twice.statusCode).to.equal(400);
        expect(twice.result.Error.message).to.contain('names the same WOACTIVITY row twice');

        // A new row named twice: the database's key refuses the second.
        const newTwice = await t.inject({ method: 'POST', url: wo.path, headers: merge, payload: { woactivity: [...tasks(range(n + 1, 2 * n), 'new'), { taskid: n + 5, description: 'again' }] } });
        expect(newTwice.statusCode).to.equal(400);
        expect(newTwice.result.Error.message).to.contain('already exists');

        // A create naming a new row twice, in a replacing update.
        const replaceTwice = await t.inject({ method: 'POST', url: wo.path, headers: update, payload: { woactivity: [...tasks(range(n + 1, 2 * n), 'new'), { taskid: 2 * n, description: 'again' }] } });
        expect(replaceTwice.statusCode).to.equal(400);
        expect(replaceTwice.result.Error.message).to.contain('already exists');

        // A stale _rowstamp on the last of many rows refuses the write whole.
        const stored = taskRows(before, wo.wonum);
        const stale = await t.inject({ method: 'POST', url: wo.path, headers: merge, payload: { woactivity: stored.map((row, i) => ({ taskid: Number(row.taskid), description: 'stale', _rowstamp: i === n - 1 ? '1' : row.rowstamp })) } });
        expect(stale.statusCode).to.equal(409);

        expect(await snapshot(t)).to.equal(before);
    });

    test(`the statements that update and delete ${n} tasks find each by its unique id, with planner statistics that say a work order has a few`, async () => {

        // Statistics as a server's start leaves them (src/app.ts), taken before the work order had its tasks.
        const { knex } = t.server.app.osprey;
        await knex.raw('analyze');
        const wo = await create(range(1, n));
        const client = clientOf(knex);
        const captured: { sql: string; bindings: readonly unknown[] }[] = [];
        const query = client._query;
        client._query = (connection, obj) => (captured.push({ sql: obj.sql, bindings: obj.bindings }), query.call(client, connection, obj));
        try {
            const res = await t.inject({ method: 'POST', url: wo.path, headers: update, payload: { woactivity: tasks(range(n / 2 + 1, n), 'kept') } });
            expect(res.statusCode, res.payload).to.equal(204);
        }
        finally {
            client._query = query;
        }

        const batches = captured.filter((each) => /^(update "woactivity" .* from \(values|delete from "woactivity")/.test(each.sql));
        expect(batches.length).to.be.within(2, 40);
        const [{ count }] = await knex('woactivity').where({ parent: wo.wonum, siteid: 'BEDFORD' }).count({ count: '*' }) as [{ count: number | string }];
        expect(Number(count)).to.equal(n / 2);
        if (database.name === 'sqlite') {
            // Each row by the table's integer primary key: a statement that also named the parent's columns was planned
            // as a read of all of the parent's rows with a scan of the statement's list for each (a second a statement).
            const connection = await client.acquireConnection();
            try {
                for (const statement of batches) {
                    const { response } = await client._query(connection, { sql: `explain query plan ${statement.sql}`, bindings: statement.bindings });
                    const plan = (response as { detail: string }[]).map((row) => row.detail).join('\n');
                    expect(plan, statement.sql.slice(0, 200)).to.match(/SEARCH woactivity USING INTEGER PRIMARY KEY \(rowid=\?\)/);
                    expect(plan).to.not.match(/SEARCH woactivity USING (COVERING )?INDEX/);
                }
            }
            finally {
                await client.releaseConnection(connection);
            }
        }
    });

    // Enough tasks that the write lasts many slices of the event loop (src/slices.ts) on a fast machine: 3,000 were
    // written in a slice or two once they were batched.
    const long = 20_000;

    test(`health checks are answered while a merge of ${long} tasks runs`, async () => {

        const wo = await create([]);
        interface Connection {
            readonly inTransaction: boolean;
        }

        // Whether SQLite's writer connection is inside a transaction.
        const writing = () => {

            const connections = (t.server.app.osprey.knex.client as { connections?: Set<Connection> }).connections;
            return database.name === 'sqlite' && [...connections!].some((connection) => connection.inTransaction);
        };

        let done = false;
        const write = t.inject({ method: 'POST', url: wo.path, headers: merge, payload: { woactivity: tasks(range(1, long), 'merged') } }).finally(() => {

            done = true;
        });
        const answers: { status: number; writing: boolean }[] = [];
        while (!done) {
            const health = await t.inject('/maximo/health');
            answers.push({ status: health.statusCode, writing: writing() });
            await nextTurn();
        }

        expect((await write).statusCode).to.equal(204);
        expect(answers.length).to.be.above(2);
        expect(answers.every((answer) => answer.status === 200)).to.be.true();
        if (database.name === 'sqlite') {
            // The health checks were answered while the write's transaction was open, not only before and after it.
            expect(answers.filter((answer) => answer.writing).length).to.be.above(2);
        }
    });
});

// Grandchildren, generated child keys and children keyed by a generated id, on the model test's structures.
onEachDatabase(lab, `writes of ${n} child rows with grandchildren`, { settings: { ...adminSettings, structures: modelFixtures }, timeout: 240_000 }, (t) => {

    const orders = '/maximo/oslc/os/mxmorder';
    const tables = (server: TestServer) => server.server.app.osprey.registry.objects().map((object) => object.table);

    test(`orders with ${n / 3} tasks of two steps each: a create numbers the tasks in order, a merge and a replacing update write exactly the rows they name`, async () => {

        const body = (ordnum: string) => ({
            siteid: 'S1', ordnum,
            task: range(1, n / 3).map((i) => ({ description: `t${i}`, step: [{ stepnum: 1, note: `a${i}` }, { stepnum: 2, note: `b${i}` }] })),
            labor: range(1, n / 3).map((i) => ({ laborcode: `L${i % 7}`, hours: i % 10 }))
        });
        for (const ordnum of ['O1', 'O2']) {
            const res = await t.inject({ method: 'POST', url: orders, headers: admin, payload: body(ordnum) });
            expect(res.statusCode, res.payload).to.equal(201);
        }

        const created = await snapshot(t);
        expect(tables(t)).to.include(['morder', 'mtask', 'mstep', 'mlabor']);
        const of = (data: Snapshot, table: string, ordnum: string) => data[table]!.filter((row) => row.ordnum === ordnum);
        // Numbered from 10 in body order.
        expect(of(created, 'mtask', 'O1').map((row) => [Number(row.taskid), row.description])).to.equal(range(1, n / 3).map((i) => [9 + i, `t${i}`]));
        expect(of(created, 'mstep', 'O1').map((row) => [Number(row.taskid), Number(row.stepnum), row.note])).to.equal(range(1, n / 3).flatMap((i) => [[9 + i, 1, `a${i}`], [9 + i, 2, `b${i}`]]));
        expect(of(created, 'mlabor', 'O1').length).to.equal(n / 3);

        // A merge: every task's second step changed, a third step added to each, new tasks numbered after the last.
        const path = `${orders}/${String(created.morder!.find((row) => row.ordnum === 'O1')!.morderid)}`;
        const merged = await t.inject({
            method: 'POST', url: path, headers: { ...admin, 'x-method-override': 'PATCH', patchtype: 'MERGE' },
            payload: { task: [...range(1, n / 3).map((i) => ({ taskid: 9 + i, step: [{ stepnum: 2, note: `B${i}` }, { stepnum: 3, note: `c${i}` }] })), { description: 'new' }, { description: 'newer' }] }
        });
        expect(merged.statusCode, merged.payload).to.equal(204);
        const afterMerge = await snapshot(t);
        const steps = diff(created, afterMerge, 'mstep', 'mstepid');
        expect(steps.removed).to.equal([]);
        expect(steps.changed.map((row) => [row.ordnum, Number(row.taskid), Number(row.stepnum), row.note])).to.equal(range(1, n / 3).map((i) => ['O1', 9 + i, 2, `B${i}`]));
        expect(steps.added.map((row) => [row.ordnum, Number(row.taskid), Number(row.stepnum), row.note])).to.equal(range(1, n / 3).map((i) => ['O1', 9 + i, 3, `c${i}`]));
        const tasksMerged = diff(created, afterMerge, 'mtask', 'mtaskid');
        expect(tasksMerged.added.map((row) => [row.ordnum, Number(row.taskid), row.description])).to.equal([['O1', 10 + n / 3, 'new'], ['O1', 11 + n / 3, 'newer']]);
        expect(tasksMerged.removed).to.equal([]);
        // Named tasks are written (a new rowstamp), even with no value of their own changed.
        expect(tasksMerged.changed.length).to.equal(n / 3);
        expect(afterMerge.mlabor).to.equal(created.mlabor);

        // A replacing update of the tasks: every other task goes with its steps; the named tasks' steps are replaced.
        const replaced = await t.inject({
            method: 'POST', url: path, headers: { ...admin, 'x-method-override': 'PATCH' },
            payload: { task: range(1, n / 3).filter((i) => i % 3 === 0).map((i) => ({ taskid: 9 + i, step: [{ stepnum: 1 }] })), labor: [] }
        });
        expect(replaced.statusCode, replaced.payload).to.equal(204);
        const afterReplace = await snapshot(t);
        expect(of(afterReplace, 'mtask', 'O1').map((row) => Number(row.taskid))).to.equal(range(1, n / 3).filter((i) => i % 3 === 0).map((i) => 9 + i));
        expect(of(afterReplace, 'mstep', 'O1').map((row) => [Number(row.taskid), Number(row.stepnum), row.note])).to.equal(range(1, n / 3).filter((i) => i % 3 === 0).map((i) => [9 + i, 1, `a${i}`]));
        expect(of(afterReplace, 'mlabor', 'O1')).to.equal([]);

        // The other order is as it was created.
        for (const table of ['morder', 'mtask', 'mstep', 'mlabor', 'mstatus']) {
            expect(of(afterReplace, table, 'O2'), table).to.equal(of(created, table, 'O2'));
        }
    });
});
