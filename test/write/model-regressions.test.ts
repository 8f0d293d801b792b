import * as Code from '@hapi/code';
import * as Lab from '@hapi/lab';

import { onEachDatabase } from '../helpers/experiments';
import { admin, adminSettings } from './model/commands';
import { base64Id } from './model/reference';
import { modelFixtures } from './model/schema';


const lab = exports.lab = Lab.script();
const { test, beforeEach } = lab;
const { expect } = Code;

// Counterexamples the model-based test (model.test.ts) shrank to, as plain requests and the rows they must leave.

const orders = '/maximo/oslc/os/mxmorder';
const order = (siteid: string, ordnum: string) => `${orders}/${base64Id([siteid, ordnum])}`;

onEachDatabase(lab, 'model test counterexamples', { settings: { ...adminSettings, structures: modelFixtures } }, (t) => {

    beforeEach(async () => {

        for (const table of ['morder', 'mtask', 'mstep', 'mlabor', 'mstatus', 'mpermit', 'mlog', 'mlogline', 'osprey_autokey']) {
            await t.server.app.osprey.knex(table).delete();
        }
    });

    const send = async (method: string, url: string, payload?: unknown, headers: Record<string, string> = {}) => {

        const res = await t.inject({ method, url, headers: { ...admin, ...headers }, payload: payload as object });
        return res.statusCode;
    };

    const request = (method: string, url: string, payload?: unknown, headers: Record<string, string> = {}) => t.inject({ method, url, headers: { ...admin, ...headers }, payload: payload as object });

    const tasks = async () => (await t.server.app.osprey.knex('mtask').select('siteid', 'ordnum', 'taskid').orderBy(['siteid', 'ordnum', 'taskid'])).map((row: any) => `${row.siteid}/${row.ordnum}/${row.taskid}`);
    const steps = async () => (await t.server.app.osprey.knex('mstep').select('siteid', 'ordnum', 'taskid', 'stepnum').orderBy(['siteid', 'ordnum', 'taskid', 'stepnum'])).map((row: any) => `${row.siteid}/${row.ordnum}/${row.taskid}/${row.stepnum}`);

    test('a PATCH that replaces the tasks of one order leaves the task of the same number of another order', async () => {

        expect(await send('POST', orders, { siteid: 'S2', ordnum: 'B', labor: [] })).to.equal(201);
        expect(await send('PATCH', order('S2', 'B'), { task: [{ taskid: 10 }] })).to.equal(204);
        expect(await send('POST', orders, { siteid: 'S1', ordnum: 'A', task: [{ taskid: 10 }] })).to.equal(201);
        expect(await send('PATCH', order('S2', 'B'), { task: [], labor: [] })).to.equal(204);
        expect(await tasks()).to.equal(['S1/A/10']);
    });

    test('an all-or-nothing bulk item the database refuses (a generated task number taken by the next task) is that item\'s 400, not a 500', async () => {

        const res = await request('POST', orders, [
            { siteid: 'S1', ordnum: 'A', status: 'OPEN', task: [{ step: [] }, { taskid: 10 }] },
            { _action: 'AddChange', siteid: 'S1', ordnum: 'A', memo: 'why', task: [], _bulkid: 'b1' }
        ], { 'x-method-override': 'BULK', allornothing: '1' });
        expect(res.statusCode).to.equal(200);
        expect(res.result.map((item: any) => [item._responsemeta.status, item._responsemeta._bulkid])).to.equal([['400', undefined], ['424', 'b1']]);
        expect(res.result[0]._responsedata.Error.statusCode).to.equal('400');
        expect(await tasks()).to.equal([]);
    });

    test('deleting an order leaves the tasks of the same numbers of other orders', async () => {

        expect(await send('POST', orders, { siteid: 's1', ordnum: 'a', task: [{ taskid: 30 }], labor: [] })).to.equal(201);
        expect(await send('POST', orders, { siteid: 'S2', ordnum: 'B', task: [{ taskid: 30, step: [] }], labor: [] }, { 'x-method-override': 'SYNC' })).to.equal(201);
        expect(await send('DELETE', order('S2', 'B'))).to.equal(204);
        expect(await tasks()).to.equal(['S1/A/30']);
    });

    test('a MERGE that deletes task 10 and step 1 of one order deletes them of that order only', async () => {

        for (const [siteid, ordnum] of [['S1', 'A'], ['S1', 'B'], ['S2', 'A']]) {
            expect(await send('POST', orders, { siteid, ordnum, task: [{ taskid: 10, step: [{ stepnum: 1 }, { stepnum: 2 }] }, { taskid: 20, step: [{ stepnum: 1 }] }] })).to.equal(201);
        }

        expect(await send('POST', order('S1', 'A'), { task: [{ taskid: 10, _action: 'Delete' }, { taskid: 20, step: [{ stepnum: 1, _action: 'Delete' }] }] }, { 'x-method-override': 'MERGE' })).to.equal(204);
        expect(await tasks()).to.equal(['S1/A/20', 'S1/B/10', 'S1/B/20', 'S2/A/10', 'S2/A/20']);
        expect(await steps()).to.equal(['S1/B/10/1', 'S1/B/10/2', 'S1/B/20/1', 'S2/A/10/1', 'S2/A/10/2', 'S2/A/20/1']);
    });

    test('a task created without taskid is numbered among the tasks of its own order', async () => {

        expect(await send('POST', orders, { siteid: 'S1', ordnum: 'A', task: [{ taskid: 10 }, { taskid: 20 }] })).to.equal(201);
        expect(await send('POST', orders, [{ _data: { siteid: 'S1', ordnum: 'B', task: [{}] }, _meta: { method: 'SYNC' } }], { 'x-method-override': 'BULK' })).to.equal(200);
        expect(await send('PATCH', order('S1', 'A'), { task: [{}] }, { patchtype: 'MERGE' })).to.equal(204);
        expect(await tasks()).to.equal(['S1/A/10', 'S1/A/20', 'S1/A/21', 'S1/B/10']);
    });

    test('a task of one of two orders created in one bulk (one rowstamp) is updated without a 409, and alone', async () => {

        const res = await t.inject({ method: 'POST', url: orders, headers: { ...admin, 'x-method-override': 'BULK', allornothing: '1' }, payload: [
            { siteid: 'S1', ordnum: 'A', task: [{ taskid: 10, description: 'first' }] },
            { siteid: 'S1', ordnum: 'B', task: [{ taskid: 10, description: 'second' }] }
        ] });
        expect(res.statusCode).to.equal(200);
        const knex = t.server.app.osprey.knex;
        // Rows written in the same millisecond share a rowstamp: make sure they do.
        await knex('mtask').update({ rowstamp: 1 });
        expect(await send('PATCH', order('S1', 'A'), { task: [{ taskid: 10, description: 'changed' }] }, { patchtype: 'MERGE' })).to.equal(204);
        const rows = await knex('mtask').select('ordnum', 'description').orderBy('ordnum');
        expect(rows).to.equal([{ ordnum: 'A', description: 'changed' }, { ordnum: 'B', description: 'second' }]);
    });

    test('a PATCH that deletes the record with a stale _rowstamp is a 409 and deletes nothing, as an update is', async () => {

        expect((await request('POST', orders, { siteid: 'S1', ordnum: 'A', task: [{ taskid: 10 }] })).statusCode).to.equal(201);
        expect((await request('PATCH', order('S1', 'A'), { description: 'x', _rowstamp: '1' })).statusCode).to.equal(409);
        // Was: 204, and the order and its task were gone.
        expect((await request('PATCH', order('S1', 'A'), { _action: 'Delete', _rowstamp: '1' })).statusCode).to.equal(409);
        expect((await t.server.app.osprey.knex('morder').select('ordnum')).length).to.equal(1);
    });

    test('a bulk update, merge or delete by keys names the record whatever the case of its upper-case keys, as SYNC does', async () => {

        expect((await request('POST', orders, { siteid: 'S1', ordnum: 'A' })).statusCode).to.equal(201);
        expect((await request('POST', orders, { siteid: 's1', ordnum: 'a', description: 'by sync' }, { 'x-method-override': 'SYNC' })).statusCode).to.equal(204);
        // Was: 404 for each item (the keys were looked up as sent, not upper-cased as the attributes are).
        const res = await request('POST', orders, [
            { _action: 'Update', siteid: 's1', ordnum: 'a', description: 'by bulk' },
            { _action: 'Merge', siteid: 's1', ordnum: 'A', priority: 7 },
            { _action: 'Delete', siteid: 'S1', ordnum: 'a' }
        ], { 'x-method-override': 'BULK' });
        expect(res.result.map((item: any) => item._responsemeta.status)).to.equal(['204', '204', '204']);
    });

    test('a child href names its row when the parent is named by its unique id or by col:value pairs', async () => {

        expect((await request('POST', orders, { siteid: 'S1', ordnum: 'A', task: [{ taskid: 10 }], labor: [{ laborcode: 'X' }] })).statusCode).to.equal(201);
        const knex = t.server.app.osprey.knex;
        const { morderid } = await knex('morder').first();
        const { mlaborid } = await knex('mlabor').first();
        // The same record, as GET /os/mxmorder/{id}/labor accepts it in any of its three id forms.
        expect((await request('GET', `${orders}/${morderid}/labor`)).statusCode).to.equal(200);
        // Was: 400 "The href … names no MLABOR of this record."
        const byUniqueId = await request('PATCH', order('S1', 'A'), { labor: [{ href: `http://127.0.0.1:8080${orders}/${morderid}/labor/${base64Id([mlaborid])}`, hours: 2 }] }, { patchtype: 'MERGE' });
        expect(byUniqueId.statusCode).to.equal(204);
        const byPairs = await request('PATCH', order('S1', 'A'), { task: [{ href: `http://127.0.0.1:8080${orders}/siteid:S1|ordnum:A/task/${base64Id([10])}`, description: 'by pairs' }] }, { patchtype: 'MERGE' });
        expect(byPairs.statusCode).to.equal(204);
        expect(Number((await knex('mlabor').first()).hours)).to.equal(2);
        expect(await knex('mtask').select('taskid', 'description')).to.equal([{ taskid: 10, description: 'by pairs' }]);
    });

    // Found in review: each step of a child href must name a row this body writes, not only the last two.
    test('an href naming a step of another order\'s task of the same number is refused and changes nothing', async () => {

        expect(await send('POST', orders, { siteid: 'S1', ordnum: 'A', task: [{ taskid: 10, step: [{ stepnum: 1 }] }] })).to.equal(201);
        expect(await send('POST', orders, { siteid: 'S1', ordnum: 'B', task: [{ taskid: 10, step: [{ stepnum: 1 }] }] })).to.equal(201);
        const earlier = await steps();
        const other = `http://127.0.0.1:8080${order('S1', 'B')}/task/${base64Id([10])}/step/${base64Id([1])}`;
        for (const href of [other, other.replace('/step/', '/STEP/'), other.replace('/task/', '//task/')]) {
            const res = await request('PATCH', order('S1', 'A'), { task: [{ taskid: 10, step: [{ href, _action: 'Delete' }] }] }, { patchtype: 'MERGE' });
            expect(res.statusCode, href).to.equal(400);
            expect(res.result.Error.message).to.contain('names no MSTEP of this record');
        }

        expect(await steps()).to.equal(earlier);
        const mine = `http://127.0.0.1:8080${order('S1', 'A')}/TASK/${base64Id([10])}/Step/${base64Id([1])}`;
        expect(await send('PATCH', order('S1', 'A'), { task: [{ taskid: 10, step: [{ href: mine, _action: 'Delete' }] }] }, { patchtype: 'MERGE' })).to.equal(204);
        expect(await steps()).to.equal(['S1/B/10/1']);
    });

    test('a stale child _rowstamp is a 409; a row named twice is a 400; the status history is not written by a body', async () => {

        expect(await send('POST', orders, { siteid: 'S1', ordnum: 'A', task: [{ taskid: 10 }, { taskid: 20 }] })).to.equal(201);
        const knex = t.server.app.osprey.knex;
        const dump = async () => [await knex('mtask').orderBy('mtaskid'), await knex('mstatus').orderBy('mstatusid'), await knex('morder')];
        const earlier = await dump();
        expect(earlier[1]).to.have.length(1);
        expect(await send('PATCH', order('S1', 'A'), { task: [{ taskid: 10, _rowstamp: '1', description: 'stale' }] }, { patchtype: 'MERGE' })).to.equal(409);
        expect(await send('PATCH', order('S1', 'A'), { task: [{ taskid: 20, _rowstamp: '1', _action: 'Delete' }] }, { patchtype: 'MERGE' })).to.equal(409);
        expect(await send('PATCH', order('S1', 'A'), { task: [{ taskid: 10, description: 'a' }, { taskid: 10, description: 'b' }] }, { patchtype: 'MERGE' })).to.equal(400);
        expect(await send('PATCH', order('S1', 'A'), { history: [] })).to.equal(400);
        expect(await send('PATCH', order('S1', 'A'), { history: [{}] }, { patchtype: 'MERGE' })).to.equal(400);
        expect(await send('POST', orders, { siteid: 'S1', ordnum: 'C', history: [{ memo: 'forged' }] })).to.equal(400);
        expect(await dump()).to.equal(earlier);
        const current = String(earlier[0]![0].rowstamp);
        expect(await send('PATCH', order('S1', 'A'), { task: [{ taskid: 10, _rowstamp: current, description: 'fresh' }] }, { patchtype: 'MERGE' })).to.equal(204);
    });
});
