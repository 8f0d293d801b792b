import * as Code from '@hapi/code';
import * as Lab from '@hapi/lab';

import { onEachDatabase } from '../helpers/experiments';
import { maxadmin, wilson } from '../helpers/server';


const lab = exports.lab = Lab.script();
const { test } = lab;
const { expect } = Code;

const wos = '/maximo/oslc/os/mxapiwodetail';
const assets = '/maximo/oslc/os/mxapiasset';
const bulkHeaders = (extra: Record<string, string> = {}) => ({ ...wilson, 'x-method-override': 'BULK', ...extra });

onEachDatabase(lab, 'bulk writes', (t) => {

    const count = async (table: string, where: Record<string, unknown> = {}) => Number((await t.server.app.osprey.knex(table).where(where).count({ n: '*' }))[0]!.n);
    const read = async (href: string) => await t.inject({ url: new URL(href).pathname, headers: wilson });

    test('adds, updates, merges, syncs and deletes in one request, each item answered in order', async () => {

        const first = await t.inject({ method: 'POST', url: wos, headers: bulkHeaders(), payload: [
            { siteid: 'BEDFORD', description: 'Bulk one', _bulkid: 'a' },
            { siteid: 'NASHUA', description: 'Bulk two', _action: 'Add', woactivity: [{ taskid: 10, description: 'Drain' }] }
        ] });
        expect(first.statusCode).to.equal(200);
        expect(first.result).to.have.length(2);
        expect(first.result[0]._responsemeta).to.include({ status: '201', _bulkid: 'a' });
        expect(first.result[1]._responsemeta.status).to.equal('201');
        expect(first.result[0]._responsedata).to.not.exist();
        const [one, two] = first.result.map((item: { _responsemeta: { Location: string } }) => item._responsemeta.Location);
        expect((await read(one)).result).to.include({ siteid: 'BEDFORD', description: 'Bulk one', status: 'WAPPR' });
        expect((await read(two)).result.woactivity_collectionref).to.exist();
        const wonum = (await read(two)).result.wonum;

        const second = await t.inject({ method: 'POST', url: wos, headers: bulkHeaders({ properties: 'wonum,description,woactivity{taskid}' }), payload: [
            { href: one, _action: 'Update', description: 'Bulk one, updated' },
            { href: two, _action: 'Merge', woactivity: [{ taskid: 20, description: 'Refill' }] },
            { siteid: 'NASHUA', wonum, description: 'Synced', _action: 'AddChange' },
            { siteid: 'BEDFORD', wonum: 'BULK-NEW', description: 'Synced new', _action: 'AddChange' },
            { href: one, description: 'Synced by href', _action: 'AddChange', _meta: undefined }
        ] });
        expect(second.statusCode).to.equal(200);
        expect(second.result.map((item: { _responsemeta: { status: string } }) => item._responsemeta.status)).to.equal(['200', '200', '200', '201', '200']);
        expect(second.result[0]._responsedata).to.include({ description: 'Bulk one, updated' });
        expect(second.result[1]._responsedata.woactivity.map((task: { taskid: number }) => task.taskid)).to.equal([10, 20]);
        expect(second.result[2]._responsedata).to.include({ wonum, description: 'Synced' });
        expect(second.result[2]._responsedata.woactivity).to.have.length(2);
        expect(second.result[3]._responsemeta.Location).to.match(/\/os\/mxapiwodetail\/_/);
        expect(second.result[3]._responsedata).to.include({ wonum: 'BULK-NEW' });

        const third = await t.inject({ method: 'POST', url: wos, headers: bulkHeaders(), payload: [
            { href: `${new URL(one).pathname}`, _action: 'Delete' },
            { siteid: 'NASHUA', wonum, _action: 'Delete' },
            { href: second.result[3]._responsemeta.Location, _action: 'Update', description: 'No properties: 204' }
        ] });
        expect(third.result.map((item: { _responsemeta: { status: string } }) => item._responsemeta.status)).to.equal(['204', '204', '204']);
        const synced = await t.inject({ method: 'POST', url: wos, headers: bulkHeaders(), payload: [{ siteid: 'BEDFORD', wonum: 'BULK-NEW', description: 'Synced again', _action: 'AddChange' }] });
        expect(synced.result[0]._responsemeta.status).to.equal('204');
        expect((await read(one)).statusCode).to.equal(404);
        expect((await read(two)).statusCode).to.equal(404);
        expect(await count('woactivity', { parent: wonum, siteid: 'NASHUA' })).to.equal(0);
    });

    test('IBM\'s Java client form: _data with _meta method, uri and properties', async () => {

        const created = await t.inject({ method: 'POST', url: wos, headers: bulkHeaders(), payload: [
            { _data: { siteid: 'BEDFORD', description: 'Java one' }, _meta: { properties: 'wonum,description' } }
        ] });
        expect(created.result[0]._responsemeta.status).to.equal('201');
        expect(created.result[0]._responsedata).to.include({ description: 'Java one' });
        const uri = created.result[0]._responsemeta.Location;

        const changed = await t.inject({ method: 'POST', url: wos, headers: bulkHeaders(), payload: [
            { _data: { woactivity: [{ taskid: 5 }] }, _meta: { method: 'PATCH', uri, patchtype: 'MERGE' } },
            { _data: { description: 'Java updated' }, _meta: { method: 'PATCH', uri, properties: 'description,woactivity{taskid}' } },
            { _data: {}, _meta: { method: 'DELETE', uri } }
        ] });
        expect(changed.result.map((item: { _responsemeta: { status: string } }) => item._responsemeta.status)).to.equal(['204', '200', '204']);
        // An update (not a merge) replaces the children the body names, and this body names none.
        expect(changed.result[1]._responsedata).to.include({ description: 'Java updated' });
        expect(changed.result[1]._responsedata.woactivity).to.have.length(1);
        expect((await read(uri)).statusCode).to.equal(404);
    });

    test('a failing item is answered with its error while the others commit', async () => {

        const stored = await count('workorder');
        const res = await t.inject({ method: 'POST', url: wos, headers: bulkHeaders({ batcherror: '1' }), payload: [
            { siteid: 'BEDFORD', description: 'Good one' },
            { siteid: 'BEDFORD', worktype: 'NOPE', wopriority: 'high', _bulkid: 7 },
            'not an object',
            { siteid: 'BEDFORD', _action: 'Explode' },
            { href: '/maximo/oslc/os/mxapiasset/_QkVERk9SRC8xMTAwMQ--', _action: 'Update', description: 'wrong structure' },
            { description: 'no keys', _action: 'Update' },
            { href: `${wos}/_QkVERk9SRC85OTk5OTk-`, _action: 'Delete' },
            { siteid: 'NASHUA', description: 'Good two', href: null },
            [{ siteid: 'BEDFORD' }],
            { href: 5, _action: 'Delete' },
            { href: '/', _action: 'Delete' },
            { href: `${wos}/_QkVERk9SRC8xMDAw/woactivity/_MTA-`, _action: 'Delete' },
            { href: `${wos}/%E0%A4%A`, _action: 'Delete' },
            { _data: 'no object', _meta: {} },
            null,
            { _data: {}, _meta: 'no object' },
            { _meta: { method: 'DELETE', uri: `${wos}/_QkVERk9SRC85OTk5OTk-` } },
            // Found by a hostile probe: a path of no structure was read for its last segment, and updated BEDFORD/1000.
            { href: 'http://evil.example/whatever/_QkVERk9SRC8xMDAw', _action: 'Update', description: 'any path' },
            { href: '_QkVERk9SRC8xMDAw/x', _action: 'Update', description: 'any path' }
        ] });
        expect(res.statusCode).to.equal(200);
        const statuses = res.result.map((item: { _responsemeta: { status: string } }) => item._responsemeta.status);
        expect(statuses).to.equal(['201', '400', '400', '400', '400', '400', '404', '201', '400', '400', '400', '400', '400', '400', '400', '400', '404', '400', '400']);
        expect(res.result[17]._responsedata.Error.message).to.contain('not the href of a MXAPIWODETAIL record');
        expect((await t.inject({ url: `${wos}/_QkVERk9SRC8xMDAw?oslc.select=description`, headers: maxadmin })).result.description).to.not.equal('any path');
        const invalid = res.result[1];
        expect(invalid._responsemeta._bulkid).to.equal(7);
        expect(invalid._responsedata.attrerrors.map((error: { Error: { errorattrname: string } }) => error.Error.errorattrname).sort()).to.equal(['wopriority', 'worktype']);
        expect(res.result[3]._responsedata.Error.message).to.contain('Explode');
        expect(res.result[4]._responsedata.Error.message).to.contain('not the href of a MXAPIWODETAIL record');
        expect(res.result[5]._responsedata.Error.message).to.contain('by href, or by all of its keys');
        expect(res.result[6]._responsedata.Error.reasonCode).to.equal('BMXAA8727E');
        expect(await count('workorder')).to.equal(stored + 2);
    });

    test('allornothing: one transaction; a failing item writes nothing, and the answer says which and that the others were not written', async () => {

        const stored = await count('workorder');
        const refused = await t.inject({ method: 'POST', url: wos, headers: bulkHeaders({ allornothing: '1' }), payload: [
            { siteid: 'BEDFORD', description: 'All 1', _bulkid: 'a' },
            { siteid: 'BEDFORD', description: 'All 2', worktype: 'NOPE' },
            { siteid: 'BEDFORD', description: 'All 3' }
        ] });
        expect(refused.statusCode).to.equal(200);
        expect(refused.result.map((item: { _responsemeta: { status: string } }) => item._responsemeta.status)).to.equal(['424', '400', '424']);
        expect(refused.result[0]._responsemeta._bulkid).to.equal('a');
        expect(refused.result[1]._responsedata.Error.errorattrname).to.equal('worktype');
        for (const other of [refused.result[0], refused.result[2]]) {
            expect(other._responsemeta.Location).to.not.exist();
            expect(other._responsedata.Error).to.include({ reasonCode: 'BMXAA1727E', statusCode: '424' });
            expect(other._responsedata.Error.message).to.contain('bulk item 2 of 3 failed');
        }

        expect(await count('workorder')).to.equal(stored);

        // A repeated transactionid is the request's error, before any item.
        const once = bulkHeaders({ allornothing: '1', transactionid: 'aon-tx-1' });
        expect((await t.inject({ method: 'POST', url: wos, headers: once, payload: [{ siteid: 'BEDFORD', description: 'All once' }] })).statusCode).to.equal(200);
        const again = await t.inject({ method: 'POST', url: wos, headers: once, payload: [{ siteid: 'BEDFORD', description: 'All once' }] });
        expect(again.statusCode).to.equal(409);
        expect(await count('workorder')).to.equal(stored + 1);

        const accepted = await t.inject({ method: 'POST', url: `${wos}?allornothing=1`, headers: bulkHeaders(), payload: [
            { siteid: 'BEDFORD', description: 'All 1' },
            { siteid: 'NASHUA', description: 'All 2' }
        ] });
        expect(accepted.result.map((item: { _responsemeta: { status: string } }) => item._responsemeta.status)).to.equal(['201', '201']);
        expect(await count('workorder')).to.equal(stored + 3);
    });

    test('an item that names a record by href without an _action is refused, not created anew', async () => {

        const stored = await count('workorder');
        const res = await t.inject({ method: 'POST', url: wos, headers: bulkHeaders(), payload: [
            { href: `${wos}/_QkVERk9SRC8xMDAw`, siteid: 'BEDFORD', description: 'Would be a copy' },
            { href: `${wos}/_QkVERk9SRC8xMDAw`, _action: 'Update', description: 'Updated by href' }
        ] });
        expect(res.result.map((item: { _responsemeta: { status: string } }) => item._responsemeta.status)).to.equal(['400', '204']);
        expect(res.result[0]._responsedata.Error.message).to.contain('needs an _action');
        expect(await count('workorder')).to.equal(stored);
        const updated = await t.inject({ url: `${wos}/_QkVERk9SRC8xMDAw?oslc.select=description`, headers: wilson });
        expect(updated.result.description).to.equal('Updated by href');
    });

    test('the rights of every item are checked before anything runs; a bulk refused records no transactionid', async () => {

        // WILSON writes work orders but not assets: a bulk with an item WILSON may not do is refused whole, before
        // any item is written (it was a 403 item in a 200 array while rights were checked in each item's transaction).
        const stored = await count('asset');
        const denied = await t.inject({ method: 'POST', url: assets, headers: bulkHeaders({ transactionid: 'bulk-denied' }), payload: [{ assetnum: 'B-1', siteid: 'BEDFORD' }] });
        expect(denied.statusCode).to.equal(403);
        expect(await count('asset')).to.equal(stored);
        expect(await count('osprey_transaction', { id: 'bulk-denied' })).to.equal(0);

        // The rights are the union over the items' operations: an AddChange needs insert and update, and WILSON may
        // make API keys but not update them, so the Add alone passes the rights (and the key's hook refuses a bulk).
        const keys = '/maximo/oslc/os/mxapiapikey';
        const add = await t.inject({ method: 'POST', url: keys, headers: bulkHeaders(), payload: [{ _action: 'Add' }] });
        expect(add.statusCode).to.equal(400);
        const addChange = await t.inject({ method: 'POST', url: keys, headers: bulkHeaders(), payload: [{ _action: 'Add' }, { _action: 'AddChange', userid: 'WILSON' }] });
        expect(addChange.statusCode).to.equal(403);

        const payload = [{ siteid: 'BEDFORD', description: 'Once' }];
        const first = await t.inject({ method: 'POST', url: wos, headers: bulkHeaders({ transactionid: 'bulk-tx-1' }), payload });
        expect(first.result[0]._responsemeta.status).to.equal('201');
        // Each item has its id (bulk-tx-1#1): sent again, the item written before is a 409 (transaction-ids.test.ts).
        const again = await t.inject({ method: 'POST', url: wos, headers: bulkHeaders({ transactionid: 'bulk-tx-1' }), payload });
        expect(again.statusCode).to.equal(200);
        expect(again.result[0]._responsemeta.status).to.equal('409');
        expect(await count('workorder', { description: 'Once' })).to.equal(1);
    });

    test('what a bulk cannot be is a 400 with nothing written', async () => {

        const notArray = await t.inject({ method: 'POST', url: wos, headers: bulkHeaders(), payload: { siteid: 'BEDFORD' } });
        expect(notArray.statusCode).to.equal(400);
        expect(notArray.result.Error.message).to.contain('JSON array');

        const withAction = await t.inject({ method: 'POST', url: `${wos}?action=wsmethod:nothing`, headers: bulkHeaders(), payload: [] });
        expect(withAction.statusCode).to.equal(400);
        expect(withAction.result.Error.message).to.contain('has no action wsmethod:nothing');

        const keys = await t.inject({ method: 'POST', url: '/maximo/oslc/os/mxapiapikey', headers: { ...maxadmin, 'x-method-override': 'BULK' }, payload: [{ userid: 'WILSON' }] });
        expect(keys.statusCode).to.equal(400);

        const empty = await t.inject({ method: 'POST', url: wos, headers: bulkHeaders(), payload: [] });
        expect(empty.statusCode).to.equal(200);
        expect(empty.result).to.equal([]);

        const badSelect = await t.inject({ method: 'POST', url: wos, headers: bulkHeaders({ properties: 'nosuchattribute' }), payload: [{ siteid: 'BEDFORD' }] });
        expect(badSelect.statusCode).to.equal(400);
    });
});
