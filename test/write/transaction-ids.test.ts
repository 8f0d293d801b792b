import * as Code from '@hapi/code';
import * as Lab from '@hapi/lab';
import Knex from 'knex';

import { testDatabases } from '../helpers/databases';
import { onEachDatabase } from '../helpers/experiments';
import { maxadmin, startTestServer, wilson } from '../helpers/server';
import { snapshot, type Snapshot } from '../helpers/tables';


const lab = exports.lab = Lab.script();
const { experiment, test } = lab;
const { expect } = Code;

const wos = '/maximo/oslc/os/mxapiwodetail';
const assets = '/maximo/oslc/os/mxapiasset';

type Item = { _responsemeta: { status: string; _bulkid?: string }; _responsedata?: { Error: { reasonCode: string; message: string } } };
const statuses = (result: unknown) => (result as Item[]).map((item) => item._responsemeta.status);

// issue 18 (seen 10, must do 6): a transactionid is its user's on one structure; a bulk's ids are recorded with
// what they stand for, so that a bulk sent again after a crash writes exactly the items not written.
onEachDatabase(lab, 'transactionid', (t) => {

    const knex = () => t.server.app.osprey.knex;
    const count = async (table: string, where: Record<string, unknown> = {}) => Number((await knex()(table).where(where).count({ n: '*' }))[0]!.n);
    const ids = async (like: string) => (await knex()('osprey_transaction').where('id', 'like', like).select('userid', 'objectstructure', 'id') as { userid: string; objectstructure: string; id: string }[])
        .map((row) => `${row.userid} ${row.objectstructure} ${row.id}`).sort();

    test('is scoped by user and structure: another user, or another structure, may use the same id; the same user again is a 409', async () => {

        const create = (headers: Record<string, string>, url: string, payload: Record<string, unknown>) => t.inject({ method: 'POST', url, headers: { ...headers, transactionid: 'scoped-1' }, payload });
        expect((await create(wilson, wos, { siteid: 'BEDFORD', description: 'Scoped by WILSON' })).statusCode).to.equal(201);
        expect((await create(maxadmin, wos, { siteid: 'BEDFORD', description: 'Scoped by MAXADMIN' })).statusCode).to.equal(201);
        expect((await create(maxadmin, assets, { assetnum: 'SCOPED-1', siteid: 'BEDFORD' })).statusCode).to.equal(201);

        const again = await create(wilson, wos, { siteid: 'BEDFORD', description: 'Scoped by WILSON' });
        expect(again.statusCode).to.equal(409);
        expect(again.result.Error).to.include({ reasonCode: 'BMXAA5646E' });
        expect((await create(maxadmin, assets, { assetnum: 'SCOPED-2', siteid: 'BEDFORD' })).statusCode).to.equal(409);

        expect(await count('workorder', { description: 'Scoped by WILSON' })).to.equal(1);
        expect(await count('workorder', { description: 'Scoped by MAXADMIN' })).to.equal(1);
        expect(await count('asset', { assetnum: 'SCOPED-2' })).to.equal(0);
        expect(await ids('scoped-1')).to.equal(['MAXADMIN mxapiasset scoped-1', 'MAXADMIN mxapiwodetail scoped-1', 'WILSON mxapiwodetail scoped-1']);
    });

    test('an id longer than 200 characters, or holding # (a bulk item\'s mark), is refused before anything runs', async () => {

        const before = await count('workorder');
        for (const id of ['x'.repeat(201), 'T9#1', 'tab\tid']) {
            const res = await t.inject({ method: 'POST', url: wos, headers: { ...wilson, transactionid: id }, payload: { siteid: 'BEDFORD', description: 'refused id' } });
            expect(res.statusCode, id).to.equal(400);
            expect(res.result.Error.message).to.contain('transactionid');
        }

        expect(await count('workorder')).to.equal(before);
        const longest = await t.inject({ method: 'POST', url: wos, headers: { ...wilson, transactionid: 'y'.repeat(200) }, payload: { siteid: 'BEDFORD', description: 'longest id' } });
        expect(longest.statusCode).to.equal(201);
    });

    test('an all-or-nothing bulk records its id with its items: one that fails leaves no id, and its retry is written', async () => {

        const headers = { ...wilson, 'x-method-override': 'BULK', allornothing: '1', transactionid: 'aon-retry-1' };
        const stored = await count('workorder');
        const failed = await t.inject({ method: 'POST', url: wos, headers, payload: [{ siteid: 'BEDFORD', description: 'AON 1' }, { siteid: 'NASHUA', description: 'x'.repeat(1000) }] });
        expect(statuses(failed.result)).to.equal(['424', '400']);
        expect(await count('workorder')).to.equal(stored);
        expect(await ids('aon-retry-1%')).to.equal([]);

        const retry = await t.inject({ method: 'POST', url: wos, headers, payload: [{ siteid: 'BEDFORD', description: 'AON 1' }, { siteid: 'NASHUA', description: 'AON 2' }] });
        expect(statuses(retry.result)).to.equal(['201', '201']);
        expect(await count('workorder')).to.equal(stored + 2);
        expect(await ids('aon-retry-1%')).to.equal(['WILSON mxapiwodetail aon-retry-1']);

        // The same bulk again is the request's 409, nothing written; so is a bulk without allornothing with its id.
        const again = await t.inject({ method: 'POST', url: wos, headers, payload: [{ siteid: 'BEDFORD', description: 'AON 1' }] });
        expect(again.statusCode).to.equal(409);
        const eachAlone = await t.inject({ method: 'POST', url: wos, headers: { ...headers, allornothing: '0' }, payload: [{ siteid: 'BEDFORD', description: 'AON 1' }] });
        expect(eachAlone.statusCode).to.equal(409);
        expect(await count('workorder')).to.equal(stored + 2);
        expect(await ids('aon-retry-1%')).to.equal(['WILSON mxapiwodetail aon-retry-1']);
    });

    test('a bulk without allornothing records ID#n per item: sent again after a crash, it writes exactly the items not written', async () => {

        const headers = { ...wilson, 'x-method-override': 'BULK', transactionid: 'crash-1' };
        const payload = Array.from({ length: 6 }, (_, i) => ({ siteid: 'BEDFORD', wonum: `CRASH-${i + 1}`, description: `Crash item ${i + 1}`, _bulkid: `b${i + 1}` }));

        // The crash: the server wrote items 1 and 2 (each with its id, in its own transaction) and stopped. The
        // first send is cut to those items, as the server had committed exactly them.
        const first = await t.inject({ method: 'POST', url: wos, headers, payload: payload.slice(0, 2) });
        expect(statuses(first.result)).to.equal(['201', '201']);
        // And item 4 too, as another server of the cluster would have before stopping: its id recorded with it.
        const before: Snapshot = await snapshot(t);
        await knex().transaction(async (trx) => {

            await trx('osprey_transaction').insert({ id: 'crash-1#4', userid: 'WILSON', objectstructure: 'mxapiwodetail', created: Date.now() });
        });
        const fourth = await t.inject({ method: 'POST', url: wos, headers: { ...wilson, 'x-method-override': 'BULK' }, payload: [payload[3]] });
        expect(statuses(fourth.result)).to.equal(['201']);
        const recorded = await snapshot(t);
        const workorders = await count('workorder');
        expect(await ids('crash-1%')).to.equal(['WILSON mxapiwodetail crash-1#1', 'WILSON mxapiwodetail crash-1#2', 'WILSON mxapiwodetail crash-1#4']);

        // The retry: every item is answered; those written before are 409 BMXAA5646E, the others are written now.
        const retry = await t.inject({ method: 'POST', url: wos, headers, payload });
        expect(retry.statusCode).to.equal(200);
        expect(statuses(retry.result)).to.equal(['409', '409', '201', '409', '201', '201']);
        expect((retry.result as Item[]).map((item) => item._responsemeta._bulkid)).to.equal(['b1', 'b2', 'b3', 'b4', 'b5', 'b6']);
        expect((retry.result as Item[])[0]!._responsedata!.Error).to.include({ reasonCode: 'BMXAA5646E', message: 'BMXAA5646E - The transaction crash-1#1 has already been processed.' });
        expect(await count('workorder')).to.equal(workorders + 3);
        for (const [i, item] of payload.entries()) {
            expect(await count('workorder', { wonum: item.wonum })).to.equal(1);
            expect(await count('workorder', { description: `Crash item ${i + 1}` })).to.equal(1);
        }

        expect(await ids('crash-1%')).to.equal([1, 2, 3, 4, 5, 6].map((n) => `WILSON mxapiwodetail crash-1#${n}`));

        // Only the missing rows were added: every row there before is there unchanged, and the other tables too.
        const after = await snapshot(t);
        for (const [table, rows] of Object.entries(recorded)) {
            const added = after[table]!.filter((row) => !rows.some((old) => JSON.stringify(old) === JSON.stringify(row)));
            expect(after[table]!.length).to.equal(rows.length + added.length);
            if (table !== 'workorder' && table !== 'wostatus') {
                expect(added, table).to.equal([]);
            }
        }

        expect(after.workorder!.length - recorded.workorder!.length).to.equal(3);
        expect(after.workorder!.length - before.workorder!.length).to.equal(4);

        // Sent a third time, nothing is left to write: every item a 409, and nothing changes.
        const third = await t.inject({ method: 'POST', url: wos, headers, payload });
        expect(statuses(third.result)).to.equal(['409', '409', '409', '409', '409', '409']);
        expect(await snapshot(t)).to.equal(after);
        expect(await count('osprey_transaction', { userid: 'WILSON' })).to.be.at.least(6);

        // An item that fails does not use its id up: sent again, it is written.
        const failing = await t.inject({ method: 'POST', url: wos, headers: { ...headers, transactionid: 'crash-2' }, payload: [{ siteid: 'BEDFORD', wonum: 'CRASH-7', description: 'x'.repeat(1000) }, { siteid: 'BEDFORD', wonum: 'CRASH-8' }] });
        expect(statuses(failing.result)).to.equal(['400', '201']);
        const fixed = await t.inject({ method: 'POST', url: wos, headers: { ...headers, transactionid: 'crash-2' }, payload: [{ siteid: 'BEDFORD', wonum: 'CRASH-7' }, { siteid: 'BEDFORD', wonum: 'CRASH-8' }] });
        expect(statuses(fixed.result)).to.equal(['201', '409']);
        expect(await count('workorder', { wonum: 'CRASH-7' })).to.equal(1);
        expect(await count('workorder', { wonum: 'CRASH-8' })).to.equal(1);
    });

    test('a bulk without a transactionid records nothing', async () => {

        const stored = await count('osprey_transaction');
        const res = await t.inject({ method: 'POST', url: wos, headers: { ...wilson, 'x-method-override': 'BULK' }, payload: [{ siteid: 'BEDFORD', description: 'No id' }] });
        expect(statuses(res.result)).to.equal(['201']);
        expect(await count('osprey_transaction')).to.equal(stored);
    });
});

