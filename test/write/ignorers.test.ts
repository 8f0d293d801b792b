import * as Code from '@hapi/code';
import * as Lab from '@hapi/lab';

import { onEachDatabase } from '../helpers/experiments';
import { wilson, type TestServer } from '../helpers/server';
import { changes, snapshot, uniqueColumnOf, type Snapshot } from '../helpers/tables';


const lab = exports.lab = Lab.script();
const { test } = lab;
const { expect } = Code;

// ignorers=1 (the npm client's ignoreRowstamp()): every object of the answer comes without _rowstamp, and a
// write does not hold its body to the _rowstamps it sends — the record's nor its rows'. Without it a stale
// _rowstamp is a 409, as ever.

const wos = '/maximo/oslc/os/mxapiwodetail';
const merge = { ...wilson, 'x-method-override': 'PATCH', patchtype: 'MERGE' };

// Every key of every object in a JSON value, at any depth.
const keysOf = (value: unknown): string[] => {

    if (Array.isArray(value)) {
        return value.flatMap(keysOf);
    }

    return value !== null && typeof value === 'object' ? Object.entries(value).flatMap(([key, inner]) => [key, ...keysOf(inner)]) : [];
};

// The tables that changed between two snapshots, each with the unique ids of its changed, added and removed rows.
const changed = (t: TestServer, earlier: Snapshot, later: Snapshot) => {

    const result: Record<string, unknown> = {};
    for (const table of Object.keys(earlier)) {
        const unique = uniqueColumnOf(t, table);
        const { added, removed, changed: updated } = changes(earlier[table]!, later[table]!, unique);
        if (added.length || removed.length || updated.length) {
            result[table] = { added: added.length, removed: removed.map((row) => row[unique]), changed: updated.map((row) => row[unique]) };
        }
    }

    return result;
};

