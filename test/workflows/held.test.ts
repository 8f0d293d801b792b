import * as Code from '@hapi/code';
import type * as Hapi from '@hapi/hapi';
import * as Lab from '@hapi/lab';

import { onEachDatabase } from '../helpers/experiments';
import { maxauth, wilson } from '../helpers/server';


const lab = exports.lab = Lab.script();
const { test } = lab;
const { expect } = Code;

const wos = '/maximo/oslc/os/mxapiwodetail';
const smith = maxauth('smith', 'smith');

// A work order waiting in the demo's WOAPPROVE is in the workflow's hands: its status moves only by completing the
// assignment, and it is not deleted while the workflow waits. Before, SMITH (who holds update on work orders, as
// the workflow writes the approval with the supervisor's rights) could PATCH APPR around the workflow, which then
// refused its own completion and left the assignment ACTIVE; a delete left ACTIVE assignments of nothing.

onEachDatabase(lab, 'a record waiting in a workflow', { timeout: 120_000 }, (t) => {

    const inject = (options: Hapi.ServerInjectOptions, headers: Record<string, string> = wilson) => t.inject({ ...options, headers: { ...headers, ...options.headers as Record<string, string> } });
    const newWorkOrder = async () => new URL((await inject({ method: 'POST', url: wos, payload: { siteid: 'BEDFORD', description: 'held' } })).headers.location as string).pathname;
    const read = async (path: string) => (await inject({ url: `${path}?oslc.select=status,description,wostatus{status}` })).result as any;
    const active = async (path: string) => {

        const id = (await inject({ url: `${path}?oslc.select=workorderid` })).result.workorderid;
        const found = await inject({ url: `/maximo/oslc/os/mxapiwfassignment?oslc.select=assignstatus&oslc.where=ownerid=${id}%20and%20assignstatus="ACTIVE"` }, maxauth('maxadmin', 'maxadmin'));
        return found.result.member.length;
    };

    test('its status does not change by PATCH, action or bulk, and it is not deleted, until the assignment is completed', async () => {

        const held = await newWorkOrder();
        const free = await newWorkOrder();
        const started = await inject({ method: 'POST', url: `${held}?action=workflow:WOAPPROVE`, payload: {} });
        expect(started.statusCode).to.equal(200);
        expect(await active(held)).to.equal(1);

        const patched = await inject({ method: 'PATCH', url: held, payload: { status: 'APPR' } }, smith);
        expect(patched.statusCode).to.equal(400);
        expect(patched.result.Error.message).to.contain('waits in the workflow WOAPPROVE (at review, for SMITH): its status does not change while it waits');

        const action = await inject({ method: 'POST', url: `${held}?action=wsmethod:changeStatus`, payload: { status: 'APPR' } });
        expect(action.statusCode).to.equal(400);
        expect(action.result.Error.message).to.contain('waits in the workflow WOAPPROVE');

        const bulk = await inject({ method: 'POST', url: wos, headers: { 'x-method-override': 'BULK' }, payload: [{ href: `http://localhost${held}`, _action: 'Update', status: 'APPR' }, { href: `http://localhost${free}`, _action: 'Update', status: 'APPR' }] });
        expect(bulk.result.map((item: any) => item._responsemeta.status)).to.equal(['400', '204']);

        const deleted = await inject({ method: 'DELETE', url: held });
        expect(deleted.statusCode).to.equal(400);
        expect(deleted.result.Error.message).to.contain('it is not deleted while it waits');
        const candelete = await inject({ url: `${held}?action=system:candelete` });
        expect(candelete.result.candelete).to.be.false();
        expect(candelete.result.reason).to.contain('waits in the workflow WOAPPROVE');

        // Other attributes are the user's to write; changeStatus is not offered while the workflow waits.
        expect((await inject({ method: 'PATCH', url: held, payload: { description: 'still held' } })).statusCode).to.equal(204);
        const listed = await inject({ url: `${wos}?oslc.select=description,allowedactions&oslc.where=description="still held"` });
        expect(listed.result.member).to.have.length(1);
        expect(Object.keys(listed.result.member[0].allowedactions)).to.not.include('changeStatus');
        const freeActions = await inject({ url: `${free}?oslc.select=allowedactions` });
        expect(Object.keys(freeActions.result.allowedactions)).to.include('changeStatus');

        const record = await read(held);
        expect(record).to.include({ status: 'WAPPR', description: 'still held' });
        expect(record.wostatus.map((row: any) => row.status)).to.equal(['WAPPR']);
        expect(await active(held)).to.equal(1);

        // The workflow moves it; once it ended the record is the users' again.
        const assignment = new URL(started.result.assignments[0].href).pathname;
        const done = await inject({ method: 'POST', url: `${assignment}?action=wsmethod:completeAssignment`, payload: { accepted: true, memo: 'ok' } }, smith);
        expect(done.result).to.include({ active: false, status: 'APPR' });
        expect(await active(held)).to.equal(0);
        expect((await inject({ method: 'PATCH', url: held, payload: { status: 'INPRG' } })).statusCode).to.equal(204);
        expect((await read(held)).wostatus.map((row: any) => row.status)).to.equal(['WAPPR', 'APPR', 'INPRG']);
        expect((await inject({ url: `${held}?action=system:candelete` })).result.reason ?? '').to.not.contain('workflow');
    });

    test('a refusal names a few assignees and counts the rest, not a group\'s every member (found by a hostile probe)', async () => {

        for (let i = 1; i <= 6; ++i) {
            await t.server.app.osprey.users.create({ userid: `SUPX${i}`, password: `Supervisor-${i}-pass`, groups: ['EVERYONE', 'SUPERVISORS'] });
        }

        const held = await newWorkOrder();
        expect((await inject({ method: 'POST', url: `${held}?action=workflow:WOAPPROVE`, payload: {} })).statusCode).to.equal(200);
        expect(await active(held)).to.equal(7);
        const refused = await inject({ method: 'DELETE', url: held });
        expect(refused.statusCode).to.equal(400);
        expect(refused.result.Error.message).to.match(/\(at review, for (?:[A-Z0-9]+, ){4}[A-Z0-9]+ and 2 more\)/);
    });
});