for (const database of testDatabases) {
    experiment(`transactionid table upgrade (${database.name})`, () => {

        test('a database made when ids were global is upgraded in place: its ids refuse everyone until they expire', async () => {

            const created = await database.create();
            const old = Knex({ client: database.name === 'sqlite' ? 'better-sqlite3' : 'pg', connection: database.name === 'sqlite' ? { filename: created.url.slice('sqlite:'.length) } : created.url, useNullAsDefault: true });
            await old.schema.createTable('osprey_transaction', (table) => {

                table.string('id', 250).primary();
                table.bigInteger('created').notNullable().index();
            });
            await old('osprey_transaction').insert([{ id: 'legacy-1', created: Date.now() }, { id: 'legacy-2', created: Date.now() - 25 * 3600_000 }]);
            await old.destroy();

            const server = await startTestServer(database, { databaseUrl: created.url });
            try {
                const knex = server.server.app.osprey.knex;
                expect(await knex('osprey_transaction').orderBy('id').select('id', 'userid', 'objectstructure')).to.equal([
                    { id: 'legacy-1', userid: '', objectstructure: '' },
                    { id: 'legacy-2', userid: '', objectstructure: '' }
                ]);
                const create = (headers: Record<string, string>, id: string) => server.inject({ method: 'POST', url: wos, headers: { ...headers, transactionid: id }, payload: { siteid: 'BEDFORD' } });
                // Whose legacy-1 was is unknown: refused to anyone while it is remembered.
                expect((await create(wilson, 'legacy-1')).statusCode).to.equal(409);
                expect((await create(maxadmin, 'legacy-1')).statusCode).to.equal(409);
                // legacy-2 expired: used again, it is recorded with its user and structure.
                expect((await create(wilson, 'legacy-2')).statusCode).to.equal(201);
                expect((await create(maxadmin, 'legacy-2')).statusCode).to.equal(201);
                expect(await knex('osprey_transaction').where({ id: 'legacy-2' }).orderBy('userid').pluck('userid')).to.equal(['MAXADMIN', 'WILSON']);
                expect((await create(wilson, 'legacy-2')).statusCode).to.equal(409);
                // A node of the older version records an id without its scope: the key still refuses it twice.
                await knex('osprey_transaction').insert({ id: 'legacy-3', created: Date.now() });
                await expect(knex('osprey_transaction').insert({ id: 'legacy-3', created: Date.now() })).to.reject();
            }
            finally {
                await server.server.stop();
                await created.drop();
            }
        });
    });
}
