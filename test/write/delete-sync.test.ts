import * as Code from '@hapi/code';
import * as Lab from '@hapi/lab';

import { purgeTransactionIds } from '../../src/write/apply/transaction-ids';
import { onEachDatabase } from '../helpers/experiments';
import { maxadmin, wilson } from '../helpers/server';


const lab = exports.lab = Lab.script();
const { test } = lab;
const { expect } = Code;

const wos = '/maximo/oslc/os/mxapiwodetail';

onEachDatabase(lab, 'deleting, syncing and transaction ids', (t) => {

    const count = async (table: string, where: Record<string, unknown> = {}) => Number((await t.server.app.osprey.knex(table).where(where).count({ n: '*' }))[0]!.n);

    const workOrder = async () => {

        const res = await t.inject({ method: 'POST', url: wos, headers: { ...wilson, properties: 'wonum' }, payload: { siteid: 'BEDFORD', woactivity: [{ taskid: 10 }], wplabor: [{ laborcode: 'A' }] } });
        return { path: new URL(res.headers.location as string).pathname, wonum: res.result.wonum as string };
    };

    test('DELETE, POST + x-method-override: DELETE and a PATCH body _action Delete remove the record and its children', async () => {

        for (const request of [
            (path: string) => ({ method: 'DELETE', url: path, headers: wilson }),
            (path: string) => ({ method: 'POST', url: path, headers: { ...wilson, 'x-method-override': 'DELETE' } }),
            (path: string) => ({ method: 'PATCH', url: path, headers: wilson, payload: { _action: 'Delete' } })
        ]) {
            const { path, wonum } = await workOrder();
            const res = await t.inject(request(path));
            expect(res.statusCode).to.equal(204);
            expect((await t.inject({ url: path, headers: wilson })).statusCode).to.equal(404);
            expect(await count('woactivity', { parent: wonum, siteid: 'BEDFORD' })).to.equal(0);
            expect(await count('wplabor', { wonum, siteid: 'BEDFORD' })).to.equal(0);
            expect(await count('wostatus', { wonum, siteid: 'BEDFORD' })).to.equal(0);
        }

        const again = await t.inject({ method: 'DELETE', url: `${wos}/_QkVERk9SRC9OT1RIRVJF`, headers: wilson });
        expect(again.statusCode).to.equal(404);
        const forbidden = await t.inject({ method: 'DELETE', url: '/maximo/oslc/os/mxapiasset/1', headers: wilson });
        expect(forbidden.statusCode).to.equal(403);
    });

    test('a record others refer to through a restricting relation is not deleted', async () => {

        const wo = await t.server.app.osprey.knex('workorder').whereNotNull('assetnum').first();
        const asset = await t.server.app.osprey.knex('asset').where({ assetnum: wo.assetnum, siteid: wo.siteid }).first();
        const res = await t.inject({ method: 'DELETE', url: `/maximo/oslc/os/mxapiasset/${asset.assetuid}`, headers: maxadmin });
        expect(res.statusCode).to.equal(400);
        expect(res.result.Error.message).to.contain('openwo');
        expect(await count('asset', { assetnum: wo.assetnum, siteid: wo.siteid })).to.equal(1);
    });

    test('SYNC creates a record the keys do not name, and updates (or merges) the one they do', async () => {

        const sync = (payload: object, extra: object = {}) => t.inject({ method: 'POST', url: wos, headers: { ...wilson, 'x-method-override': 'SYNC', ...extra }, payload });
        const create = await sync({ wonum: 'SYNC-1', siteid: 'BEDFORD', description: 'from sync', woactivity: [{ taskid: 1 }, { taskid: 2 }] });
        expect(create.statusCode).to.equal(201);
        const path = new URL(create.headers.location as string).pathname;
        const merge = await sync({ wonum: 'SYNC-1', siteid: 'BEDFORD', description: 'synced again', woactivity: [{ taskid: 3 }] }, { patchtype: 'MERGE', properties: 'description,woactivity{taskid}' });
        expect(merge.statusCode).to.equal(200);
        expect(merge.result.description).to.equal('synced again');
        expect(merge.result.woactivity.map((row: any) => row.taskid)).to.equal([1, 2, 3]);
        const update = await sync({ wonum: 'sync-1', siteid: 'bedford', woactivity: [{ taskid: 3 }] });
        expect(update.statusCode).to.equal(204);
        expect(await count('woactivity', { parent: 'SYNC-1' })).to.equal(1);
        const generated = await sync({ siteid: 'BEDFORD', description: 'no key' });
        expect(generated.statusCode).to.equal(201);
        expect((await t.inject({ url: path, headers: wilson })).result.description).to.equal('synced again');
    });

    test('a transactionid is written once: a repeat is a 409, also when sent concurrently', async () => {

        const earlier = await count('workorder');
        const send = (id: string) => t.inject({ method: 'POST', url: wos, headers: { ...wilson, transactionid: id }, payload: { siteid: 'BEDFORD', description: id } });
        expect((await send('tx-1')).statusCode).to.equal(201);
        const repeat = await send('tx-1');
        expect(repeat.statusCode).to.equal(409);
        expect(repeat.result.Error.reasonCode).to.equal('BMXAA5646E');
        const together = await Promise.all([send('tx-2'), send('tx-2')]);
        expect(together.map((res) => res.statusCode).sort()).to.equal([201, 409]);
        expect(await count('workorder')).to.equal(earlier + 2);

        // A failed write does not use its id up.
        const failed = await t.inject({ method: 'POST', url: wos, headers: { ...wilson, transactionid: 'tx-3' }, payload: { siteid: 'BEDFORD', colour: 'red' } });
        expect(failed.statusCode).to.equal(400);
        expect((await send('tx-3')).statusCode).to.equal(201);

        // After the retention, an id is forgotten.
        const knex = t.server.app.osprey.knex;
        await knex('osprey_transaction').where({ id: 'tx-1' }).update({ created: Date.now() - 25 * 3600_000 });
        expect(await purgeTransactionIds(knex, Date.now(), 24 * 3600_000)).to.equal(1);
        expect((await send('tx-1')).statusCode).to.equal(201);
        await knex('osprey_transaction').where({ id: 'tx-1' }).update({ created: Date.now() - 25 * 3600_000 });
        expect((await send('tx-1')).statusCode).to.equal(201);
    });
});

