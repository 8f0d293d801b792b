import * as Code from '@hapi/code';
import type * as Hapi from '@hapi/hapi';
import * as Lab from '@hapi/lab';
import Joi from 'joi';

import { onEachDatabase } from '../helpers/experiments';
import { maxadmin, maxauth, wilson } from '../helpers/server';


const lab = exports.lab = Lab.script();
const { test, before } = lab;
const { expect } = Code;

const home = '/maximo/oslc';
const wos = `${home}/os/mxapiwodetail`;

// Every wire form of a record action (CONTRACT §5; ACTIONS-WIRE.md): GET without a payload, POST with one, with or
// without x-method-override: PATCH, properties as a header or a query parameter; the built-in changeStatus and
// candelete; collection actions; bulk with an action; errors and rights; nothing written by a failed action.
onEachDatabase(lab, 'actions on records and collections', { timeout: 120_000 }, (t) => {

    const inject = (options: Hapi.ServerInjectOptions): Promise<Hapi.ServerInjectResponse<any>> => t.inject({ ...options, headers: { ...wilson, ...options.headers as Record<string, string> } });

    // A new work order of WILSON's, in WAPPR: its href and id.
    const newWorkOrder = async (description = 'action test') => {

        const res = await inject({ method: 'POST', url: `${wos}?lean=1`, headers: { properties: 'wonum,status' }, payload: { siteid: 'BEDFORD', description } });
        expect(res.statusCode).to.equal(201);
        const href = res.headers.location as string;
        return { href, path: new URL(href).pathname, id: href.split('/').pop()! };
    };

    const read = async (path: string, select = 'wonum,status,statusdate,description,wostatus{status,memo,changedate,changeby}') => (await inject({ url: `${path}?oslc.select=${select}` })).result as any;

    before(() => {

        // A collection action and a plain record action a plugin would add, for the wire forms below.
        t.server.registerAction('MXAPIWODETAIL', 'countstatus', {
            scope: 'collection',
            right: 'none',
            schema: Joi.object({ status: Joi.string().required() }),
            handler: async ({ db, payload }) => ({ count: Number((await db.knex('workorder').where({ status: payload.status }).count({ n: '*' }))[0]!.n) })
        });
        t.server.registerAction('MXAPIWODETAIL', 'retitle', {
            schema: Joi.object({ description: Joi.string().max(100).required() }),
            description: 'Give the work order a new description',
            handler: async ({ structure, record, payload, write }) => {

                await write.update(structure.name, record!, { description: payload.description });
                return { retitled: true };
            }
        });
    });

    test('wsmethod:changeStatus by every wire form changes the status, stamps the status date and adds a history row with the memo', async () => {

        const wo = await newWorkOrder();
        // POST + x-method-override: PATCH, properties as a header (the Java client, ResourceUpdate.action).
        const first = await inject({ method: 'POST', url: `${wo.path}?action=wsmethod:changeStatus&lean=1`, headers: { 'x-method-override': 'PATCH', properties: 'wonum,status' }, payload: { status: 'APPR', memo: 'approved by test' } });
        expect(first.statusCode).to.equal(200);
        expect(first.result).to.include({ status: 'APPR' });
        // POST without an override, properties as a query parameter (ResourceService.action).
        const second = await inject({ method: 'POST', url: `${wo.path}?action=WSMETHOD:CHANGESTATUS&properties=status`, payload: { status: 'INPRG' } });
        expect(second.statusCode).to.equal(200);
        expect(second.result.status).to.equal('INPRG');
        // Without properties: 204. A date between the last change and now (whole seconds, a second after it).
        await new Promise((resolve) => setTimeout(resolve, 1100));
        const when = new Date(Math.floor(Date.now() / 1000) * 1000).toISOString();
        const third = await inject({ method: 'POST', url: `${wo.path}?action=wsmethod:changeStatus`, headers: { 'x-method-override': 'PATCH' }, payload: { status: 'COMP', date: when } });
        expect(third.statusCode).to.equal(204);
        const record = await read(wo.path);
        expect(record.status).to.equal('COMP');
        expect(new Date(record.statusdate).toISOString()).to.equal(when);
        const history = record.wostatus.map((row: any) => row.status);
        expect(history).to.equal(['WAPPR', 'APPR', 'INPRG', 'COMP']);
        expect(record.wostatus.find((row: any) => row.status === 'APPR')).to.include({ memo: 'approved by test', changeby: 'WILSON' });
    });

    test('a forbidden transition, a bad payload or an unknown action is a 400 naming it, and nothing is written', async () => {

        const wo = await newWorkOrder();
        const earlier = await read(wo.path);
        const cases: [Hapi.ServerInjectOptions, string][] = [
            [{ method: 'POST', url: `${wo.path}?action=wsmethod:changeStatus`, payload: { status: 'CLOSE' } }, 'cannot change from WAPPR to CLOSE'],
            [{ method: 'POST', url: `${wo.path}?action=wsmethod:changeStatus`, payload: { status: 'APPR', frobnicate: 1 } }, 'frobnicate'],
            [{ method: 'POST', url: `${wo.path}?action=wsmethod:changeStatus`, payload: {} }, 'status'],
            [{ url: `${wo.path}?action=wsmethod:changeStatus` }, 'status'],
            [{ method: 'POST', url: `${wo.path}?action=wsmethod:changeStatus`, payload: { status: 'APPR', date: 'yesterday' } }, 'date'],
            [{ method: 'POST', url: `${wo.path}?action=wsmethod:nothing`, payload: { status: 'APPR' } }, 'has no action wsmethod:nothing'],
            [{ method: 'POST', url: `${wo.path}?action=__proto__`, payload: {} }, 'has no action __proto__'],
            [{ method: 'POST', url: `${wo.path}?action=constructor`, payload: {} }, 'has no action constructor'],
            [{ method: 'POST', url: `${wo.path}?action=countstatus`, payload: { status: 'APPR' } }, 'acts on the MXAPIWODETAIL collection'],
            [{ method: 'POST', url: `${wo.path}?action=system:candelete`, payload: { x: 1 } }, 'takes no payload'],
            [{ method: 'PUT', url: `${wo.path}?action=wsmethod:changeStatus`, payload: { status: 'APPR' } }, 'PUT is not carried out'],
            [{ method: 'POST', url: `${wo.path}?action=wsmethod:changeStatus`, headers: { 'x-method-override': 'MERGE' }, payload: { status: 'APPR' } }, 'MERGE is not carried out'],
            [{ method: 'POST', url: `${wo.path}?action=wsmethod:changeStatus`, headers: { patchtype: 'MERGE' }, payload: { status: 'APPR' } }, 'patchtype'],
            [{ method: 'DELETE', url: `${wo.path}?action=wsmethod:changeStatus` }, 'wsmethod:changeStatus'],
            [{ method: 'POST', url: `${wo.path}?action=wsmethod:changeStatus`, headers: { 'content-type': 'text/plain' }, payload: '{"status":"APPR"}' }, 'JSON'],
            [{ method: 'POST', url: `${wo.path}?action=wsmethod:changeStatus`, payload: { status: 'WAPPR' } }, 'already in status WAPPR'],
            [{ method: 'POST', url: `${wo.path}?action=wsmethod:changeStatus`, payload: { status: ' APPR ' } }, 'WOSTATUS'],
            ...['0000-01-01T00:00:00Z', '-000001-01-01T00:00:00Z', '+275760-09-13T00:00:00Z'].map((date): [Hapi.ServerInjectOptions, string] => [{ method: 'POST', url: `${wo.path}?action=wsmethod:changeStatus`, payload: { status: 'APPR', date } }, 'years 0001 to 9999']),
            [{ method: 'POST', url: `${wo.path}?action=wsmethod:changeStatus`, payload: { status: 'APPR', date: '2025-02-30T00:00:00Z' } }, 'a day its month does not have'],
            // The schema allowedactions shows says what the history row keeps: 254 characters of memo.
            [{ method: 'POST', url: `${wo.path}?action=wsmethod:changeStatus`, payload: { status: 'APPR', memo: 'm'.repeat(255) } }, 'memo'],
            [{ method: 'POST', url: `${wo.path}?action=wsmethod:changeStatus`, payload: { status: 'APPR', date: '2999-01-01T00:00:00Z' } }, 'in the future'],
            [{ method: 'POST', url: `${wo.path}?action=wsmethod:changeStatus`, payload: { status: 'APPR', date: '2001-01-01T00:00:00Z' } }, 'before the WORKORDER record\'s current status date'],
            [{ url: `${wo.path}?action=system:candelete`, headers: { 'if-match': 'W/"12345"' } }, 'has changed since ETag 12345'],
            [{ url: `${wo.path}?action=system:candelete`, headers: { transactionid: 'question-1' } }, 'transactionid is not carried out'],
            [{ url: `${wo.path}?action=wsmethod:changeStatus`, headers: { 'content-type': 'application/json', 'content-length': '17' }, payload: '{"status":"APPR"}' }, 'carries a body']
        ];
        for (const [options, text] of cases) {
            const res = await inject(options);
            expect(res.statusCode, `${options.method ?? 'GET'} ${options.url} ${JSON.stringify(options.payload)}`).to.be.within(400, 415);
            expect(res.statusCode, String(options.url)).to.not.equal(404);
            expect(res.result.Error.message, String(options.url)).to.contain(text);
        }

        expect(await read(wo.path)).to.equal(earlier);
    });

    test('an action needs its right: 403 for a user without it, 404 for a record the user cannot see; nothing written', async () => {

        const wo = await newWorkOrder();
        const mary = maxauth('mary', 'mary');
        await t.server.app.osprey.users.create({ userid: 'MARY', password: 'mary', groups: ['EVERYONE'] });
        const refused = await t.inject({ method: 'POST', url: `${wo.path}?action=wsmethod:changeStatus`, headers: { ...mary }, payload: { status: 'APPR' } });
        expect(refused.statusCode).to.equal(403);
        expect(refused.result.Error.message).to.contain('wsmethod:changeStatus');
        const missing = await inject({ method: 'POST', url: `${wos}/_QkVERk9SRC85OTk5OTk-?action=wsmethod:changeStatus`, payload: { status: 'APPR' } });
        expect(missing.statusCode).to.equal(404);
        expect((await read(wo.path)).status).to.equal('WAPPR');
        // A question anyone who reads may ask: MARY reads work orders but may not delete them.
        const question = await t.inject({ url: `${wo.path}?action=system:candelete`, headers: { ...mary } });
        expect(question.statusCode).to.equal(200);
        expect(question.result.candelete).to.equal(false);
        expect(question.result.reason).to.contain('not authorized');
    });

    test('a GET from another site\'s page runs no action (the session cookie of a browser would ride along)', async () => {

        const wo = await newWorkOrder();
        for (const site of ['cross-site', 'same-site']) {
            const res = await inject({ url: `${wo.path}?action=wsmethod:changeStatus`, headers: { 'sec-fetch-site': site } });
            expect(res.statusCode).to.equal(403);
            expect(res.result.Error.message).to.contain(`Sec-Fetch-Site: ${site}`);
        }

        expect((await inject({ url: `${wo.path}?action=system:candelete`, headers: { 'sec-fetch-site': 'same-origin' } })).statusCode).to.equal(200);
        // A POST without a body needs no content type, so no page asks first (a CORS preflight) before sending it:
        // from another site's page it runs nothing either, whether the browser says so by Sec-Fetch-Site or Origin.
        for (const headers of [{ 'sec-fetch-site': 'same-site' }, { 'sec-fetch-site': 'cross-site' }, { origin: 'http://evil.example' }, { origin: 'null' }]) {
            const res = await inject({ method: 'POST', url: `${wo.path}?action=wsmethod:changeStatus`, headers });
            expect(res.statusCode, JSON.stringify(headers)).to.equal(403);
            expect(res.result.Error.message).to.contain('The action wsmethod:changeStatus is not accepted from another site\'s page');
        }

        expect((await read(wo.path)).status).to.equal('WAPPR');
    });

    test('a plugin action: registered for a structure that exists, under a name no prototype has; its result must be JSON, else nothing of it is kept', async () => {

        expect(() => t.server.registerAction('NOSUCH', 'x', { handler: () => undefined })).to.throw(/not an object structure of this server/);
        for (const name of ['__proto__', 'constructor', 'wsmethod:__proto__']) {
            expect(() => t.server.registerAction('MXAPIWODETAIL', name, { handler: () => undefined }), name).to.throw(/is not/);
        }

        t.server.registerAction('MXAPIWODETAIL', 'circular', {
            handler: async ({ structure, record, write }) => {

                await write.update(structure.name, record!, { description: 'written before the cycle' });
                const answer: Record<string, unknown> = {};
                answer.self = answer;
                return answer;
            }
        });
        const wo = await newWorkOrder('before the cycle');
        const res = await inject({ method: 'POST', url: `${wo.path}?action=circular` });
        expect(res.statusCode).to.equal(500);
        expect(res.result.Error.reasonCode).to.equal('BMXAA1724E');
        expect((await read(wo.path)).description).to.equal('before the cycle');
    });

    test('system:candelete answers whether the record could be deleted now, and deletes nothing', async () => {

        const wo = await newWorkOrder();
        const res = await inject({ url: `${wo.path}?action=system:candelete` });
        expect(res.statusCode).to.equal(200);
        expect(res.result).to.equal({ candelete: true });
        expect((await inject({ url: wo.path })).statusCode).to.equal(200);
        expect((await inject({ url: `${wo.path}?action=system:candelete&properties=wonum` })).statusCode).to.equal(400);
    });

    test('a plugin action writes through the engine: the rules of a PATCH hold, and a refusal rolls the whole action back', async () => {

        const wo = await newWorkOrder('before');
        const res = await inject({ method: 'POST', url: `${wo.path}?action=retitle`, headers: { 'x-method-override': 'PATCH' }, payload: { description: 'after' } });
        expect(res.statusCode).to.equal(200);
        expect(res.result).to.equal({ retitled: true });
        expect((await read(wo.path)).description).to.equal('after');
        const tooLong = await inject({ method: 'POST', url: `${wo.path}?action=retitle`, payload: { description: 'x'.repeat(101) } });
        expect(tooLong.statusCode).to.equal(400);
        expect((await read(wo.path)).description).to.equal('after');
    });

    test('collection actions run by GET and POST; listreports still runs', async () => {

        const post = await inject({ method: 'POST', url: `${wos}?action=countstatus&lean=1`, headers: { 'x-method-override': 'PATCH' }, payload: { status: 'WAPPR' } });
        expect(post.statusCode).to.equal(200);
        expect(Number(post.result.count)).to.be.above(0);
        const get = await inject({ url: `${wos}?action=countstatus` });
        expect(get.statusCode).to.equal(400);
        expect(get.result.Error.message).to.contain('status');
        expect((await inject({ url: `${wos}?action=wsmethod:changeStatus` })).result.Error.message).to.contain('acts on one MXAPIWODETAIL record');
        expect((await inject({ url: `${wos}?action=listreports` })).statusCode).to.equal(200);
    });

    test('a bulk with an action runs it on each item\'s record, each item answered in order', async () => {

        const one = await newWorkOrder();
        const two = await newWorkOrder();
        const res = await inject({
            method: 'POST', url: `${wos}?action=wsmethod:changeStatus&lean=1`, headers: { 'x-method-override': 'BULK' },
            payload: [{ status: 'APPR', href: one.href }, { status: 'CLOSE', href: two.href, _bulkid: 'b2' }, { _data: { status: 'WSCH' }, _meta: { uri: two.href } }, { status: 'APPR' }, { status: 'APPR', href: one.href, _action: 'Add' }]
        });
        expect(res.statusCode).to.equal(200);
        expect(res.result.map((item: any) => item._responsemeta.status)).to.equal(['204', '400', '204', '400', '400']);
        expect(res.result[1]._responsemeta._bulkid).to.equal('b2');
        // An item that names two records, or carries keys beside _data, or a _meta of something else, is refused.
        const strict = await inject({
            method: 'POST', url: `${wos}?action=wsmethod:changeStatus`, headers: { 'x-method-override': 'BULK' },
            payload: [{ _data: { status: 'APPR' }, memo: 'beside', _meta: { uri: two.href } }, { status: 'APPR', href: one.href, _meta: { uri: two.href } }, { _data: { status: 'APPR' }, _meta: 'x' }, { _data: { status: 'APPR' }, _meta: { uri: two.href, method: 'DELETE' } }]
        });
        expect(strict.result.map((item: any) => item._responsemeta.status)).to.equal(['400', '400', '400', '400']);
        expect(strict.result[0]._responsedata.Error.message).to.contain('memo beside them');
        expect((await read(one.path)).status).to.equal('APPR');
        expect((await read(two.path)).status).to.equal('WSCH');

        // All or nothing: one bad item, nothing written.
        const three = await newWorkOrder();
        const all = await inject({
            method: 'POST', url: `${wos}?action=wsmethod:changeStatus`, headers: { 'x-method-override': 'BULK', allornothing: '1' },
            payload: [{ status: 'APPR', href: three.href }, { status: 'CLOSE', href: one.href }]
        });
        expect(all.result.map((item: any) => item._responsemeta.status)).to.equal(['424', '400']);
        expect((await read(three.path)).status).to.equal('WAPPR');
    });

    test('after commit, subscribers hear of the action and of what it wrote; of a failed one nothing', async () => {

        const wo = await newWorkOrder();
        const heard: any[] = [];
        const stop = t.server.onCommit((commit) => {

            heard.push({ writes: commit.writes.map((write) => [write.structure.name, write.operation, write.id]), actions: commit.actions.map((action) => [action.structure.name, action.name, action.id]) });
        });
        try {
            expect((await inject({ method: 'POST', url: `${wo.path}?action=wsmethod:changeStatus`, payload: { status: 'APPR' } })).statusCode).to.equal(204);
            expect((await inject({ method: 'POST', url: `${wo.path}?action=wsmethod:changeStatus`, payload: { status: 'CLOSE' } })).statusCode).to.equal(400);
            expect((await inject({ url: `${wo.path}?action=system:candelete` })).statusCode).to.equal(200);
        }
        finally {
            stop();
        }

        expect(heard).to.equal([{ writes: [['MXAPIWODETAIL', 'update', wo.id]], actions: [['MXAPIWODETAIL', 'wsmethod:changeStatus', wo.id]] }]);
    });

    test('allowedactions lists what this user may run on this record now', async () => {

        const wo = await newWorkOrder();
        const mine = await read(wo.path, 'allowedactions');
        expect(mine.allowedactions.changeStatus).to.include({ httpmethod: 'POST', type: 'wsmethod' });
        expect(mine.allowedactions.changeStatus.schema.required).to.equal(['status']);
        expect(mine.allowedactions.retitle).to.include({ type: 'action', description: 'Give the work order a new description' });
        expect(mine.allowedactions.countstatus).to.not.exist();
        // A closed work order's status cannot change any more.
        for (const status of ['APPR', 'INPRG', 'COMP', 'CLOSE']) {
            expect((await inject({ method: 'POST', url: `${wo.path}?action=wsmethod:changeStatus`, payload: { status } })).statusCode).to.equal(204);
        }

        expect((await read(wo.path, 'allowedactions')).allowedactions.changeStatus).to.not.exist();
        const mary = await t.inject({ url: `${wo.path}?oslc.select=allowedactions`, headers: maxauth('mary', 'mary') });
        expect(mary.result.allowedactions).to.equal({});
        expect((await t.inject({ url: `${wo.path}?oslc.select=allowedactions`, headers: maxadmin })).result.allowedactions).to.include('retitle');
        // Each record lists them under allowedactions: an alias, which would be left unused, is a 400 naming it.
        for (const select of ['allowedactions--aa,wonum', 'allowedactions--wonum,wonum']) {
            const aliased = await t.inject({ url: `${wo.path}?oslc.select=${select}`, headers: maxadmin });
            expect(aliased.statusCode, select).to.equal(400);
            expect(aliased.result.Error.message, select).to.contain('allowedactions takes no alias');
        }
    });
});
