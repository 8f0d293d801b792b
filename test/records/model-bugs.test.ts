import * as Code from '@hapi/code';
import * as Lab from '@hapi/lab';

import { testDatabases } from '../helpers/databases';
import { startTestServer, type TestServer } from '../helpers/server';
import { admin, adminSettings } from './model/commands';
import { base64Id } from './model/reference';
import { modelFixtures } from './model/schema';


const { experiment, test, before, after, beforeEach } = exports.lab = Lab.script();
const { expect } = Code;

// Bugs the model-based test (model.test.ts) ran into besides the child-identity one, reported and not fixed on
// this branch: these tests FAIL until the server is fixed. The model (model/reference.ts) holds the promised
// behaviour, but the property test generates these inputs only with OSPREY_MODEL_KNOWN_BUGS=1, so that it keeps
// checking everything else meanwhile.

const orders = '/maximo/oslc/os/mxmorder';
const order = (siteid: string, ordnum: string) => `${orders}/${base64Id([siteid, ordnum])}`;

for (const database of testDatabases) {
    experiment(`model test: known bugs, failing until fixed (${database.name})`, () => {

        let t: TestServer;
        before(async () => {

            t = await startTestServer(database, { ...adminSettings, structures: modelFixtures });
        });

        after(() => t.stop());

        beforeEach(async () => {

            for (const table of ['morder', 'mtask', 'mstep', 'mlabor', 'mstatus', 'mpermit', 'mlog', 'mlogline']) {
                await t.server.app.osprey.knex(table).delete();
            }
        });

        const send = (method: string, url: string, payload?: unknown, headers: Record<string, string> = {}) => t.inject({ method, url, headers: { ...admin, ...headers }, payload: payload as object });

        test('a PATCH that deletes the record with a stale _rowstamp is a 409 and deletes nothing, as an update is', async () => {

            expect((await send('POST', orders, { siteid: 'S1', ordnum: 'A', task: [{ taskid: 10 }] })).statusCode).to.equal(201);
            expect((await send('PATCH', order('S1', 'A'), { description: 'x', _rowstamp: '1' })).statusCode).to.equal(409);
            // Seen: 204, and the order and its task are gone.
            expect((await send('PATCH', order('S1', 'A'), { _action: 'Delete', _rowstamp: '1' })).statusCode).to.equal(409);
            expect((await t.server.app.osprey.knex('morder').select('ordnum')).length).to.equal(1);
        });

        test('a bulk update, merge or delete by keys names the record whatever the case of its upper-case keys, as SYNC does', async () => {

            expect((await send('POST', orders, { siteid: 'S1', ordnum: 'A' })).statusCode).to.equal(201);
            expect((await send('POST', orders, { siteid: 's1', ordnum: 'a', description: 'by sync' }, { 'x-method-override': 'SYNC' })).statusCode).to.equal(204);
            // Seen: 404 for each item (the keys are looked up as sent, not upper-cased as the attributes are).
            const res = await send('POST', orders, [
                { _action: 'Update', siteid: 's1', ordnum: 'a', description: 'by bulk' },
                { _action: 'Merge', siteid: 's1', ordnum: 'A', priority: 7 },
                { _action: 'Delete', siteid: 'S1', ordnum: 'a' }
            ], { 'x-method-override': 'BULK' });
            expect(res.result.map((item: any) => item._responsemeta.status)).to.equal(['204', '204', '204']);
        });

        test('a child href names its row when the parent is named by its unique id or by col:value pairs', async () => {

            expect((await send('POST', orders, { siteid: 'S1', ordnum: 'A', task: [{ taskid: 10 }], labor: [{ laborcode: 'X' }] })).statusCode).to.equal(201);
            const knex = t.server.app.osprey.knex;
            const { morderid } = await knex('morder').first();
            const { mlaborid } = await knex('mlabor').first();
            // The same record, as GET /os/mxmorder/{id}/labor accepts it in any of its three id forms.
            expect((await send('GET', `${orders}/${morderid}/labor`)).statusCode).to.equal(200);
            // Seen: 400 "The href … names no MLABOR of this record."
            const byUniqueId = await send('PATCH', order('S1', 'A'), { labor: [{ href: `http://127.0.0.1:8080${orders}/${morderid}/labor/${base64Id([mlaborid])}`, hours: 2 }] }, { patchtype: 'MERGE' });
            expect(byUniqueId.statusCode).to.equal(204);
            const byPairs = await send('PATCH', order('S1', 'A'), { task: [{ href: `http://127.0.0.1:8080${orders}/siteid:S1|ordnum:A/task/${base64Id([10])}`, description: 'by pairs' }] }, { patchtype: 'MERGE' });
            expect(byPairs.statusCode).to.equal(204);
            expect(Number((await knex('mlabor').first()).hours)).to.equal(2);
            expect(await knex('mtask').select('taskid', 'description')).to.equal([{ taskid: 10, description: 'by pairs' }]);
        });
    });
}
