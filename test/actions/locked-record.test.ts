import * as Code from '@hapi/code';
import type * as Hapi from '@hapi/hapi';
import * as Lab from '@hapi/lab';

import { onEachDatabase } from '../helpers/experiments';
import { wilson } from '../helpers/server';


const lab = exports.lab = Lab.script();
const { test, before } = lab;
const { expect } = Code;

const wos = '/maximo/oslc/os/mxapiwodetail';

// An action's update of its own record uses the row the action read and locked (src/actions/engine-writes.ts),
// but only while that row is still what is stored: a handler that wrote through db, or changed the row it was
// given, has its update read the record again, so the transition is checked from the status really stored.
onEachDatabase(lab, 'an action\'s update of the record it locked', { timeout: 60_000 }, (t) => {

    const inject = (options: Hapi.ServerInjectOptions): Promise<Hapi.ServerInjectResponse<any>> => t.inject({ ...options, headers: { ...wilson, ...options.headers as Record<string, string> } });

    const newWorkOrder = async () => {

        const res = await inject({ method: 'POST', url: `${wos}?lean=1`, headers: { properties: 'wonum' }, payload: { siteid: 'BEDFORD', description: 'locked record test' } });
        expect(res.statusCode).to.equal(201);
        const href = res.headers.location as string;
        return { path: new URL(href).pathname, wonum: (res.result as { wonum: string }).wonum };
    };

    const statusOf = async (path: string) => ((await inject({ url: `${path}?oslc.select=status,wostatus{status}` })).result as { status: string; wostatus: { status: string }[] });

    before(() => {

        // Completes the work order through db (no rowstamp moves), then closes it through the engine: COMP → CLOSE
        // is valid, WAPPR → CLOSE (the status the action read) is not.
        t.server.registerAction('MXAPIWODETAIL', 'closebydb', {
            handler: async ({ structure, record, db, write }) => {

                await db.knex('workorder').where({ siteid: record!.siteid, wonum: record!.wonum }).update({ status: 'COMP' });
                await write.update(structure.name, record!, { status: 'CLOSE' });
            }
        });
        // Changes the row it was given, not what is stored: the engine checks WAPPR → CLOSE and refuses it.
        t.server.registerAction('MXAPIWODETAIL', 'closebyrow', {
            handler: async ({ structure, record, write }) => {

                record!.status = 'COMP';
                await write.update(structure.name, record!, { status: 'CLOSE' });
            }
        });
        // Two updates of its record: the second reads the row the first wrote.
        t.server.registerAction('MXAPIWODETAIL', 'approvetwice', {
            handler: async ({ structure, record, write }) => {

                await write.update(structure.name, record!, { status: 'APPR' });
                await write.update(structure.name, record!, { status: 'INPRG' });
            }
        });
    });

    test('wsmethod:changeStatus checks the transition from the status it locked and writes the history row', async () => {

        const wo = await newWorkOrder();
        const refused = await inject({ method: 'POST', url: `${wo.path}?action=wsmethod:changeStatus`, headers: { 'x-method-override': 'PATCH' }, payload: { status: 'COMP' } });
        expect(refused.statusCode).to.equal(400);
        expect(refused.result.Error.message).to.contain('from WAPPR to COMP');
        const res = await inject({ method: 'POST', url: `${wo.path}?action=wsmethod:changeStatus`, headers: { 'x-method-override': 'PATCH' }, payload: { status: 'APPR' } });
        expect(res.statusCode).to.equal(204);
        const again = await inject({ method: 'POST', url: `${wo.path}?action=wsmethod:changeStatus`, headers: { 'x-method-override': 'PATCH' }, payload: { status: 'CLOSE' } });
        expect(again.statusCode).to.equal(400);
        expect(again.result.Error.message).to.contain('from APPR to CLOSE');
        const record = await statusOf(wo.path);
        expect(record.status).to.equal('APPR');
        expect(record.wostatus.map((row) => row.status)).to.equal(['WAPPR', 'APPR']);
    });

    test('a handler that wrote through db has its update read the record again', async () => {

        const wo = await newWorkOrder();
        const res = await inject({ method: 'POST', url: `${wo.path}?action=closebydb`, headers: { 'x-method-override': 'PATCH' } });
        expect(res.statusCode, JSON.stringify(res.result)).to.equal(204);
        expect((await statusOf(wo.path)).status).to.equal('CLOSE');
    });

    test('a handler that changed the row it was given has its update read the record again', async () => {

        const wo = await newWorkOrder();
        const res = await inject({ method: 'POST', url: `${wo.path}?action=closebyrow`, headers: { 'x-method-override': 'PATCH' } });
        expect(res.statusCode).to.equal(400);
        expect(res.result.Error.message).to.contain('from WAPPR to CLOSE');
        expect((await statusOf(wo.path)).status).to.equal('WAPPR');
    });

    test('a second update of the record reads the row the first wrote', async () => {

        const wo = await newWorkOrder();
        const res = await inject({ method: 'POST', url: `${wo.path}?action=approvetwice`, headers: { 'x-method-override': 'PATCH' } });
        expect(res.statusCode, JSON.stringify(res.result)).to.equal(204);
        const record = await statusOf(wo.path);
        expect(record.status).to.equal('INPRG');
        expect(record.wostatus.map((row) => row.status)).to.equal(['WAPPR', 'APPR', 'INPRG']);
    });
});
