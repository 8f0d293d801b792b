import * as Code from '@hapi/code';
import * as Lab from '@hapi/lab';
import { ApiHome, MaximoClientBuilder } from '@maximomize/maximo-api-client';

import { testDatabases } from '../helpers/databases';
import { quiet } from '../helpers/npm-client';
import { dataDir, startProcess } from '../helpers/process';


const { experiment, test } = exports.lab = Lab.script();
const { expect } = Code;


const idOf = (href: string) => href.split('/').pop()!;

for (const database of testDatabases) {
    experiment(`record writes with the npm Maximo client (${database.name})`, { timeout: 60_000 }, () => {

        // The server as its own process on a database of its own, and the client of WILSON on its /oslc home.
        const withWorkOrders = async (work: (wo: ReturnType<MaximoClientBuilder['build']>['workOrder']) => Promise<void>) => {

            const created = await database.create();
            const running = await startProcess({ DATABASE_URL: created.url, OSPREY_DATA: dataDir() });
            try {
                const client = new MaximoClientBuilder().baseUrl('127.0.0.1').port(running.port).ssl(false).contextRoot('maximo')
                    .withCredentials('wilson', 'wilson').apiHome(ApiHome.OSLC).logger(quiet).build();
                await work(client.workOrder);
            }
            finally {
                await running.stop();
                await created.drop();
            }
        };

        test('create, read, update, merge, sync, status, labor and material plans, delete', async () => {

            await withWorkOrders(async (wo) => {

                // A work order without a wonum gets one; properties come back with the create.
                const made = await wo.createWorkOrder('Pump vibration', 'BEDFORD', 'CM', 2, 'wonum,siteid,description,status') as any;
                expect(made).to.include({ siteid: 'BEDFORD', description: 'Pump vibration', status: 'WAPPR' });
                expect(made.wonum).to.match(/^\d+$/);
                const id = idOf(made.href);

                const fetched = await wo.createRecord({ siteid: 'NASHUA', description: 'Fetched after create' }, ['wonum', 'description'], true) as any;
                expect(fetched.description).to.equal('Fetched after create');
                expect(fetched.href.endsWith(`/maximo/oslc/os/mxapiwodetail/${idOf(fetched.href)}`)).to.be.true();

                const read = await wo.getById(id, 'wonum,worktype,wopriority') as any;
                expect(read).to.include({ wonum: made.wonum, worktype: 'CM', wopriority: 2 });

                const updated = await wo.updateRecord(id, { description: 'Pump vibration, bearing', woactivity: [{ taskid: 10, description: 'Inspect' }, { taskid: 20, description: 'Replace' }] } as any, 'description');
                expect(updated.status).to.equal(200);
                expect((updated.data as any).description).to.equal('Pump vibration, bearing');

                const merged = await wo.merge(id, { woactivity: [{ taskid: 30, description: 'Test run' }] } as any);
                expect(merged.status).to.equal(204);

                const status = await wo.changeStatus(id, 'APPR', 'approved by the client');
                expect(status.success).to.be.true();
                const labor = await wo.addLaborPlan(id, 'WILSON', 3.5);
                expect(labor.success).to.be.true();
                const material = await wo.addMaterialPlan(id, 'BEARING-6204', 'CENTRAL', 2, ['wonum']);
                expect((material.data as any).wonum).to.equal(made.wonum);

                // An update that names the tasks drops the one it leaves out.
                await wo.update(id, { woactivity: [{ taskid: 10 }, { taskid: 30 }] } as any);

                const after = await wo.getById(id, ['status', 'woactivity{taskid}', 'wplabor{laborcode,regularhrs}', 'wpmaterial{itemnum,storeloc,itemqty}', 'wostatus{status,memo}']) as any;
                expect(after.status).to.equal('APPR');
                expect(after.woactivity.map((task: any) => task.taskid)).to.equal([10, 30]);
                expect(after.wplabor).to.equal([{ laborcode: 'WILSON', regularhrs: 3.5, href: after.wplabor[0].href, localref: after.wplabor[0].href, _rowstamp: after.wplabor[0]._rowstamp }]);
                expect(after.wpmaterial[0]).to.include({ itemnum: 'BEARING-6204', storeloc: 'CENTRAL', itemqty: 2 });
                expect(after.wostatus.map((row: any) => row.status)).to.equal(['WAPPR', 'APPR']);
                expect(after.wostatus[1].memo).to.equal('approved by the client');

                const synced = await wo.sync({ wonum: made.wonum, siteid: 'BEDFORD', description: 'Synced' } as any);
                expect(synced.success).to.be.true();
                expect((await wo.getById(id, 'description') as any).description).to.equal('Synced');
                const syncCreated = await wo.sync({ wonum: 'SYNC-NEW', siteid: 'BEDFORD', description: 'Synced new' } as any);
                expect(syncCreated.status).to.equal(201);

                await wo.delete(id);
                await expect(wo.getById(id)).to.reject();
            });
        });

        test('bulk: an array of records and the bulk builder, each item answered; all or nothing', async () => {

            await withWorkOrders(async (wo) => {

                const added = await wo.executeBulkOperation([{ siteid: 'BEDFORD', description: 'Bulk A' }, { siteid: 'NASHUA', description: 'Bulk B', _action: 'Add' }] as any);
                expect(added.success).to.be.true();
                expect(added.responses.map((item) => item.status)).to.equal([201, 201]);
                const [a, b] = added.responses.map((item) => idOf(item.location!));

                const builder = wo.bulkOperation().update(a!, { description: 'Bulk A, updated' } as any).delete(b!).create({ siteid: 'BEDFORD', description: 'Bulk C' } as any);
                const mixed = await wo.executeBulkOperation(builder);
                expect(mixed.responses.map((item) => item.status)).to.equal([204, 204, 201]);
                expect((await wo.getById(a!, 'description') as any).description).to.equal('Bulk A, updated');
                await expect(wo.getById(b!)).to.reject();

                const failed = await wo.executeBulkOperation([{ siteid: 'BEDFORD', description: 'Bulk D' }, { siteid: 'BEDFORD', worktype: 'NOPE' }] as any);
                expect(failed.success).to.be.false();
                expect(failed.responses[1]!.error.reasonCode).to.exist();

                const count = async () => (await wo.count('description="Bulk E"'));
                // All or nothing: nothing written, and the answer (an array, as the client reads it) says which item failed.
                const atomic = wo.bulkOperation().create({ siteid: 'BEDFORD', description: 'Bulk E' } as any).create({ siteid: 'BEDFORD', worktype: 'NOPE' } as any).setAllOrNothing(true);
                const refused = await wo.executeBulkOperation(atomic);
                expect(refused.success).to.be.false();
                expect(refused.responses.map((item) => item.status)).to.equal([424, 400]);
                expect(refused.responses[1]!.error.errorattrname).to.equal('worktype');
                expect(await count()).to.equal(0);
            });
        });
    });
}
