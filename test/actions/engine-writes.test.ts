import * as Code from '@hapi/code';
import type * as Hapi from '@hapi/hapi';
import * as Lab from '@hapi/lab';
import Joi from 'joi';

import { jsonSchemaOf } from '../../src/actions/json-schema';
import { onEachDatabase } from '../helpers/experiments';
import { maxadmin, wilson } from '../helpers/server';


const lab = exports.lab = Lab.script();
const { experiment, test, before } = lab;
const { expect } = Code;

const home = '/maximo/oslc';
const wos = `${home}/os/mxapiwodetail`;

experiment('the JSON schema allowedactions shows of a payload', () => {

    test('objects, arrays, enumerations and required keys; what has no JSON-schema form is any value', () => {

        const schema = Joi.object({
            kind: Joi.string().valid('A', 'B').required().description('one of two'),
            tags: Joi.array().items(Joi.string()),
            nested: Joi.object({ at: Joi.date() }),
            either: Joi.alternatives(Joi.string(), Joi.number())
        });
        expect(jsonSchemaOf(schema)).to.equal({
            type: 'object',
            properties: {
                kind: { type: 'string', description: 'one of two', enum: ['A', 'B'] },
                tags: { type: 'array', items: { type: 'string' } },
                nested: { type: 'object', properties: { at: { type: 'string', format: 'date-time' } } },
                either: {}
            },
            required: ['kind']
        });
    });
});

