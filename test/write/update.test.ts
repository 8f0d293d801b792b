import * as Code from '@hapi/code';
import * as Lab from '@hapi/lab';

import { onEachDatabase } from '../helpers/experiments';
import { maxadmin, wilson } from '../helpers/server';


const lab = exports.lab = Lab.script();
const { test } = lab;
const { expect } = Code;

const wos = '/maximo/oslc/os/mxapiwodetail';

onEachDatabase(lab, 'updating and merging records', (t) => {

    // A fresh work order with two tasks and one labor line; answers its path.
    const workOrder = async () => {

        const res = await t.inject({
            method: 'POST', url: wos, headers: { ...wilson, properties: 'wonum' },
            payload: { siteid: 'BEDFORD', description: 'Pump check', woactivity: [{ taskid: 10, description: 'Look' }, { taskid: 20, description: 'Listen' }], wplabor: [{ laborcode: 'WILSON', regularhrs: 1 }] }
        });
        expect(res.statusCode).to.equal(201);
        return new URL(res.headers.location as string).pathname;
    };

    const read = async (path: string, select = '*,woactivity{*},wplabor{*}') => (await t.inject({ url: `${path}?oslc.select=${encodeURIComponent(select)}`, headers: wilson })).result;

    test('PATCH (and POST with x-method-override: PATCH) updates and answers 204, or 200 with properties', async () => {

        const path = await workOrder();
        const earlier = await read(path);
        const patch = await t.inject({ method: 'PATCH', url: path, headers: wilson, payload: { description: 'Pump check, urgent', wopriority: 1 } });
        expect(patch.statusCode).to.equal(204);
        const after1 = await read(path);
        expect(after1).to.include({ description: 'Pump check, urgent', wopriority: 1 });
        expect(after1._rowstamp).to.not.equal(earlier._rowstamp);
        const post = await t.inject({ method: 'POST', url: path, headers: { ...wilson, 'x-method-override': 'PATCH', properties: 'wonum,wopriority' }, payload: { wopriority: 2 } });
        expect(post.statusCode).to.equal(200);
        expect(post.result).to.include({ wopriority: 2 });
        expect(post.result.description).to.not.exist();
        const put = await t.inject({ method: 'PUT', url: path, headers: wilson, payload: { wopriority: 3 } });
        expect(put.statusCode).to.equal(204);
        const bare = await t.inject({ method: 'POST', url: path, headers: wilson, payload: { wopriority: 4 } });
        expect(bare.statusCode).to.equal(400);
        const unknownOverride = await t.inject({ method: 'POST', url: wos, headers: { ...wilson, 'x-method-override': 'FROB' }, payload: {} });
        expect(unknownOverride.statusCode).to.equal(400);
    });

    test('an update replaces the child collections it names; a merge keeps the others', async () => {

        const path = await workOrder();
        const merged = await t.inject({
            method: 'POST', url: path, headers: { ...wilson, 'x-method-override': 'PATCH', patchtype: 'MERGE' },
            payload: { woactivity: [{ taskid: 30, description: 'Fix' }, { taskid: 10, description: 'Look closer' }], wplabor: [{ laborcode: 'SMITH', regularhrs: 3 }] }
        });
        expect(merged.statusCode).to.equal(204);
        let record = await read(path);
        expect(record.woactivity.map((row: any) => [row.taskid, row.description])).to.equal([[10, 'Look closer'], [20, 'Listen'], [30, 'Fix']]);
        expect(record.wplabor.map((row: any) => row.laborcode)).to.equal(['WILSON', 'SMITH']);

        // By href, and _action Delete, inside a merge.
        const listen = record.woactivity[1].href;
        const byHref = await t.inject({ method: 'PATCH', url: path, headers: { ...wilson, patchtype: 'MERGE' }, payload: { woactivity: [{ href: listen, description: 'Listen harder' }, { taskid: 30, _action: 'Delete' }] } });
        expect(byHref.statusCode).to.equal(204);
        record = await read(path);
        expect(record.woactivity.map((row: any) => [row.taskid, row.description])).to.equal([[10, 'Look closer'], [20, 'Listen harder']]);

        // An update (no MERGE) drops the tasks the body leaves out and keeps wplabor, which it does not name.
        const update = await t.inject({ method: 'PATCH', url: path, headers: wilson, payload: { woactivity: [{ taskid: 20 }] } });
        expect(update.statusCode).to.equal(204);
        record = await read(path);
        expect(record.woactivity.map((row: any) => row.taskid)).to.equal([20]);
        expect(record.wplabor).to.have.length(2);

        // x-method-override: MERGE is a merge too.
        const mergeOverride = await t.inject({ method: 'POST', url: path, headers: { ...wilson, 'x-method-override': 'MERGE' }, payload: { woactivity: [{ taskid: 40 }] } });
        expect(mergeOverride.statusCode).to.equal(204);
        expect((await read(path)).woactivity.map((row: any) => row.taskid)).to.equal([20, 40]);

        const missing = await t.inject({ method: 'PATCH', url: path, headers: { ...wilson, patchtype: 'MERGE' }, payload: { woactivity: [{ taskid: 99, _action: 'Delete' }] } });
        expect(missing.statusCode).to.equal(400);
    });

    test('keys cannot change; read-only values sent back unchanged are accepted', async () => {

        const path = await workOrder();
        const record = await read(path, '*');
        const echo = await t.inject({ method: 'PATCH', url: path, headers: wilson, payload: { ...record, description: 'Echoed' } });
        expect(echo.statusCode).to.equal(204);
        const rekey = await t.inject({ method: 'PATCH', url: path, headers: wilson, payload: { wonum: 'OTHER' } });
        expect(rekey.statusCode).to.equal(400);
        expect(rekey.result.Error).to.include({ errorattrname: 'wonum' });
        expect(rekey.result.Error.message).to.contain('cannot be changed');
        const stamp = await t.inject({ method: 'PATCH', url: path, headers: wilson, payload: { changedate: '2020-01-01T00:00:00Z' } });
        expect(stamp.statusCode).to.equal(400);
        const notFound = await t.inject({ method: 'PATCH', url: `${wos}/_QkVERk9SRC9OT1RIRVJF`, headers: wilson, payload: { wopriority: 1 } });
        expect(notFound.statusCode).to.equal(404);
    });

    test('status changes follow the declared transitions and add history rows', async () => {

        const path = await workOrder();
        const approve = await t.inject({ method: 'PATCH', url: path, headers: wilson, payload: { status: 'APPR', memo: 'approved by test' } });
        expect(approve.statusCode).to.equal(204);
        const record = await read(path, 'status,statusdate,wostatus{status,memo,changeby}');
        expect(record.status).to.equal('APPR');
        expect(record.wostatus.map((row: any) => [row.status, row.memo ?? null, row.changeby])).to.equal([['WAPPR', null, 'WILSON'], ['APPR', 'approved by test', 'WILSON']]);
        const close = await t.inject({ method: 'PATCH', url: path, headers: wilson, payload: { status: 'CLOSE' } });
        expect(close.statusCode).to.equal(400);
        expect(close.result.Error.errorattrname).to.equal('status');
        expect(close.result.Error.message).to.contain('from APPR to CLOSE');
        expect((await read(path, 'status')).status).to.equal('APPR');
    });

    test('a stale _rowstamp is a 409 and a stale If-Match a 412; nothing changes', async () => {

        const path = await workOrder();
        const first = await t.inject({ url: path, headers: wilson });
        const etag = first.headers.etag as string;
        const ok = await t.inject({ method: 'PATCH', url: path, headers: { ...wilson, 'if-match': etag }, payload: { wopriority: 5 } });
        expect(ok.statusCode).to.equal(204);
        const stale = await t.inject({ method: 'PATCH', url: path, headers: wilson, payload: { _rowstamp: first.result._rowstamp, wopriority: 6 } });
        expect(stale.statusCode).to.equal(409);
        expect(stale.result.Error.reasonCode).to.equal('BMXAA8229W');
        const precondition = await t.inject({ method: 'PATCH', url: path, headers: { ...wilson, 'if-match': etag }, payload: { wopriority: 7 } });
        expect(precondition.statusCode).to.equal(412);
        expect(precondition.result.Error.reasonCode).to.equal('BMXAA8229W');
        const gone = await t.inject({ method: 'DELETE', url: path, headers: { ...wilson, 'if-match': etag } });
        expect(gone.statusCode).to.equal(412);
        expect((await read(path, 'wopriority')).wopriority).to.equal(5);
    });

    test('two concurrent updates with the same _rowstamp: one succeeds, one is a 409', async () => {

        const path = await workOrder();
        const { _rowstamp } = await read(path, 'wonum');
        const results = await Promise.all([1, 2].map((priority) => t.inject({ method: 'PATCH', url: path, headers: wilson, payload: { _rowstamp, wopriority: priority, woactivity: [{ taskid: 10 + priority }] } })));
        expect(results.map((res) => res.statusCode).sort()).to.equal([204, 409]);
        const record = await read(path);
        expect(record.woactivity).to.have.length(1);
        expect(record.woactivity[0].taskid).to.equal(10 + record.wopriority);
    });

    test('update needs the update right', async () => {

        const asset = await t.inject({ method: 'PATCH', url: '/maximo/oslc/os/mxapiasset/assetnum:11000|siteid:BEDFORD', headers: wilson, payload: { description: 'x' } });
        expect(asset.statusCode).to.equal(403);
        const admin = await t.inject({ method: 'PATCH', url: '/maximo/oslc/os/mxapiasset/assetnum:11000|siteid:BEDFORD', headers: maxadmin, payload: { description: 'Renamed' } });
        expect(admin.statusCode).to.equal(204);
    });

    test('an asset\'s status change keeps its statusmemo (as the npm client sends it) in assetstatus; the memo is never a column', async () => {

        const operating = await t.inject({ url: '/maximo/oslc/os/mxapiasset?oslc.where=status=%22OPERATING%22&oslc.pageSize=1', headers: wilson });
        const asset = new URL(operating.result.member[0].href).pathname;
        const [current, next] = ['OPERATING', 'BROKEN'];
        const res = await t.inject({ method: 'PATCH', url: asset, headers: { ...maxadmin, properties: 'status,assetstatus{status,memo,changeby}' }, payload: { status: next, statusmemo: 'seen by the test' } });
        expect(res.statusCode).to.equal(200);
        expect(res.result.status).to.equal(next);
        expect(res.result.assetstatus.map((row: any) => [row.status, row.memo, row.changeby])).to.equal([[next, 'seen by the test', 'MAXADMIN']]);
        expect(await t.server.app.osprey.knex.schema.hasColumn('asset', 'statusmemo')).to.be.false();
        const plain = await t.inject({ method: 'PATCH', url: asset, headers: { ...maxadmin, properties: 'assetstatus{memo}' }, payload: { status: current } });
        expect(plain.result.assetstatus.map((row: any) => row.memo)).to.equal(['seen by the test', undefined]);
    });
});
