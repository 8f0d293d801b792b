import * as Code from '@hapi/code';
import type * as Hapi from '@hapi/hapi';
import * as Lab from '@hapi/lab';

import { testDatabases } from '../helpers/databases';
import { maxadmin, maxauth, startTestServer, wilson, type TestServer } from '../helpers/server';


const lab = exports.lab = Lab.script();
const { experiment, test, before, after, beforeEach } = lab;
const { expect } = Code;

// Issue 34: a change to a user's credentials holds on every node at its very next request. Two servers share one
// database (the second started on the first's URL), each remembering logins as a node does; every change is made
// on node A, and node B is asked right after it, with nothing in between.

const cookieOf = (res: Hapi.ServerInjectResponse) => String(res.raw.res.getHeader('set-cookie') ?? '').split(';')[0]!;

for (const database of testDatabases) {
    experiment(`credential changes on every node (${database.name})`, { timeout: 60_000 }, () => {

        let a: TestServer;
        let b: TestServer;

        before(async () => {

            a = await startTestServer(database, { loginAttempts: 3 });
            b = await startTestServer(database, { databaseUrl: a.options.databaseUrl, loginAttempts: 3 });
        });

        after(async () => {

            await b?.stop();
            await a?.stop();
        });

        // Each test's failures are its own: all come from one address, whose limit the tests would reach together.
        beforeEach(() => a.server.app.osprey.knex('osprey_loginfailure').delete());

        const whoami = (node: TestServer, headers: Record<string, string>) => node.inject({ url: '/maximo/oslc/whoami', headers });
        const status = async (node: TestServer, headers: Record<string, string>) => (await whoami(node, headers)).statusCode;
        const knex = () => a.server.app.osprey.knex;
        const users = () => a.server.app.osprey.users;
        const keyOf = async (node: TestServer, headers: Record<string, string>) => (await node.inject({ method: 'POST', url: '/maximo/oslc/apitoken/get', headers })).result.apikey as string;
        // A session B has taken up (a row), and one B offered that was never used.
        const sessions = async (headers: Record<string, string>) => {

            const used = cookieOf(await whoami(a, headers));
            expect(await status(b, { cookie: used })).to.equal(200);
            return { used, unused: cookieOf(await whoami(b, headers)) };
        };

        const userRow = (userid: string) => knex()('osprey_user').where({ userid }).first();
        const count = async (table: string, userid: string) => Number((await knex()(table).where({ userid }).count({ n: '*' }))[0]!.n);

        test('a new password: the old one is refused on the other node, the user\'s sessions end there, API keys go on', async () => {

            await users().create({ userid: 'anna', password: 'anna-old-1', groups: ['EVERYONE'] });
            const old = maxauth('anna', 'anna-old-1');
            const key = await keyOf(a, old);
            expect(await status(b, old)).to.equal(200);                     // remembered on B
            expect(await status(b, { apikey: key })).to.equal(200);
            const { used, unused } = await sessions(old);
            const others = { maxadmin: await userRow('MAXADMIN'), wilson: await userRow('WILSON') };

            expect(await users().setPassword('anna', 'anna-new-2')).to.be.true();
            expect(await status(b, old)).to.equal(401);
            expect(await status(b, { cookie: used })).to.equal(401);
            expect(await status(b, { cookie: unused })).to.equal(401);
            expect(await status(b, { apikey: key })).to.equal(200);
            expect(await status(b, maxauth('anna', 'anna-new-2'))).to.equal(200);
            expect(await status(a, old)).to.equal(401);
            expect(await count('osprey_session', 'ANNA')).to.equal(0);
            // Only ANNA changed.
            expect({ maxadmin: await userRow('MAXADMIN'), wilson: await userRow('WILSON') }).to.equal(others);
            expect(await status(b, wilson)).to.equal(200);
        });

        test('a password set by hand in SQL ends the old password and the sessions too', async () => {

            await users().create({ userid: 'hand', password: 'hand-old-1', groups: ['EVERYONE'] });
            const old = maxauth('hand', 'hand-old-1');
            expect(await status(b, old)).to.equal(200);
            const { used } = await sessions(old);
            await knex()('osprey_user').where({ userid: 'HAND' }).update({ passwordhash: (await userRow('ANNA')).passwordhash });
            expect(await status(b, old)).to.equal(401);
            expect(await status(b, { cookie: used })).to.equal(401);
            expect(await status(b, maxauth('hand', 'anna-new-2'))).to.equal(200);
        });

        test('deactivation holds at once on the other node, for passwords, keys and sessions', async () => {

            await users().create({ userid: 'ben', password: 'ben-pass-1', groups: ['EVERYONE'] });
            const ben = maxauth('ben', 'ben-pass-1');
            const key = await keyOf(a, ben);
            expect(await status(b, ben)).to.equal(200);
            expect(await status(b, { apikey: key })).to.equal(200);
            const { used } = await sessions(ben);

            expect(await users().setStatus('ben', 'INACTIVE')).to.be.true();
            expect(await status(b, ben)).to.equal(401);
            expect(await status(b, { apikey: key })).to.equal(401);
            expect(await status(b, { cookie: used })).to.equal(401);
            expect((await userRow('BEN')).status).to.equal('INACTIVE');

            // Active again: the password logs in; the key and the session stay over (deactivation deleted them).
            expect(await users().setStatus('ben', 'ACTIVE')).to.be.true();
            expect(await status(b, ben)).to.equal(200);
            expect(await status(b, { apikey: key })).to.equal(401);
            expect(await status(b, { cookie: used })).to.equal(401);
        });

        test('deletion removes the user\'s keys and sessions in its transaction; a user made again under the name has none of them', async () => {

            await users().create({ userid: 'carl', password: 'carl-pass-1', groups: ['EVERYONE'] });
            const carl = maxauth('carl', 'carl-pass-1');
            const key = await keyOf(a, carl);
            expect(await status(b, { apikey: key })).to.equal(200);
            expect(await status(b, carl)).to.equal(200);
            const { used, unused } = await sessions(carl);
            const wilsonKey = await keyOf(a, wilson);
            const keyRows = await count('apikeytoken', 'WILSON');

            expect(await users().remove('carl')).to.be.true();
            expect(await status(b, { apikey: key })).to.equal(401);
            expect(await status(b, carl)).to.equal(401);
            expect(await status(b, { cookie: used })).to.equal(401);
            expect(await count('apikeytoken', 'CARL')).to.equal(0);
            expect(await count('osprey_session', 'CARL')).to.equal(0);
            expect(await count('osprey_groupuser', 'CARL')).to.equal(0);
            expect(await userRow('CARL')).to.not.exist();
            expect(await count('apikeytoken', 'WILSON')).to.equal(keyRows);
            expect(await status(b, { apikey: wilsonKey })).to.equal(200);
            expect(await users().remove('carl')).to.be.false();

            // The same name and password again: a new user, whom the old key and sessions do not log in.
            await users().create({ userid: 'carl', password: 'carl-pass-1', groups: ['EVERYONE'] });
            expect(await status(b, { apikey: key })).to.equal(401);
            expect(await status(b, { cookie: used })).to.equal(401);
            expect(await status(b, { cookie: unused })).to.equal(401);
            expect(await status(b, carl)).to.equal(200);
        });

        test('a user deactivated and reactivated by hand in SQL gets a new stamp: the old sessions stay over', async () => {

            await users().create({ userid: 'hana', password: 'hana-pass-1', groups: ['EVERYONE'] });
            const hana = maxauth('hana', 'hana-pass-1');
            const key = await keyOf(a, hana);
            const { used, unused } = await sessions(hana);
            const others = { maxadmin: await userRow('MAXADMIN'), wilson: await userRow('WILSON') };
            const row = await userRow('HANA');

            await knex()('osprey_user').where({ userid: 'HANA' }).update({ status: 'INACTIVE' });
            const inactive = await userRow('HANA');
            expect(inactive.credstamp).to.not.equal(row.credstamp);
            expect({ ...inactive, credstamp: row.credstamp }).to.equal({ ...row, status: 'INACTIVE' });
            expect(await status(b, hana)).to.equal(401);
            expect(await status(b, { apikey: key })).to.equal(401);

            await knex()('osprey_user').where({ userid: 'HANA' }).update({ status: 'ACTIVE' });
            expect(await status(b, { cookie: used })).to.equal(401);
            expect(await status(b, { cookie: unused })).to.equal(401);
            expect(await status(b, hana)).to.equal(200);
            // The key went with the deactivation, by hand in SQL too.
            expect(await status(b, { apikey: key })).to.equal(401);
            const fresh = await sessions(hana);

            // A change of neither status nor password keeps the stamp, and the sessions; a password set in SQL moves it.
            const stamp = (await userRow('HANA')).credstamp;
            await knex()('osprey_user').where({ userid: 'HANA' }).update({ displayname: 'Hana H', status: 'ACTIVE' });
            expect((await userRow('HANA')).credstamp).to.equal(stamp);
            expect(await status(b, { cookie: fresh.used })).to.equal(200);
            await knex()('osprey_user').where({ userid: 'HANA' }).update({ passwordhash: (await userRow('WILSON')).passwordhash });
            expect((await userRow('HANA')).credstamp).to.not.equal(stamp);
            expect(await status(b, { cookie: fresh.used })).to.equal(401);
            expect(await status(b, maxauth('hana', 'wilson'))).to.equal(200);
            expect({ maxadmin: await userRow('MAXADMIN'), wilson: await userRow('WILSON') }).to.equal(others);
        });

        test('a user deleted by hand in SQL takes their keys, sessions and groups along; one made again by SQL inherits none', async () => {

            await users().create({ userid: 'ida', password: 'ida-pass-1', groups: ['EVERYONE', 'MAXADMIN'] });
            const ida = maxauth('ida', 'ida-pass-1');
            const key = await keyOf(a, ida);
            const { used } = await sessions(ida);
            const row = await userRow('IDA');
            const wilsonKeys = await count('apikeytoken', 'WILSON');
            const wilsonSessions = await count('osprey_session', 'WILSON');
            expect(await count('apikeytoken', 'IDA')).to.equal(1);

            expect(await knex()('osprey_user').where({ userid: 'IDA' }).delete()).to.equal(1);
            expect(await count('apikeytoken', 'IDA')).to.equal(0);
            expect(await count('osprey_session', 'IDA')).to.equal(0);
            expect(await count('osprey_groupuser', 'IDA')).to.equal(0);
            expect(await count('apikeytoken', 'WILSON')).to.equal(wilsonKeys);
            expect(await count('osprey_session', 'WILSON')).to.equal(wilsonSessions);

            // Made again by hand, as the old row was but for its stamp: a new user, with no group to its name.
            await knex()('osprey_user').insert({ ...row, credstamp: '' });
            expect(await status(b, { apikey: key })).to.equal(401);
            expect(await status(b, { cookie: used })).to.equal(401);
            expect((await b.inject({ url: '/maximo/oslc/loginlocks', headers: ida })).statusCode).to.equal(403);
            expect(await count('apikeytoken', 'IDA')).to.equal(0);
        });

        test('a user made again over key rows a deleted user left behind (before this rule) cannot use them', async () => {

            await users().create({ userid: 'dora', password: 'dora-pass-1', groups: ['EVERYONE'] });
            const key = await keyOf(a, maxauth('dora', 'dora-pass-1'));
            // Deleted by hand: the user gone (and, since the trigger of credential-stamp.ts, the key row with it).
            await knex()('osprey_user').where({ userid: 'DORA' }).delete();
            expect(await status(b, { apikey: key })).to.equal(401);
            await users().create({ userid: 'dora', password: 'dora-pass-2', groups: ['EVERYONE'] });
            expect(await status(b, { apikey: key })).to.equal(401);
            expect(await count('apikeytoken', 'DORA')).to.equal(0);
        });

        test('a group change holds on the other node\'s next request, whatever the credential', async () => {

            await users().create({ userid: 'eve', password: 'eve-pass-1', groups: ['EVERYONE'] });
            const eve = maxauth('eve', 'eve-pass-1');
            const key = await keyOf(a, eve);
            const { used } = await sessions(eve);
            const locks = (headers: Record<string, string>) => b.inject({ url: '/maximo/oslc/loginlocks', headers });
            for (const headers of [eve, { apikey: key }, { cookie: used }] as Record<string, string>[]) {
                expect((await locks(headers)).statusCode).to.equal(403);
            }

            expect(await users().setGroups('eve', ['EVERYONE', 'MAXADMIN'])).to.be.true();
            for (const headers of [eve, { apikey: key }, { cookie: used }] as Record<string, string>[]) {
                expect((await locks(headers)).statusCode).to.equal(200);
            }

            expect((await whoami(b, { apikey: key })).result.userName).to.equal('EVE');
            expect(await users().setGroups('eve', ['EVERYONE'])).to.be.true();
            for (const headers of [eve, { apikey: key }, { cookie: used }] as Record<string, string>[]) {
                expect((await locks(headers)).statusCode).to.equal(403);
            }

            expect((await knex()('osprey_groupuser').where({ userid: 'EVE' }).select('groupname')).map((row) => row.groupname)).to.equal(['EVERYONE']);
            expect(await users().setGroups('nobody', ['EVERYONE'])).to.be.false();
        });

        test('a login lock set on one node refuses on the other; lifted on one, it is lifted on the other', async () => {

            await users().create({ userid: 'finn', password: 'finn-pass-1', groups: ['EVERYONE'] });
            const finn = maxauth('finn', 'finn-pass-1');
            for (let i = 0; i < 3; ++i) {
                expect(await status(a, maxauth('finn', `wrong-${i}`))).to.equal(401);
            }

            const refused = await whoami(b, finn);
            expect(refused.statusCode).to.equal(429);
            expect(refused.result.Error.reasonCode).to.equal('BMXAA1723E');
            const listed = await b.inject({ url: '/maximo/oslc/loginlocks', headers: maxadmin });
            expect(listed.result.member.filter((lock: { userid?: string }) => lock.userid === 'FINN')).to.have.length(1);

            expect((await a.inject({ method: 'DELETE', url: '/maximo/oslc/loginlocks/users/finn', headers: maxadmin })).statusCode).to.equal(204);
            expect(await status(b, finn)).to.equal(200);
            expect((await b.inject({ method: 'DELETE', url: '/maximo/oslc/loginlocks/users/finn', headers: maxadmin })).statusCode).to.equal(404);
        });

        test('a successful login clears the user\'s failures, also when it is answered from what the node remembers', async () => {

            await users().create({ userid: 'gus', password: 'gus-pass-1', groups: ['EVERYONE'] });
            const gus = maxauth('gus', 'gus-pass-1');
            expect(await status(b, gus)).to.equal(200);                     // B remembers it from here on
            const failures = () => knex()('osprey_loginfailure').where({ name: 'user:GUS' }).first('failures');
            for (let i = 0; i < 3; ++i) {
                expect(await status(a, maxauth('gus', 'wrong-1'))).to.equal(401);
                expect(await status(a, maxauth('gus', 'wrong-2'))).to.equal(401);
                expect((await failures()).failures).to.equal(2);
                expect(await status(b, gus)).to.equal(200);
                expect(await failures()).to.not.exist();
            }
        });

        test('a request with the credentials of two users is a 400, on either node', async () => {

            const adminKey = await keyOf(a, maxadmin);
            const wilsonKey = await keyOf(a, wilson);
            const adminSession = cookieOf(await whoami(a, maxadmin));
            expect(await status(b, { cookie: adminSession })).to.equal(200);
            const wilsonSession = cookieOf(await whoami(a, wilson));
            const basic = (user: string, password: string) => ({ authorization: `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}` });
            const refusals: [string, Record<string, string>][] = [
                ['/maximo/oslc/whoami', { ...wilson, apikey: adminKey }],
                ['/maximo/oslc/whoami', { ...basic('wilson', 'wilson'), apikey: adminKey }],
                [`/maximo/oslc/whoami?apikey=${adminKey}`, { apikey: wilsonKey }],
                ['/maximo/oslc/whoami', { ...wilson, ...basic('maxadmin', 'maxadmin') }],
                ['/maximo/oslc/whoami', { ...wilson, ...basic('wilson', 'other') }],
                ['/maximo/oslc/whoami?_lid=maxadmin&_lpwd=maxadmin', wilson],
                ['/maximo/oslc/whoami', { ...wilson, cookie: adminSession }],
                ['/maximo/oslc/whoami', { apikey: wilsonKey, cookie: adminSession }],
                ['/maximo/oslc/whoami', { cookie: `${adminSession}; ${wilsonSession}` }],
                ['/maximo/oslc/os/mxapiwodetail?oslc.pageSize=1', { ...wilson, apikey: adminKey }]
            ];
            for (const node of [a, b]) {
                for (const [url, headers] of refusals) {
                    const res = await node.inject({ url, headers });
                    expect(res.statusCode, `${url} ${Object.keys(headers).join(' ')}`).to.equal(400);
                    expect(res.result.Error.reasonCode).to.equal('BMXAA4153E');
                    expect(res.result.Error.message).to.contain('one credential');
                }
            }

            // Two credentials of one user are one login.
            expect((await whoami(b, { ...wilson, apikey: wilsonKey })).result.userName).to.equal('WILSON');
            expect((await whoami(b, { ...wilson, cookie: wilsonSession })).result.userName).to.equal('WILSON');
            expect((await b.inject({ url: `/maximo/oslc/whoami?apikey=${wilsonKey}`, headers: { apikey: wilsonKey } })).result.userName).to.equal('WILSON');
            expect((await whoami(b, { ...wilson, ...basic('WILSON', 'wilson') })).result.userName).to.equal('WILSON');
        });

        test('user names are compared after NFC and upper-casing a-z only: ı, ſ and the like are other names', async () => {

            for (const name of ['wılson', 'wilſon', 'WİLSON', 'wilsoN\u0307']) {
                expect(await status(b, maxauth(name, 'wilson')), name).to.equal(401);
            }

            // A user of such a name is another user; WILSON stays as he was.
            const wilsonBefore = await userRow('WILSON');
            await users().create({ userid: 'wılson', password: 'dotless-1', groups: ['EVERYONE'] });
            const dotless = await whoami(b, maxauth('wıLSON', 'dotless-1'));
            expect(dotless.result.userName).to.equal('WıLSON');
            expect(await status(b, maxauth('wilson', 'dotless-1'))).to.equal(401);
            expect(await userRow('WILSON')).to.equal(wilsonBefore);
            expect((await whoami(b, wilson)).result.userName).to.equal('WILSON');

            // NFC: an é sent as e and a combining accent is the é it was created with.
            await users().create({ userid: 'ren\u00e9', password: 'rene-pass-1', groups: ['EVERYONE'] });
            expect((await whoami(b, maxauth('rene\u0301', 'rene-pass-1'))).result.userName).to.equal('REN\u00e9');
        });
    });
}