// A plugin action's writes through the engine (src/actions/engine-writes.ts): create, merge, sync and remove, by id
// or by key values, each with the user's own rights; and the bulk action's refusals before anything runs.
onEachDatabase(lab, 'an action\'s writes through the engine, and bulk actions', { timeout: 120_000 }, (t) => {

    const inject = (options: Hapi.ServerInjectOptions, headers: Record<string, string> = wilson): Promise<Hapi.ServerInjectResponse<any>> => t.inject({ ...options, headers: { ...headers, ...options.headers as Record<string, string> } });
    const read = async (path: string) => (await inject({ url: `${path}?oslc.select=wonum,siteid,description,status` })).result;

    before(() => {

        // Makes a copy of its work order, renames the copy by its keys (merge), syncs a third by keys, removes the
        // copy: each through the engine, in the action's one transaction.
        t.server.registerAction('MXAPIWODETAIL', 'copyaround', {
            schema: Joi.object({ wonum: Joi.string().required() }),
            handler: async ({ record, payload, write }) => {

                const copy = await write.create('MXAPIWODETAIL', { siteid: record!.siteid, description: `copy of ${String(record!.wonum)}` });
                await write.merge('MXAPIWODETAIL', { siteid: copy.siteid, wonum: copy.wonum }, { description: 'renamed copy' });
                const synced = await write.sync('MXAPIWODETAIL', { siteid: record!.siteid, wonum: payload.wonum, description: 'synced' });
                const removed = await write.remove('MXAPIWODETAIL', { siteid: copy.siteid, wonum: copy.wonum });
                return { copy: copy.wonum, removed: removed.description, synced: synced.wonum };
            }
        });
        t.server.registerAction('MXAPIWODETAIL', 'writeelsewhere', { handler: async ({ write }) => await write.create('NOSUCHSTRUCTURE', {}) });
        // Writes on other structures than the action's own, which their rules refuse (the last administrator kept).
        t.server.registerAction('MXAPIWODETAIL', 'retitleanddeactivate', {
            handler: async ({ record, write }) => {

                await write.merge('MXAPIWODETAIL', record!, { description: 'retitled before the refusal' });
                await write.merge('MXAPIMAXUSER', { userid: 'MAXADMIN' }, { status: 'INACTIVE' });
            }
        });
        t.server.registerAction('MXAPIWODETAIL', 'sayhello', { handler: () => 'hello' });
        t.server.registerAction('MXAPIWODETAIL', 'thenthrows', {
            handler: ({ record, write, afterCommit }) => {

                afterCommit(() => {

                    throw new Error('after the commit');
                });
                return write.merge('MXAPIWODETAIL', record!, { description: 'kept, whatever runs after' }).then(() => ({ done: true }));
            }
        });
        t.server.registerAction('MXAPIWODETAIL', 'saynull', { handler: () => null });
        t.server.registerAction('MXAPIWODETAIL', 'dropadmins', { handler: async ({ write }) => await write.remove('MXAPIMAXGROUP', { groupname: 'MAXADMIN' }) });
    });

    const newWorkOrder = async () => {

        const res = await inject({ method: 'POST', url: wos, payload: { siteid: 'BEDFORD', description: 'engine writes' } });
        return new URL(res.headers.location as string).pathname;
    };

    test('create, merge by keys, sync and remove run as the engine\'s, in one transaction', async () => {

        const path = await newWorkOrder();
        const res = await inject({ method: 'POST', url: `${path}?action=copyaround`, payload: { wonum: 'ENGINE-SYNC' } });
        expect(res.statusCode, res.payload).to.equal(200);
        expect(res.result.removed).to.equal('renamed copy');
        expect(res.result.synced).to.equal('ENGINE-SYNC');
        const copy = await inject({ url: `${wos}?oslc.where=${encodeURIComponent(`wonum="${res.result.copy}"`)}&count=1` });
        expect(copy.result.totalCount).to.equal(0);
        const synced = await inject({ url: `${wos}?oslc.where=${encodeURIComponent('wonum="ENGINE-SYNC"')}&oslc.select=description` });
        expect(synced.result.member[0].description).to.equal('synced');

        // A second run: the sync now updates ENGINE-SYNC; the whole action answers.
        expect((await inject({ method: 'POST', url: `${path}?action=copyaround`, payload: { wonum: 'ENGINE-SYNC' } })).statusCode).to.equal(200);
    });

    test('a handler writing to a structure the server does not have fails whole, and nothing of it is kept', async () => {

        const path = await newWorkOrder();
        const earlier = await read(path);
        const res = await inject({ method: 'POST', url: `${path}?action=writeelsewhere` });
        expect(res.statusCode).to.equal(500);
        expect(res.result.Error.message).to.not.contain('NOSUCHSTRUCTURE');
        expect(await read(path)).to.equal(earlier);
    });

    test('a structure\'s rules hold for an action\'s writes on it, whichever structure the action is on', async () => {

        const path = await newWorkOrder();
        const earlier = await read(path);
        const users = await inject({ url: `${home}/os/mxapimaxuser?oslc.select=userid,status&oslc.orderBy=%2Buserid` }, maxadmin);
        const groups = await inject({ url: `${home}/os/mxapimaxgroup?oslc.select=groupname&count=1` }, maxadmin);
        for (const action of ['retitleanddeactivate', 'dropadmins']) {
            const res = await inject({ method: 'POST', url: `${path}?action=${action}` }, maxadmin);
            expect(res.statusCode, `${action} ${res.payload}`).to.equal(400);
            expect(res.result.Error.message).to.contain('would leave no active administrator');
        }

        // An all-or-nothing bulk of it answers item by item: the last item carries the refusal made as it commits.
        const other = await newWorkOrder();
        const bulk = await inject({ method: 'POST', url: `${wos}?action=retitleanddeactivate`, headers: { 'x-method-override': 'BULK', allornothing: '1' }, payload: [{ href: `http://localhost${path}` }, { href: `http://localhost${other}` }] }, maxadmin);
        expect(bulk.statusCode, bulk.payload).to.equal(200);
        expect(bulk.result.map((item: { _responsemeta: { status: string } }) => item._responsemeta.status)).to.equal(['424', '400']);

        // Nothing of any was kept: the work order, the users and the groups are as they were.
        expect(await read(path)).to.equal(earlier);
        expect((await inject({ url: `${home}/os/mxapimaxuser?oslc.select=userid,status&oslc.orderBy=%2Buserid` }, maxadmin)).result).to.equal(users.result);
        expect((await inject({ url: `${home}/os/mxapimaxgroup?oslc.select=groupname&count=1` }, maxadmin)).result).to.equal(groups.result);

        // system:candelete answers what the delete's commit would refuse, and deletes nothing.
        for (const target of [`${home}/os/mxapimaxuser/_TUFYQURNSU4-`, `${home}/os/mxapimaxgroup/_TUFYQURNSU4-`]) {
            const asked = await inject({ url: `${target}?action=system:candelete` }, maxadmin);
            expect(asked.statusCode, asked.payload).to.equal(200);
            expect(asked.result.candelete, target).to.be.false();
            expect(asked.result.reason).to.contain('would leave no active administrator');
            expect((await inject({ url: `${target}?oslc.select=*` }, maxadmin)).statusCode).to.equal(200);
        }
    });

    test('what a handler runs after the commit does not change the answer when it throws; the write is kept', async () => {

        const path = await newWorkOrder();
        const res = await inject({ method: 'POST', url: `${path}?action=thenthrows` });
        expect(res.statusCode, res.payload).to.equal(200);
        expect(res.result).to.equal({ done: true });
        expect((await read(path)).description).to.equal('kept, whatever runs after');
    });

    test('an all-or-nothing bulk action whose transactionid was recorded is the request\'s own 409, before any item', async () => {

        const path = await newWorkOrder();
        const send = () => inject({ method: 'POST', url: `${wos}?action=sayhello`, headers: { 'x-method-override': 'BULK', allornothing: '1', transactionid: 'engine-writes-once' }, payload: [{ href: `http://localhost${path}` }] });
        const first = await send();
        expect(first.statusCode, first.payload).to.equal(200);
        const again = await send();
        expect(again.statusCode, again.payload).to.equal(409);
    });

    test('a result that is no object is answered as JSON; null, as nothing, is a 204', async () => {

        const path = await newWorkOrder();
        const hello = await inject({ method: 'POST', url: `${path}?action=sayhello` });
        expect(hello.statusCode).to.equal(200);
        expect(hello.headers['content-type']).to.equal('application/json; charset=utf-8');
        expect(hello.payload).to.equal('"hello"');
        const nothing = await inject({ method: 'POST', url: `${path}?action=saynull` });
        expect(nothing.statusCode).to.equal(204);
        expect(nothing.payload).to.equal('');
    });

    test('changeStatus where there are no statuses, or no memo to keep, is a 400 naming why', async () => {

        const person = (await inject({ url: `${home}/os/mxapiperson?oslc.pageSize=1` }, maxadmin)).result.member[0].href;
        const noStatuses = await inject({ method: 'POST', url: `${new URL(person).pathname}?action=wsmethod:changeStatus`, payload: { status: 'ACTIVE' } }, maxadmin);
        expect(noStatuses.statusCode).to.equal(400);
        expect(noStatuses.result.Error.message).to.contain('declares no statuses');
        const location = (await inject({ url: `${home}/os/mxapilocation?oslc.pageSize=1&oslc.select=status,allowedactions` }, maxadmin)).result.member[0];
        const noMemo = await inject({ method: 'POST', url: `${new URL(location.href).pathname}?action=wsmethod:changeStatus`, payload: { status: 'DECOMMISSIONED', memo: 'why' } }, maxadmin);
        expect(noMemo.statusCode).to.equal(400);
        expect(noMemo.result.Error.message).to.contain('keeps no memo');
    });

    test('a bulk action: refused whole when it is no array or a question; an item that is no object is its own 400', async () => {

        const path = await newWorkOrder();
        const href = `http://localhost${path}`;
        const bulk = (payload: unknown, url = `${wos}?action=wsmethod:changeStatus`, headers: Record<string, string> = {}) => inject({ method: 'POST', url, headers: { 'x-method-override': 'BULK', ...headers }, payload: payload as object });
        const notArray = await bulk({ status: 'APPR', href });
        expect(notArray.statusCode).to.equal(400);
        expect(notArray.result.Error.message).to.contain('JSON array');
        const question = await bulk([{ href }], `${wos}?action=system:candelete`);
        expect(question.statusCode).to.equal(400);
        expect(question.result.Error.message).to.contain('answers a question about one record');
        const items = await bulk([7, { _meta: { uri: href } }]);
        expect(items.result.map((item: any) => item._responsemeta.status)).to.equal(['400', '400']);
        expect(items.result[0]._responsedata.Error.message).to.contain('is a JSON object');
        expect(items.result[1]._responsedata.Error.message).to.contain('status');

        // All or nothing, with an item that cannot be read: nothing written, each item told.
        const all = await bulk([{ status: 'APPR', href }, 'x'], undefined, { allornothing: '1' });
        expect(all.result.map((item: any) => item._responsemeta.status)).to.equal(['424', '400']);
        expect((await read(path)).status).to.equal('WAPPR');
        const whole = await bulk([{ status: 'APPR', href }], undefined, { allornothing: '1' });
        expect(whole.result.map((item: any) => item._responsemeta.status)).to.equal(['204']);

        // A transactionid: each item recorded as ID#n; the same bulk again answers 409 for the item written.
        const id = `bulk-action-${Date.now()}`;
        const first = await bulk([{ status: 'INPRG', href }], undefined, { transactionid: id });
        expect(first.result.map((item: any) => item._responsemeta.status)).to.equal(['204']);
        const again = await bulk([{ status: 'INPRG', href }], undefined, { transactionid: id });
        expect(again.result.map((item: any) => item._responsemeta.status)).to.equal(['409']);
        expect((await read(path)).status).to.equal('INPRG');
    });
});