// The fixture structures, with a pump's jobs deleted with the pump.
const cascade = (text: string) => text.replace('join: { pumpnum: pumpnum, siteid: siteid } }', 'join: { pumpnum: pumpnum, siteid: siteid }, onDelete: cascade }');

onEachDatabase(lab, 'relations that cascade', { settings: { demo: false, adminUser: 'ADMIN', adminPassword: 'admin-secret-1' }, fixture: { edit: cascade } }, (t) => {

    test('deleting a pump deletes its jobs and seals', async () => {

        const admin = { maxauth: Buffer.from('ADMIN:admin-secret-1').toString('base64') };
        const pump = await t.inject({ method: 'POST', url: '/maximo/oslc/os/mxtestpump', headers: admin, payload: { pumpnum: 'P1', siteid: 'S1', seal: [{ sealnum: 1 }] } });
        expect(pump.statusCode).to.equal(201);
        for (const jobnum of ['J1', 'J2']) {
            expect((await t.inject({ method: 'POST', url: '/maximo/oslc/os/mxtestjob', headers: admin, payload: { jobnum, pumpnum: 'P1', siteid: 'S1' } })).statusCode).to.equal(201);
        }

        const res = await t.inject({ method: 'DELETE', url: new URL(pump.headers.location as string).pathname, headers: admin });
        expect(res.statusCode).to.equal(204);
        const knex = t.server.app.osprey.knex;
        expect(Number((await knex('job').count({ n: '*' }))[0]!.n)).to.equal(0);
        expect(Number((await knex('pumpseal').count({ n: '*' }))[0]!.n)).to.equal(0);
    });
});