for (const database of testDatabases) {
    experiment(`credential stamps on a database made before them (${database.name})`, { timeout: 60_000 }, () => {

        test('the columns and tables are added in place; users, keys and sessions go on, and a new password ends the sessions', async () => {

            const first = await startTestServer(database);
            try {
                const key = (await first.inject({ method: 'POST', url: '/maximo/oslc/apitoken/get', headers: wilson })).result.apikey as string;
                const knex = first.server.app.osprey.knex;
                // As a database of the code before issue 34 was.
                await knex.schema.alterTable('osprey_user', (t) => t.dropColumn('credstamp'));
                await knex.schema.alterTable('osprey_session', (t) => t.dropColumn('userstamp'));
                await knex.schema.dropTable('osprey_authstamp');
                await knex.schema.dropTable('osprey_loginfailure');
                const users = await knex('osprey_user').orderBy('userid').select('userid', 'passwordhash');

                const second = await startTestServer(database, { databaseUrl: first.options.databaseUrl });
                try {
                    expect(await knex('osprey_user').orderBy('userid').select('userid', 'passwordhash')).to.equal(users);
                    expect((await second.inject({ url: '/maximo/oslc/whoami', headers: { apikey: key } })).result.userName).to.equal('WILSON');
                    const login = await second.inject({ url: '/maximo/oslc/whoami', headers: wilson });
                    expect(login.statusCode).to.equal(200);
                    const session = cookieOf(login);
                    expect((await second.inject({ url: '/maximo/oslc/whoami', headers: { cookie: session } })).statusCode).to.equal(200);
                    await second.server.app.osprey.users.setPassword('wilson', 'wilson-new-1');
                    expect((await second.inject({ url: '/maximo/oslc/whoami', headers: { cookie: session } })).statusCode).to.equal(401);
                    expect((await second.inject({ url: '/maximo/oslc/whoami', headers: wilson })).statusCode).to.equal(401);
                    expect((await second.inject({ url: '/maximo/oslc/whoami', headers: { apikey: key } })).statusCode).to.equal(200);
                }
                finally {
                    await second.stop();
                }
            }
            finally {
                await first.stop();
            }
        });
    });
}
