import * as Code from '@hapi/code';
import * as Lab from '@hapi/lab';

import { onEachDatabase } from '../helpers/experiments';
import { wilson, maxadmin, type TestServer } from '../helpers/server';
import { changes, snapshot, uniqueColumnOf, type Rows, type Snapshot } from '../helpers/tables';
import { memberId } from '../../src/read/serialize/serialize';


const lab = exports.lab = Lab.script();
const { test } = lab;
const { expect } = Code;

// Child rows are named by their parent and their key: a write to one work order's task 10 touches that row
// only, never the task 10 of the other 600 demo work orders. Each test compares every table of the demo
// before and after the write.

const wos = '/maximo/oslc/os/mxapiwodetail';
const assets = '/maximo/oslc/os/mxapiasset';
const wo1004 = `${wos}/_QkVERk9SRC8xMDA0`;             // BEDFORD/1004, the example

const merge = { ...wilson, 'x-method-override': 'PATCH', patchtype: 'MERGE' };

type Expected = Record<string, { added?: number; removed?: Rows; changed?: Rows }>;

const same = (rows: Rows, expected: Rows, unique: string) => expect(rows.map((row) => row[unique])).to.equal(expected.map((row) => row[unique]));

// Every table changed exactly as expected (rows named by unique id); all others not at all.
const expectChanges = (t: TestServer, earlier: Snapshot, later: Snapshot, expected: Expected) => {

    for (const table of Object.keys(earlier)) {
        const unique = uniqueColumnOf(t, table);
        const { added, removed, changed } = changes(earlier[table]!, later[table]!, unique);
        const want = expected[table] ?? {};
        expect(added.length, `${table} added`).to.equal(want.added ?? 0);
        same(removed, want.removed ?? [], unique);
        same(changed, want.changed ?? [], unique);
    }
};

const rowsOf = (rows: Rows, where: Record<string, string>) => rows.filter((row) => Object.entries(where).every(([key, value]) => row[key] === value));

// A work order (as its path and key) whose tasks satisfy `test`, other than the ones already used.
const used = new Set<string>();
const workOrderWith = (t: TestServer, data: Snapshot, accept: (tasks: Rows) => boolean) => {

    const root = t.server.app.osprey.registry.get('MXAPIWODETAIL')!.root;
    const wo = data.workorder!.find((row) => !used.has(`${String(row.siteid)}/${String(row.wonum)}`) && accept(rowsOf(data.woactivity!, { parent: String(row.wonum), siteid: String(row.siteid) })))!;
    used.add(`${String(wo.siteid)}/${String(wo.wonum)}`);
    return { url: `${wos}/${memberId(root, wo)}`, key: { wonum: String(wo.wonum), siteid: String(wo.siteid) }, parent: { parent: String(wo.wonum), siteid: String(wo.siteid) } };
};

const hasTask = (taskid: string) => {

    return (tasks: Rows) => tasks.some((row) => row.taskid === taskid);
};