onEachDatabase(lab, 'ignorers=1', (t) => {

    // A new work order with two tasks, as read with every rowstamp; then changed by someone else, so that
    // what was read is stale: the record's and both tasks' rowstamps.
    const staleWorkOrder = async () => {

        const create = await t.inject({ method: 'POST', url: wos, headers: wilson, payload: { siteid: 'BEDFORD', description: 'Stale', woactivity: [{ taskid: 10, description: 'One' }, { taskid: 20, description: 'Two' }] } });
        expect(create.statusCode).to.equal(201);
        const path = new URL(create.headers.location as string).pathname;
        const read = (await t.inject({ url: `${path}?oslc.select=wonum,workorderid,woactivity{taskid,woactivityid}`, headers: wilson })).result;
        const other = await t.inject({ method: 'POST', url: path, headers: merge, payload: { description: 'Changed meanwhile', woactivity: [{ taskid: 10, description: 'Changed' }, { taskid: 20, description: 'Changed' }] } });
        expect(other.statusCode).to.equal(204);
        const now = (await t.inject({ url: `${path}?oslc.select=woactivity{taskid}`, headers: wilson })).result;
        expect(now._rowstamp).to.not.equal(read._rowstamp);
        expect(now.woactivity[0]._rowstamp).to.not.equal(read.woactivity[0]._rowstamp);
        return { path, read };
    };

    test('reads answer without _rowstamp at any depth; the ETag of a record stays', async () => {

        const record = '/maximo/oslc/os/mxapiwodetail/_QkVERk9SRC8xMDAw';
        const select = 'oslc.select=wonum,woactivity{taskid},wplabor,asset.description,wpmaterial._dbcount';
        const plain = await t.inject({ url: `${record}?${select}`, headers: wilson });
        expect(keysOf(plain.result).filter((key) => key === '_rowstamp').length).to.be.above(2);
        const ignored = await t.inject({ url: `${record}?${select}&ignorers=1`, headers: wilson });
        expect(ignored.statusCode).to.equal(200);
        expect(keysOf(ignored.result)).to.not.include('_rowstamp');
        expect(ignored.headers.etag).to.equal(plain.headers.etag);
        expect(keysOf(ignored.result)).to.equal(keysOf(plain.result).filter((key) => key !== '_rowstamp'));

        for (const url of [`${wos}?oslc.select=wonum,woactivity{taskid}&oslc.pageSize=3&ignorers=true`, `${record}/woactivity?ignorers=1`, `${record}/woactivity/_MTA-?ignorers=1`, `${record}/getlist~assetnum?oslc.select=assetnum&oslc.pageSize=2&ignorers=1`]) {
            const res = await t.inject({ url, headers: wilson });
            expect(res.statusCode, url).to.equal(200);
            expect(keysOf(res.result), url).to.not.include('_rowstamp');
            expect(keysOf(res.result), url).to.include('href');
        }

        const off = await t.inject({ url: `${wos}?oslc.select=wonum&oslc.pageSize=1&ignorers=0`, headers: wilson });
        expect(off.result.member[0]._rowstamp).to.exist();
    });

    test('without it a stale _rowstamp of the record or of a row is a 409 that writes nothing', async () => {

        const { path, read } = await staleWorkOrder();
        const earlier = await snapshot(t);
        const record = await t.inject({ method: 'PATCH', url: path, headers: wilson, payload: { _rowstamp: read._rowstamp, description: 'Mine' } });
        expect(record.statusCode).to.equal(409);
        expect(record.result.Error.reasonCode).to.equal('BMXAA8229W');
        const row = await t.inject({ method: 'POST', url: path, headers: merge, payload: { woactivity: [{ taskid: 20, _rowstamp: read.woactivity[1]._rowstamp, description: 'Mine' }] } });
        expect(row.statusCode).to.equal(409);
        expect(changed(t, earlier, await snapshot(t))).to.equal({});
    });

    test('with it a write still checks the _rowstamps of its body (it shapes only the answer)', async () => {

        const { path, read } = await staleWorkOrder();
        const earlier = await snapshot(t);
        const stale = await t.inject({
            method: 'POST', url: `${path}?ignorers=1`, headers: { ...merge, properties: 'description,woactivity{taskid,description}' },
            payload: { _rowstamp: read._rowstamp, description: 'Mine', woactivity: [{ taskid: 20, _rowstamp: read.woactivity[1]._rowstamp, description: 'Mine too' }] }
        });
        expect(stale.statusCode).to.equal(409);
        const row = await t.inject({ method: 'POST', url: `${path}?ignorers=1`, headers: merge, payload: { woactivity: [{ taskid: 10, _rowstamp: read.woactivity[0]._rowstamp, _action: 'Delete' }] } });
        expect(row.statusCode).to.equal(409);
        const bulk = await t.inject({ method: 'POST', url: `${wos}?ignorers=1`, headers: { ...wilson, 'x-method-override': 'BULK' }, payload: [{ href: path, _action: 'Update', _rowstamp: read._rowstamp, description: 'Bulk' }] });
        expect(bulk.result[0]._responsemeta.status).to.equal('409');
        expect(changed(t, earlier, await snapshot(t))).to.equal({});

        // With the rowstamps read now, the write goes through and its answer carries none.
        const fresh = (await t.inject({ url: `${path}?oslc.select=woactivity{taskid}`, headers: wilson })).result;
        const res = await t.inject({
            method: 'POST', url: `${path}?ignorers=1`, headers: { ...merge, properties: 'description,woactivity{taskid,description}' },
            payload: { _rowstamp: fresh._rowstamp, description: 'Mine', woactivity: [{ taskid: 20, _rowstamp: fresh.woactivity[1]._rowstamp, description: 'Mine too' }] }
        });
        expect(res.statusCode).to.equal(200);
        expect(res.result.description).to.equal('Mine');
        expect(res.result.woactivity.map((task: any) => task.description)).to.equal(['Changed', 'Mine too']);
        expect(keysOf(res.result)).to.not.include('_rowstamp');
        expect(changed(t, earlier, await snapshot(t))).to.equal({ workorder: { added: 0, removed: [], changed: [String(read.workorderid)] }, woactivity: { added: 0, removed: [], changed: [String(read.woactivity[1].woactivityid)] } });
    });

    test('with If-Match the ETag is checked too; a bad value and a delete are 400s; nothing is written', async () => {

        const { path, read } = await staleWorkOrder();
        const earlier = await snapshot(t);
        const res = await t.inject({ method: 'PATCH', url: `${path}?ignorers=1`, headers: { ...wilson, 'if-match': `"${String(read._rowstamp)}"` }, payload: { description: 'Mine' } });
        expect(res.statusCode).to.equal(412);
        const bad = await t.inject({ method: 'PATCH', url: `${path}?ignorers=yes`, headers: wilson, payload: { description: 'Mine' } });
        expect(bad.statusCode).to.equal(400);
        expect(bad.result.Error.message).to.contain('ignorers');
        expect((await t.inject({ method: 'DELETE', url: `${path}?ignorers=1`, headers: wilson })).statusCode).to.equal(400);
        expect(changed(t, earlier, await snapshot(t))).to.equal({});
    });
});
