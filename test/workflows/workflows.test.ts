import * as Code from '@hapi/code';
import type * as Hapi from '@hapi/hapi';
import * as Lab from '@hapi/lab';

import { onEachDatabase } from '../helpers/experiments';
import { maxadmin, maxauth, wilson } from '../helpers/server';


const lab = exports.lab = Lab.script();
const { test, before } = lab;
const { expect } = Code;

const home = '/maximo/oslc';
const wos = `${home}/os/mxapiwodetail`;
const inbox = `${home}/os/mxapiwfassignment`;
const smith = maxauth('smith', 'smith');
const jones = maxauth('jones', 'jones');

// The demo's workflow WOAPPROVE through HTTP (CONTRACT §5; IBM's guide, workflow): a planner starts it, every
// supervisor gets an assignment, the first to complete theirs approves or rejects the work order, with a memo on its
// status history; assignments are kept to their owners.
onEachDatabase(lab, 'the workflow WOAPPROVE', { timeout: 120_000 }, (t) => {

    const as = (headers: Record<string, string>) => {

        return (options: Hapi.ServerInjectOptions): Promise<Hapi.ServerInjectResponse<any>> => t.inject({ ...options, headers: { ...headers, ...options.headers as Record<string, string> } });
    };

    const planner = as(wilson);
    const supervisor = as(smith);
    const other = as(jones);
    const admin = as(maxadmin);

    const newWorkOrder = async (description = 'workflow test') => {

        const res = await planner({ method: 'POST', url: `${wos}?lean=1`, payload: { siteid: 'BEDFORD', description } });
        expect(res.statusCode).to.equal(201);
        const href = res.headers.location as string;
        return { href, path: new URL(href).pathname };
    };

    const read = async (path: string) => (await planner({ url: `${path}?oslc.select=status,wostatus{status,memo,changeby}` })).result as any;
    const start = (path: string, payload: object = {}) => planner({ method: 'POST', url: `${path}?action=workflow:WOAPPROVE&lean=1`, headers: { 'x-method-override': 'PATCH' }, payload });
    const complete = (who: typeof planner, href: string, payload: object) => who({ method: 'POST', url: `${new URL(href).pathname}?action=wsmethod:completeAssignment&lean=1`, headers: { 'x-method-override': 'PATCH' }, payload });
    const mine = async (who: typeof planner, query = '') => (await who({ url: `${inbox}?lean=1&oslc.select=*${query}` })).result as any;

    before(async () => {

        // A second supervisor: a task of the group SUPERVISORS is assigned to each.
        await t.server.app.osprey.users.create({ userid: 'JONES', password: 'jones', groups: ['EVERYONE', 'SUPERVISORS'] });
    });

    test('approve: the planner starts it, each supervisor gets an assignment, one approves with a memo, the others\' close', async () => {

        const wo = await newWorkOrder();
        const started = await start(wo.path);
        expect(started.statusCode).to.equal(200);
        expect(started.result).to.include({ workflow: 'WOAPPROVE', node: 'review', active: true, status: 'WAPPR' });
        expect(started.result.assignments.map((each: any) => each.assigncode)).to.equal(['JONES', 'SMITH']);
        const smiths = started.result.assignments.find((each: any) => each.assigncode === 'SMITH');

        // Each supervisor sees their own assignment, with its routes as IBM's guide shows them.
        const list = await mine(supervisor, `&oslc.where=ownerid=${(await planner({ url: `${wo.path}?oslc.select=workorderid` })).result.workorderid}`);
        expect(list.member).to.have.length(1);
        expect(list.member[0]).to.include({ assigncode: 'SMITH', processname: 'WOAPPROVE', nodeid: 'review', assignstatus: 'ACTIVE', ownertable: 'WORKORDER' });
        expect(list.member[0].wfaction).to.equal([{ instruction: 'Reject the work order', ispositive: false }, { instruction: 'Approve the work order', ispositive: true }]);
        expect(list.member[0].href).to.equal(smiths.href);

        // Started once only.
        const again = await start(wo.path);
        expect(again.statusCode).to.equal(400);
        expect(again.result.Error.message).to.contain('already has the workflow WOAPPROVE active');

        const done = await complete(supervisor, smiths.href, { memo: 'fine by me', accepted: true });
        expect(done.statusCode).to.equal(200);
        expect(done.result).to.equal({ workflow: 'WOAPPROVE', node: 'approved', active: false, status: 'APPR', assignments: [] });
        const record = await read(wo.path);
        expect(record.status).to.equal('APPR');
        // Already WAPPR: the node submit left it so; then one history row, SMITH's, with the memo.
        expect(record.wostatus.map((row: any) => [row.status, row.memo ?? null, row.changeby])).to.equal([['WAPPR', null, 'WILSON'], ['APPR', 'fine by me', 'SMITH']]);
        const assignments = (await admin({ url: `${inbox}?lean=1&oslc.select=assigncode,assignstatus,memo,accepted&oslc.where=ownerid=${(await planner({ url: `${wo.path}?oslc.select=workorderid` })).result.workorderid}&oslc.orderBy=%2Bassigncode` })).result.member;
        expect(assignments.map((row: any) => [row.assigncode, row.assignstatus, row.memo ?? null, row.accepted ?? null])).to.equal([['JONES', 'INACTIVE', null, null], ['SMITH', 'COMPLETE', 'fine by me', true]]);

        // Twice: a 400; JONES's, closed by SMITH's completion: a 400 too.
        const twice = await complete(supervisor, smiths.href, { memo: 'again', accepted: false });
        expect(twice.statusCode).to.equal(400);
        expect(twice.result.Error.message).to.contain('is COMPLETE already');
        const theirs = started.result.assignments.find((each: any) => each.assigncode === 'JONES');
        expect((await complete(other, theirs.href, { accepted: true })).result.Error.message).to.contain('is INACTIVE already');
    });

    test('two supervisors completing their sibling assignments at once: one decides, the other is told it is closed', async () => {

        for (let i = 0; i < 5; ++i) {
            const wo = await newWorkOrder(`race ${i}`);
            const started = await start(wo.path);
            const href = (who: string) => started.result.assignments.find((each: any) => each.assigncode === who).href;
            const answers = await Promise.all([complete(supervisor, href('SMITH'), { accepted: true, memo: 'smith' }), complete(other, href('JONES'), { accepted: false, memo: 'jones' })]);
            const codes = answers.map((answer) => answer.statusCode).sort();
            expect(codes, `round ${i}`).to.equal([200, 400]);
            const loser = answers.find((answer) => answer.statusCode === 400)!;
            expect(loser.result.Error.message).to.contain('is INACTIVE already');
            const winner = answers.findIndex((answer) => answer.statusCode === 200);
            const record = await read(wo.path);
            expect(record.status).to.equal(winner === 0 ? 'APPR' : 'CAN');
            expect(record.wostatus.map((row: any) => row.status)).to.equal(['WAPPR', winner === 0 ? 'APPR' : 'CAN']);
        }
    });

    test('reject: the work order is canceled with the memo; the start\'s memo and allowedactions', async () => {

        const wo = await newWorkOrder();
        expect((await planner({ url: `${wo.path}?oslc.select=allowedactions` })).result.allowedactions.WOAPPROVE).to.include({ type: 'workflow', httpmethod: 'POST' });
        const started = await start(wo.path, { memo: 'please' });
        expect(started.statusCode).to.equal(200);
        // Active now: it cannot start again, so it is not listed.
        expect((await planner({ url: `${wo.path}?oslc.select=allowedactions` })).result.allowedactions.WOAPPROVE).to.not.exist();
        const smiths = started.result.assignments.find((each: any) => each.assigncode === 'SMITH');
        expect((await supervisor({ url: `${new URL(smiths.href).pathname}?oslc.select=allowedactions` })).result.allowedactions.completeAssignment).to.include({ type: 'wsmethod' });
        const done = await complete(supervisor, smiths.href, { memo: 'not needed', accepted: false });
        expect(done.result).to.include({ node: 'rejected', active: false, status: 'CAN' });
        const record = await read(wo.path);
        expect(record.wostatus.map((row: any) => [row.status, row.memo ?? null, row.changeby])).to.equal([['WAPPR', null, 'WILSON'], ['CAN', 'not needed', 'SMITH']]);
        // Canceled: the condition (WAPPR or APPR) no longer holds.
        expect((await planner({ url: `${wo.path}?oslc.select=allowedactions` })).result.allowedactions.WOAPPROVE).to.not.exist();
        const refused = await start(wo.path);
        expect(refused.statusCode).to.equal(400);
        expect(refused.result.Error.message).to.contain('its condition status in ["WAPPR","APPR"] does not hold');
        // Done: completeAssignment is no longer listed on it.
        expect((await supervisor({ url: `${new URL(smiths.href).pathname}?oslc.select=allowedactions` })).result.allowedactions).to.equal({});
    });

    test('an approved work order sent again goes back to WAPPR with the memo of the node', async () => {

        const wo = await newWorkOrder();
        expect((await planner({ method: 'POST', url: `${wo.path}?action=wsmethod:changeStatus`, payload: { status: 'APPR' } })).statusCode).to.equal(204);
        const started = await start(wo.path);
        expect(started.result).to.include({ status: 'WAPPR', active: true });
        expect((await read(wo.path)).wostatus.map((row: any) => [row.status, row.memo ?? null])).to.equal([['WAPPR', null], ['APPR', null], ['WAPPR', 'Sent for approval']]);
    });

    test('assignments are their owner\'s: listed, paged and filtered for them only; another\'s is a 404; nobody but an administrator writes them', async () => {

        const one = await newWorkOrder('inbox one');
        const two = await newWorkOrder('inbox two');
        const first = await start(one.path);
        await start(two.path);
        // WILSON has none; SMITH sees only his own, paged and filtered.
        expect((await mine(planner)).member).to.equal([]);
        const all = await mine(supervisor, '&oslc.where=assignstatus="ACTIVE"');
        expect(all.member.length >= 2).to.equal(true);
        expect(all.member.every((row: any) => row.assigncode === 'SMITH')).to.equal(true);
        const page = (await supervisor({ url: `${inbox}?lean=1&oslc.select=assigncode,description&oslc.pageSize=1&savedQuery=ACTIVE&oslc.orderBy=-wfassignmentid&collectioncount=1` })).result;
        expect(page.member).to.have.length(1);
        expect(page.member[0].description).to.contain('Approve the work order (MXAPIWODETAIL BEDFORD/');
        expect(page.responseInfo.totalCount).to.equal(all.member.length);
        expect(page.responseInfo.nextPage).to.exist();
        const everyone = (await admin({ url: `${inbox}?lean=1&oslc.select=assigncode&oslc.where=assignstatus="ACTIVE"` })).result.member;
        expect(new Set(everyone.map((row: any) => row.assigncode))).to.equal(new Set(['JONES', 'SMITH']));

        // SMITH's assignment: not there for JONES nor WILSON (404); nobody but an administrator writes assignments.
        const smiths = first.result.assignments.find((each: any) => each.assigncode === 'SMITH');
        const path = new URL(smiths.href).pathname;
        expect((await complete(other, smiths.href, { accepted: true })).statusCode).to.equal(404);
        expect((await complete(planner, smiths.href, { accepted: true })).statusCode).to.equal(404);
        expect((await other({ url: path })).statusCode).to.equal(404);
        expect((await supervisor({ method: 'POST', url: path, headers: { 'x-method-override': 'PATCH' }, payload: { assignstatus: 'COMPLETE' } })).statusCode).to.equal(403);
        expect((await supervisor({ method: 'DELETE', url: path })).statusCode).to.equal(403);
        expect((await supervisor({ method: 'POST', url: inbox, payload: { assigncode: 'SMITH', processname: 'X', nodeid: 'x', ownertable: 'WORKORDER', ownerid: 1 } })).statusCode).to.equal(403);
        expect((await admin({ method: 'POST', url: path, headers: { 'x-method-override': 'PATCH' }, payload: { duedate: '2030-01-01T00:00:00Z' } })).statusCode).to.equal(204);
        // Bad payloads: accepted is required.
        expect((await complete(supervisor, smiths.href, { memo: 'x' })).result.Error.message).to.contain('accepted');
        // A JSON boolean, not its text (found by a hostile probe: "true" took the positive route, "yes" was refused).
        for (const accepted of ['true', 'false', 1, 'yes']) {
            const refused = await complete(supervisor, smiths.href, { memo: 'x', accepted });
            expect(refused.statusCode, String(accepted)).to.equal(400);
            expect(refused.result.Error.message).to.contain('accepted');
        }
    });

    test('a node that fails rolls the whole completion back: the record, its history and every assignment are as they were', async () => {

        const wo = await newWorkOrder();
        const started = await start(wo.path);
        // The work order moves on meanwhile, written by another system straight into its table (through the API a
        // waiting record's status does not move: held.test.ts): from INPRG, APPR cannot follow.
        expect((await planner({ method: 'POST', url: `${wo.path}?action=wsmethod:changeStatus`, payload: { status: 'INPRG' } })).statusCode).to.equal(400);
        const id = (await planner({ url: `${wo.path}?oslc.select=workorderid` })).result.workorderid;
        await t.server.app.osprey.knex('workorder').where({ workorderid: id }).update({ status: 'INPRG' });
        const was = await read(wo.path);
        const assignmentsNow = async () => (await admin({ url: `${inbox}?lean=1&oslc.select=*&oslc.where=ownerid=${id}` })).result.member;
        const earlier = await assignmentsNow();
        const smiths = started.result.assignments.find((each: any) => each.assigncode === 'SMITH');
        const failed = await complete(supervisor, smiths.href, { memo: 'ok', accepted: true });
        expect(failed.statusCode).to.equal(400);
        expect(failed.result.Error.message).to.contain('cannot change from INPRG to APPR');
        expect(await read(wo.path)).to.equal(was);
        expect(await assignmentsNow()).to.equal(earlier);
        expect(earlier.map((row: any) => row.assignstatus)).to.equal(['ACTIVE', 'ACTIVE']);
    });
});
