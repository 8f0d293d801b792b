import * as Path from 'node:path';

import * as Code from '@hapi/code';
import type * as Hapi from '@hapi/hapi';
import * as Lab from '@hapi/lab';

import { onEachDatabase } from '../helpers/experiments';
import { demoStructures, fixtures, maxadmin, maxauth, wilson } from '../helpers/server';


const lab = exports.lab = Lab.script();
const { test } = lab;
const { expect } = Code;

const wos = '/maximo/oslc/os/mxapiwodetail';

// Every kind of node, on a workflow of the demo's work orders added for the test: a condition, attribute values, an
// action by name, a task assigned to a user; and a node that fails at the start rolls the start back.
const workflow = `\
  WOTEST:
    start: check
    nodes:
      check: { if: 'wopriority=1 and not woactivity{taskid<0}', then: urgent, else: plain }
      urgent: { set: { worktype: EM }, next: approve }
      approve: { action: 'wsmethod:changeStatus', payload: { status: APPR, memo: urgent }, next: ask }
      plain: { set: { lead: WILSON }, next: ask }
      ask:
        task: { description: Look at it, users: [SMITH] }
        positive: { instruction: Close it, next: close }
        negative: { instruction: Leave it }
      close: { status: CLOSE }
  WOEMPTY:
    start: nobody
    nodes:
      nobody:
        task: { description: Nobody, groups: [NOBODY] }
        positive: { instruction: Yes }
        negative: { instruction: No }
`;

onEachDatabase(lab, 'workflow nodes', {
    timeout: 120_000,
    fixture: {
        from: Path.relative(fixtures, demoStructures),
        edit: (text, file) => (file === 'mxapiwodetail.yaml' ? text.replace(/^workflows:\n/m, `workflows:\n${workflow}`) : text)
    }
}, (t) => {

    const inject = (options: Hapi.ServerInjectOptions, headers: Record<string, string> = wilson) => t.inject({ ...options, headers: { ...headers, ...options.headers as Record<string, string> } });
    const newWorkOrder = async (wopriority: number) => new URL((await inject({ method: 'POST', url: wos, payload: { siteid: 'BEDFORD', description: 'nodes', wopriority } })).headers.location as string).pathname;
    const read = async (path: string) => (await inject({ url: `${path}?oslc.select=status,worktype,lead,wostatus{status,memo}` })).result as any;
    const start = (path: string, name = 'WOTEST') => inject({ method: 'POST', url: `${path}?action=workflow:${name}`, payload: {} });

    test('a condition, attribute values and an action by name, then a task of one user; the negative route without a next ends it', async () => {

        const urgent = await newWorkOrder(1);
        const started = await start(urgent);
        expect(started.statusCode).to.equal(200);
        expect(started.result).to.include({ node: 'ask', active: true, status: 'APPR' });
        expect(started.result.assignments.map((each: any) => each.assigncode)).to.equal(['SMITH']);
        const record = await read(urgent);
        expect(record).to.include({ worktype: 'EM', status: 'APPR' });
        expect(record.wostatus.map((row: any) => [row.status, row.memo ?? null])).to.equal([['WAPPR', null], ['APPR', 'urgent']]);
        const done = await inject({ method: 'POST', url: `${new URL(started.result.assignments[0].href).pathname}?action=wsmethod:completeAssignment`, payload: { accepted: false } }, maxauth('smith', 'smith'));
        expect(done.result).to.equal({ workflow: 'WOTEST', node: 'ask', active: false, status: 'APPR', assignments: [] });

        const plain = await newWorkOrder(3);
        expect((await start(plain)).result).to.include({ node: 'ask', status: 'WAPPR' });
        expect(await read(plain)).to.include({ lead: 'WILSON', status: 'WAPPR' });
    });

    test('a workflow whose first task finds nobody to assign is not offered in allowedactions; it is once someone is there', async () => {

        const path = await newWorkOrder(3);
        const offered = async () => Object.keys((await inject({ url: `${path}?oslc.select=allowedactions` }, maxadmin)).result.allowedactions);
        expect(await offered()).to.include('WOTEST');
        expect(await offered()).to.not.include('WOEMPTY');
        const knex = t.server.app.osprey.knex;
        await knex('osprey_group').insert({ groupname: 'NOBODY', description: 'Nobody yet', isadmin: false });
        expect(await offered()).to.not.include('WOEMPTY');
        await knex('osprey_groupuser').insert({ groupname: 'NOBODY', userid: 'SMITH' });
        expect(await offered()).to.include('WOEMPTY');
        // SMITH inactive: nobody again.
        await knex('osprey_user').update({ status: 'INACTIVE' }).where({ userid: 'SMITH' });
        expect(await offered()).to.not.include('WOEMPTY');
        await knex('osprey_user').update({ status: 'ACTIVE' }).where({ userid: 'SMITH' });
        await knex('osprey_groupuser').delete().where({ groupname: 'NOBODY' });
        await knex('osprey_group').delete().where({ groupname: 'NOBODY' });
    });

    test('a node that fails at the start rolls the start back; an administrator completes anyone\'s assignment', async () => {

        const path = await newWorkOrder(3);
        const earlier = await read(path);
        const empty = await start(path, 'WOEMPTY');
        expect(empty.statusCode).to.equal(400);
        expect(empty.result.Error.message).to.contain('assigned to the group NOBODY, which does not exist');
        expect(await read(path)).to.equal(earlier);
        const inbox = await inject({ url: '/maximo/oslc/os/mxapiwfassignment?oslc.select=*&oslc.where=processname="WOEMPTY"' }, maxadmin);
        expect(inbox.result.member).to.equal([]);

        // Positive: CLOSE cannot follow WAPPR; everything is rolled back, and the assignment is still active.
        const started = await start(path);
        expect((await read(path)).lead).to.equal('WILSON');
        const href = new URL(started.result.assignments[0].href).pathname;
        const failed = await inject({ method: 'POST', url: `${href}?action=wsmethod:completeAssignment`, payload: { accepted: true, memo: 'close' } }, maxadmin);
        expect(failed.statusCode).to.equal(400);
        expect(failed.result.Error.message).to.contain('cannot change from WAPPR to CLOSE');
        expect((await inject({ url: `${href}?oslc.select=assignstatus,memo` }, maxadmin)).result).to.include({ assignstatus: 'ACTIVE' });
        const done = await inject({ method: 'POST', url: `${href}?action=wsmethod:completeAssignment`, payload: { accepted: false } }, maxadmin);
        expect(done.statusCode).to.equal(200);
    });
});
