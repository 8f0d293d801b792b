import * as Code from '@hapi/code';
import * as Lab from '@hapi/lab';

import { testDatabases } from './helpers/databases';
import { maxauth, startTestServer, wilson, type TestServer } from './helpers/server';


const { experiment, test, before, after } = exports.lab = Lab.script();
const { expect } = Code;

const cookieOf = (res: { headers: Record<string, unknown> }) => String([res.headers['Set-Cookie'] ?? res.headers['set-cookie']].flat()[0]);

for (const database of testDatabases) {
    experiment(`login (${database.name})`, () => {

        let t: TestServer;
        before(async () => {

            t = await startTestServer(database);
        });

        after(() => t.stop());

        const expectLoginFailure = (res: { statusCode: number; result: any }) => {

            expect(res.statusCode).to.equal(401);
            expect(res.result.Error).to.equal({
                message: 'BMXAA7901E - You cannot log in at this time. Contact the system administrator.',
                reasonCode: 'BMXAA7901E',
                statusCode: '401',
                extendedError: res.result.Error.extendedError
            });
        };

        test('maxauth, Basic and _lid/_lpwd authenticate a request', async () => {

            const basic = { authorization: `Basic ${Buffer.from('wilson:wilson').toString('base64')}` };
            for (const request of [{ url: '/maximo/oslc/whoami', headers: wilson }, { url: '/maximo/oslc/whoami', headers: basic }, { url: '/maximo/api/whoami?_lid=wilson&_lpwd=wilson' }]) {
                const res = await t.inject(request);
                expect(res.statusCode).to.equal(200);
                expect(res.result.userName).to.equal('WILSON');
            }
        });

        test('every failure is the same 401 with no hint why', async () => {

            expectLoginFailure(await t.inject('/maximo/oslc/whoami'));
            expectLoginFailure(await t.inject({ url: '/maximo/oslc/whoami', headers: maxauth('wilson', 'wrong') }));
            expectLoginFailure(await t.inject({ url: '/maximo/oslc/whoami', headers: maxauth('nobody', 'wilson') }));
            expectLoginFailure(await t.inject({ url: '/maximo/oslc/whoami', headers: { maxauth: 'bm90LWEtcGFpcg==' } }));
            expectLoginFailure(await t.inject({ url: '/maximo/oslc/whoami', headers: { authorization: 'Bearer abc' } }));
            expectLoginFailure(await t.inject({ url: '/maximo/oslc/whoami', headers: { cookie: 'osprey_session=aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa' } }));
            expectLoginFailure(await t.inject({ url: '/maximo/oslc/login', method: 'POST', headers: maxauth('wilson', 'nope') }));
            expectLoginFailure(await t.inject({ url: '/maximo/oslc/whoami', headers: { apikey: 'not-a-key' } }));
        });

        test('login answers Set-Cookie; the session authenticates; logout ends it', async () => {

            const login = await t.inject({ url: '/maximo/oslc/login', method: 'POST', headers: { ...wilson, 'content-type': 'application/x-www-form-urlencoded' } });
            expect(login.statusCode).to.equal(200);
            const cookie = cookieOf(login);
            expect(cookie).to.match(/^osprey_session=[\w-]{40,}; Path=\/maximo; HttpOnly; SameSite=Lax$/);
            expect(login.result.userName).to.equal('WILSON');

            const session = cookie.split(';')[0]!;
            const whoami = await t.inject({ url: '/maximo/api/whoami', headers: { cookie: `other=1; ${session}; Path=/maximo` } });
            expect(whoami.statusCode).to.equal(200);
            expect(whoami.result.userName).to.equal('WILSON');

            const again = await t.inject({ url: '/maximo/api/login', headers: { cookie: session } });
            expect(again.statusCode).to.equal(200);
            expect(cookieOf(again).split(';')[0]).to.equal(session);

            const logout = await t.inject({ url: '/maximo/oslc/logout', headers: { cookie: session } });
            expect(logout.statusCode).to.equal(200);
            expect(cookieOf(logout)).to.contain('Max-Age=0');
            expectLoginFailure(await t.inject({ url: '/maximo/api/whoami', headers: { cookie: session } }));
        });

        test('GET login with _lid/_lpwd and the context-root logout', async () => {

            const login = await t.inject('/maximo/api/login?_lid=maxadmin&_lpwd=maxadmin');
            expect(login.statusCode).to.equal(200);
            const session = cookieOf(login).split(';')[0]!;
            expect((await t.inject({ url: '/maximo/oslc/whoami', headers: { cookie: session } })).result.userName).to.equal('MAXADMIN');
            expect((await t.inject({ url: '/maximo/logout', headers: { cookie: session } })).statusCode).to.equal(200);
            expectLoginFailure(await t.inject({ url: '/maximo/oslc/whoami', headers: { cookie: session } }));
            expect((await t.inject('/maximo/logout')).statusCode).to.equal(200);
        });

        test('the session cookie is Secure behind an HTTPS proxy', async () => {

            const login = await t.inject({ url: '/maximo/oslc/login', method: 'POST', headers: { ...wilson, 'x-forwarded-proto': 'https' } });
            expect(cookieOf(login)).to.endWith('; Secure');
        });

        test('an idle session expires and is purged', async () => {

            const login = await t.inject({ url: '/maximo/oslc/login', method: 'POST', headers: wilson });
            const token = cookieOf(login).split(';')[0]!.split('=')[1]!;
            const knex = t.server.app.osprey.knex;
            const sessions = t.server.app.osprey.sessions;
            await knex('osprey_session').update({ lastseen: Date.now() - 5 * 60_000 });
            expect(await sessions.resolve(token)).to.equal('WILSON');
            await knex('osprey_session').update({ lastseen: Date.now() - 24 * 3600_000 });
            expect(await sessions.resolve(token)).to.not.exist();
            await sessions.create('WILSON');
            await knex('osprey_session').update({ lastseen: 0 });
            expect(await sessions.purge()).to.be.at.least(1);
            expect(await knex('osprey_session').select()).to.equal([]);
        });

        test('passwords are stored as scrypt hashes and a verified login is cached', async () => {

            const row = await t.server.app.osprey.knex('osprey_user').where({ userid: 'WILSON' }).first();
            expect(row.passwordhash).to.match(/^scrypt\$16384\$8\$1\$/);
            expect(row.passwordhash).to.not.contain('wilson');
            const users = t.server.app.osprey.users;
            expect((await users.verify('wilson', 'wilson'))!.userid).to.equal('WILSON');
            expect((await users.verify('WILSON', 'wilson'))!.userid).to.equal('WILSON');
            expect(await users.verify('WILSON', 'Wilson')).to.not.exist();
        });

        test('an inactive user cannot log in', async () => {

            const users = t.server.app.osprey.users;
            await users.create({ userid: 'temp', password: 'temporary1', groups: ['EVERYONE'] });
            expect((await t.inject({ url: '/maximo/oslc/whoami', headers: maxauth('temp', 'temporary1') })).statusCode).to.equal(200);
            await t.server.app.osprey.knex('osprey_user').where({ userid: 'TEMP' }).update({ status: 'INACTIVE' });
            expect(await users.verify('temp', 'other-password')).to.not.exist();
            expect(await users.profile('temp')).to.not.exist();
        });
    });
}
