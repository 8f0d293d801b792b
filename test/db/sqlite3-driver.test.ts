import * as Code from '@hapi/code';
import * as Lab from '@hapi/lab';

import { testDatabases } from '../helpers/databases';
import { startTestServer, wilson, type TestServer } from '../helpers/server';


const { experiment, test, before, after } = exports.lab = Lab.script();
const { expect } = Code;

const wos = '/maximo/oslc/os/mxapiwodetail';

// The sqlite3 driver stays selectable (OSPREY_SQLITE_DRIVER): the write path's direct statements and its
// transactions run through that client's _query too.
experiment('the sqlite3 driver', () => {

    let t: TestServer;
    before(async () => {

        t = await startTestServer(testDatabases[0]!, { sqliteDriver: 'sqlite3' });
    });

    after(() => t.stop());

    test('reads, creates, updates and rolls back a failed write', async () => {

        const read = await t.inject({ url: `${wos}/_QkVERk9SRC8xMDAw?oslc.select=wonum`, headers: wilson });
        expect(read.result.wonum).to.equal('1000');

        const created = await t.inject({ method: 'POST', url: wos, headers: { ...wilson, properties: 'wonum,description,assetnum' }, payload: { siteid: 'BEDFORD', description: 'On sqlite3', assetnum: '11002' } });
        expect(created.statusCode).to.equal(201);
        expect(created.result).to.include({ description: 'On sqlite3', assetnum: '11002' });

        const updated = await t.inject({ method: 'PATCH', url: new URL(created.headers.location as string).pathname, headers: { ...wilson, properties: 'description' }, payload: { description: 'Changed on sqlite3' } });
        expect(updated.result.description).to.equal('Changed on sqlite3');

        const stored = Number((await t.server.app.osprey.knex('workorder').count({ n: '*' }))[0]!.n);
        const refused = await t.inject({ method: 'POST', url: wos, headers: { ...wilson, 'x-method-override': 'BULK', allornothing: '1' }, payload: [{ siteid: 'BEDFORD' }, { siteid: 'BEDFORD', worktype: 'NOPE' }] });
        expect(refused.result.map((item: { _responsemeta: { status: string } }) => item._responsemeta.status)).to.equal(['424', '400']);
        expect(Number((await t.server.app.osprey.knex('workorder').count({ n: '*' }))[0]!.n)).to.equal(stored);
    });
});