onEachDatabase(lab, `a child write names one parent's row`, (t) => {

    test('a MERGE that deletes task 10 of one work order deletes that row only', async () => {

        const earlier = await snapshot(t);
        const target = rowsOf(earlier.woactivity!, { parent: '1004', siteid: 'BEDFORD', taskid: '10' });
        expect(target).to.have.length(1);
        expect(rowsOf(earlier.woactivity!, { taskid: '10' }).length).to.be.above(100);
        const res = await t.inject({ method: 'POST', url: wo1004, headers: merge, payload: { woactivity: [{ taskid: 10, _action: 'Delete' }] } });
        expect(res.statusCode).to.equal(204);
        const later = await snapshot(t);
        expectChanges(t, earlier, later, { woactivity: { removed: target }, workorder: { changed: rowsOf(earlier.workorder!, { wonum: '1004', siteid: 'BEDFORD' }) } });
    });

    test('an update that replaces a child collection deletes the left-out rows of that parent only', async () => {

        const earlier = await snapshot(t);
        const wo = workOrderWith(t, earlier, (tasks) => tasks.length > 1 && hasTask('30')(tasks));
        const mine = rowsOf(earlier.woactivity!, wo.parent);
        const kept = rowsOf(mine, { taskid: '30' });
        const res = await t.inject({ method: 'PATCH', url: wo.url, headers: wilson, payload: { woactivity: [{ taskid: 30 }] } });
        expect(res.statusCode).to.equal(204);
        const later = await snapshot(t);
        // Task 30 is kept when the work order had one (an unchanged row still gets a new rowstamp) or added.
        expectChanges(t, earlier, later, {
            woactivity: { removed: mine.filter((row) => row.taskid !== '30'), changed: kept, added: kept.length ? 0 : 1 },
            workorder: { changed: rowsOf(earlier.workorder!, wo.key) }
        });
        expect(rowsOf(later.woactivity!, wo.parent).map((row) => row.taskid)).to.equal(['30']);
    });

    test('a MERGE that edits an existing task changes that row only (no false 409)', async () => {

        const earlier = await snapshot(t);
        const wo = workOrderWith(t, earlier, hasTask('20'));
        const target = rowsOf(earlier.woactivity!, { ...wo.parent, taskid: '20' });
        expect(rowsOf(earlier.woactivity!, { taskid: '20' }).length).to.be.above(100);
        const res = await t.inject({ method: 'POST', url: wo.url, headers: merge, payload: { woactivity: [{ taskid: 20, description: 'x' }] } });
        expect(res.statusCode).to.equal(204);
        const later = await snapshot(t);
        expectChanges(t, earlier, later, { woactivity: { changed: target }, workorder: { changed: rowsOf(earlier.workorder!, wo.key) } });
        expect(rowsOf(later.woactivity!, { ...wo.parent, taskid: '20' })[0]!.description).to.equal('x');
    });

    test('an asset meter is edited and deleted on its own asset only', async () => {

        const earlier = await snapshot(t);
        const meter = earlier.assetmeter![0]!;
        const others = rowsOf(earlier.assetmeter!, { metername: String(meter.metername) });
        expect(others.length).to.be.above(1);
        const asset = rowsOf(earlier.asset!, { assetnum: String(meter.assetnum), siteid: String(meter.siteid) });
        const url = `${assets}/${memberId(t.server.app.osprey.registry.get('MXAPIASSET')!.root, asset[0]!)}`;
        const edit = await t.inject({ method: 'PATCH', url, headers: { ...maxadmin, patchtype: 'MERGE' }, payload: { assetmeter: [{ metername: meter.metername, lastreading: 42 }] } });
        expect(edit.statusCode).to.equal(204);
        const edited = await snapshot(t);
        expectChanges(t, earlier, edited, { assetmeter: { changed: [meter] }, asset: { changed: asset } });
        const drop = await t.inject({ method: 'PATCH', url, headers: { ...maxadmin, patchtype: 'MERGE' }, payload: { assetmeter: [{ metername: meter.metername, _action: 'Delete' }] } });
        expect(drop.statusCode).to.equal(204);
        expectChanges(t, edited, await snapshot(t), { assetmeter: { removed: [meter] }, asset: { changed: asset } });
    });

    test('a child href names the row of its own parent only', async () => {

        const earlier = await snapshot(t);
        const wo = workOrderWith(t, earlier, hasTask('10'));
        const target = rowsOf(earlier.woactivity!, { ...wo.parent, taskid: '10' });
        const read = await t.inject({ url: `${wo.url}?oslc.select=woactivity{taskid}`, headers: wilson });
        const href = read.result.woactivity.find((row: { taskid: number }) => row.taskid === 10).href;
        const res = await t.inject({ method: 'PATCH', url: wo.url, headers: { ...wilson, patchtype: 'MERGE' }, payload: { woactivity: [{ href, description: 'by href' }] } });
        expect(res.statusCode).to.equal(204);
        expectChanges(t, earlier, await snapshot(t), { woactivity: { changed: target }, workorder: { changed: rowsOf(earlier.workorder!, wo.key) } });
    });

    test('an href naming a task of another work order is refused and changes nothing', async () => {

        const earlier = await snapshot(t);
        const other = workOrderWith(t, earlier, hasTask('10'));
        const wo = workOrderWith(t, earlier, hasTask('10'));
        const read = await t.inject({ url: `${other.url}?oslc.select=woactivity{taskid}`, headers: wilson });
        const href = read.result.woactivity.find((row: { taskid: number }) => row.taskid === 10).href;
        const res = await t.inject({ method: 'PATCH', url: wo.url, headers: { ...wilson, patchtype: 'MERGE' }, payload: { woactivity: [{ href, description: 'not mine' }] } });
        expect(res.statusCode).to.equal(400);
        expect(res.result.Error.message).to.contain('names no WOACTIVITY of this record');
        expectChanges(t, earlier, await snapshot(t), {});
    });

    test('deleting a work order deletes its own child rows only', async () => {

        const earlier = await snapshot(t);
        const wo = workOrderWith(t, earlier, hasTask('10'));
        const where = wo.key;
        const res = await t.inject({ method: 'DELETE', url: wo.url, headers: wilson });
        expect(res.statusCode).to.equal(204);
        expectChanges(t, earlier, await snapshot(t), {
            workorder: { removed: rowsOf(earlier.workorder!, where) },
            woactivity: { removed: rowsOf(earlier.woactivity!, wo.parent) },
            wplabor: { removed: rowsOf(earlier.wplabor!, where) },
            wpmaterial: { removed: rowsOf(earlier.wpmaterial!, where) },
            wostatus: { removed: rowsOf(earlier.wostatus!, where) }
        });
    });

    test('a task added to a work order that lacks it is added there only, although others have the same task number', async () => {

        const earlier = await snapshot(t);
        const wo = workOrderWith(t, earlier, (tasks) => !hasTask('10')(tasks));
        const res = await t.inject({ method: 'PATCH', url: wo.url, headers: { ...wilson, patchtype: 'MERGE' }, payload: { woactivity: [{ taskid: 10, description: 'again' }] } });
        expect(res.statusCode).to.equal(204);
        const later = await snapshot(t);
        expectChanges(t, earlier, later, { woactivity: { added: 1 }, workorder: { changed: rowsOf(earlier.workorder!, wo.key) } });
        expect(rowsOf(later.woactivity!, { ...wo.parent, taskid: '10' })).to.have.length(1);
    });
});
