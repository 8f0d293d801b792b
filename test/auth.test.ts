import * as Code from '@hapi/code';
import type * as Hapi from '@hapi/hapi';
import * as Lab from '@hapi/lab';

import { onEachDatabase } from './helpers/experiments';
import { maxauth, wilson } from './helpers/server';


const lab = exports.lab = Lab.script();
const { test } = lab;
const { expect } = Code;

const cookieOf = (res: { headers: Record<string, unknown> }) => String([res.headers['Set-Cookie'] ?? res.headers['set-cookie']].flat()[0]);

// The Set-Cookie header spelled exactly so (IBM's Java client looks it up that way), sent once, or undefined.
const setCookie = (res: Hapi.ServerInjectResponse): string | undefined => {

    const raw = res.raw.res;
    const names = (raw as unknown as { getRawHeaderNames(): string[] }).getRawHeaderNames();
    expect(names.filter((name) => name.toLowerCase() === 'set-cookie').length).to.be.below(2);
    return names.includes('Set-Cookie') ? String(raw.getHeader('set-cookie')) : undefined;
};

onEachDatabase(lab, 'login', (t) => {

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
        expect(cookie).to.match(/^osprey_session=[\w.-]{40,}; Path=\/maximo; HttpOnly; SameSite=Lax$/);
        expect(login.result.userName).to.equal('WILSON');

        const session = cookie.split(';')[0]!;
        const whoami = await t.inject({ url: '/maximo/api/whoami', headers: { cookie: `other=1; ${session}; Path=/maximo` } });
        expect(whoami.statusCode).to.equal(200);
        expect(whoami.result.userName).to.equal('WILSON');

        const again = await t.inject({ url: '/maximo/api/login', headers: { cookie: session } });
        expect(again.statusCode).to.equal(200);
        expect(cookieOf(again).split(';')[0]).to.equal(session);

        // Another user's credentials or an API key beside the cookie: a 400, and the session lives on.
        for (const extra of [maxauth('maxadmin', 'maxadmin'), { apikey: 'x'.repeat(43) }]) {
            const mixed = await t.inject({ method: 'POST', url: '/maximo/oslc/logout', headers: { cookie: session, ...extra } });
            expect(mixed.statusCode, Object.keys(extra)[0]).to.equal(400);
            expect(mixed.result.Error.message).to.contain('more than one login');
        }

        // A credential header that names no login, or a body (a form's j_username), is no part of a logout either.
        const unread = await t.inject({ method: 'POST', url: '/maximo/oslc/logout', headers: { cookie: session, maxauth: 'garbage' } });
        expect(unread.statusCode).to.equal(400);
        const form = await t.inject({ method: 'POST', url: '/maximo/logout', headers: { cookie: session, 'content-type': 'application/x-www-form-urlencoded' }, payload: 'j_username=MAXADMIN&j_password=x' });
        expect(form.statusCode).to.equal(400);
        expect(form.result.Error.message).to.contain('takes no body');
        expect((await t.inject({ url: '/maximo/api/whoami', headers: { cookie: session } })).statusCode).to.equal(200);
        // The same user's password beside it (a browser signed in with Basic sends it) is one login.
        const logout = await t.inject({ url: '/maximo/oslc/logout', headers: { cookie: session, ...wilson } });
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
        expect((await sessions.resolve(token))!.userid).to.equal('WILSON');
        await knex('osprey_session').update({ lastseen: Date.now() - 24 * 3600_000 });
        expect(await sessions.resolve(token)).to.not.exist();
        await sessions.create((await t.server.app.osprey.users.profile('WILSON'))!);
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
    const sessionRows = async () => (await t.server.app.osprey.knex('osprey_session').count({ n: '*' }))[0]!.n;

    test('a password request without a session is offered one: one Set-Cookie, and no row until the cookie comes back', async () => {

        await t.server.app.osprey.knex('osprey_session').delete();
        const basic = { authorization: `Basic ${Buffer.from('wilson:wilson').toString('base64')}` };
        const cookies: string[] = [];
        for (const request of [{ url: '/maximo/oslc?&lean=1', headers: wilson }, { url: '/maximo/api/whoami', headers: basic }, { url: '/maximo/api/whoami?_lid=wilson&_lpwd=wilson' }]) {
            const res = await t.inject(request);
            expect(res.statusCode).to.equal(200);
            // IBM's Java client looks the header up as exactly Set-Cookie and keeps the last one it sees.
            expect(res.rawPayload.length).to.be.above(0);
            cookies.push(setCookie(res)!);
        }

        expect(new Set(cookies).size).to.equal(3);
        expect(Number(await sessionRows())).to.equal(0);

        // As the Java client sends it: the whole Set-Cookie value as its Cookie header, and nothing else.
        for (const cookie of cookies) {
            const res = await t.inject({ url: '/maximo/oslc/whoami', headers: { cookie } });
            expect(res.statusCode).to.equal(200);
            expect(res.result.userName).to.equal('WILSON');
            expect(setCookie(res)).to.not.exist();
        }

        expect(Number(await sessionRows())).to.equal(3);
        expect((await t.inject({ url: '/maximo/oslc/whoami', headers: { cookie: cookies[0]! } })).statusCode).to.equal(200);
        expect(Number(await sessionRows())).to.equal(3);
    });

    test('login with a stale cookie beside the password opens a new session; login with an API key is refused', async () => {

        const res = await t.inject({ url: '/maximo/oslc/login', headers: { ...wilson, cookie: 'osprey_session=stale-stale-stale-stale-stale' } });
        expect(res.statusCode).to.equal(200);
        const cookie = setCookie(res)!;
        expect(cookie).to.not.contain('stale');
        expect((await t.inject({ url: '/maximo/oslc/whoami', headers: { cookie } })).result.userName).to.equal('WILSON');

        const key = await t.inject({ url: '/maximo/oslc/apitoken/create', method: 'POST', headers: wilson, payload: { expiration: -1 } });
        const byKey = await t.inject({ url: '/maximo/oslc/login', headers: { apikey: key.result.apikey } });
        expect(byKey.statusCode).to.equal(403);
        expect(setCookie(byKey)).to.not.exist();
        expectLoginFailure(await t.inject({ url: '/maximo/oslc/whoami', headers: { apikey: `${key.result.apikey}x` } }));
    });

    test('a request that brings a session cookie, an API key or wrong credentials is offered no session', async () => {

        const login = await t.inject({ url: '/maximo/oslc/login', headers: wilson });
        const session = cookieOf(login).split(';')[0]!;
        const withCookie = await t.inject({ url: '/maximo/oslc/whoami', headers: { ...wilson, cookie: session } });
        expect(withCookie.statusCode).to.equal(200);
        expect(setCookie(withCookie)).to.not.exist();

        const key = await t.inject({ url: '/maximo/oslc/apitoken/create', method: 'POST', headers: wilson, payload: { expiration: -1 } });
        expect(key.statusCode).to.equal(200);
        const byKey = await t.inject({ url: '/maximo/oslc/whoami', headers: { apikey: key.result.apikey } });
        expect(byKey.statusCode).to.equal(200);
        expect(setCookie(byKey)).to.not.exist();

        const wrong = await t.inject({ url: '/maximo/oslc/whoami', headers: maxauth('wilson', 'wrong') });
        expectLoginFailure(wrong);
        expect(setCookie(wrong)).to.not.exist();
    });

    test('an offered session ends at logout, whether or not it was used; a forged or stale offer is refused', async () => {

        const sessions = t.server.app.osprey.sessions;
        const unused = setCookie(await t.inject({ url: '/maximo/oslc/whoami', headers: wilson }))!;
        expect((await t.inject({ url: '/maximo/oslc/logout', headers: { cookie: unused } })).statusCode).to.equal(200);
        expectLoginFailure(await t.inject({ url: '/maximo/oslc/whoami', headers: { cookie: unused } }));
        expectLoginFailure(await t.inject({ url: '/maximo/oslc/whoami', headers: { cookie: unused } }));

        const used = setCookie(await t.inject({ url: '/maximo/oslc/whoami', headers: wilson }))!;
        expect((await t.inject({ url: '/maximo/oslc/whoami', headers: { cookie: used } })).statusCode).to.equal(200);
        await t.inject({ url: '/maximo/logout', headers: { cookie: used } });
        expectLoginFailure(await t.inject({ url: '/maximo/oslc/whoami', headers: { cookie: used } }));

        // Another user's name under WILSON's signature, a changed signature, an offer older than the idle time.
        const wilsonUser = (await t.server.app.osprey.users.profile('WILSON'))!;
        const token = sessions.offer(wilsonUser);
        const [o, , when, stamp, nonce, mac] = token.split('.');
        const forged = [
            [o, Buffer.from('MAXADMIN').toString('base64url'), when, stamp, nonce, mac].join('.'),
            [o, Buffer.from('WILSON').toString('base64url'), when, stamp, nonce, `${mac!.slice(0, -2)}AA`].join('.'),
            [o, Buffer.from('WILSON').toString('base64url'), when, stamp, nonce].join('.'),
            ['x', Buffer.from('WILSON').toString('base64url'), when, stamp, nonce, mac].join('.'),
            [o, Buffer.from('WILSON').toString('base64url'), when, stamp, nonce, mac!.slice(0, 20)].join('.'),
            [o, Buffer.from('WILSON').toString('base64url'), when, 'another-stamp', nonce, mac].join('.')
        ];
        for (const bad of forged) {
            expect(await sessions.resolve(bad)).to.not.exist();
            await sessions.end(bad);
        }

        const realNow = Date.now;
        Date.now = () => realNow() - 31 * 60_000;
        const old = sessions.offer(wilsonUser);
        Date.now = realNow;
        expect(await sessions.resolve(old)).to.not.exist();
        expect((await sessions.resolve(token))!.userid).to.equal('WILSON');

        // One signature, one spelling: base64url's spare bits in the last character do not make other sessions.
        const spellings = 'AEIMQUYcgkosw048'.split('').map((last) => `${token.slice(0, -1)}${last}`).filter((other) => other !== token);
        for (const other of spellings) {
            expect(await sessions.resolve(other)).to.not.exist();
        }

        // An offer for a user who is gone (or never was) logs no one in.
        expectLoginFailure(await t.inject({ url: '/maximo/oslc/whoami', headers: { cookie: `osprey_session=${sessions.offer({ userid: 'NOBODY', stamp: wilsonUser.stamp })}` } }));

        // The end of an offer is kept until the offer could not be taken up anyway, then purged.
        const ended = sessions.offer(wilsonUser);
        await sessions.end(ended);
        expect(await sessions.resolve(ended)).to.not.exist();
        await t.server.app.osprey.knex('osprey_session').update({ lastseen: 0 });
        expect(await sessions.purge()).to.be.at.least(2);
    });

    test('form login: j_username and j_password, posted where the Java and npm clients post them', async () => {

        const form = { 'content-type': 'application/x-www-form-urlencoded' };
        const basic = { authorization: `Basic ${Buffer.from('maxadmin:maxadmin').toString('base64')}` };
        for (const url of ['/maximo/oslc?&lean=1/j_security_check', '/maximo/api?&lean=1/j_security_check', '/maximo/oslc/j_security_check', '/maximo/j_security_check']) {
            // The Java client sends x-public-uri; the npm client (LDAP_FORM) the same login as Basic too; a
            // browser on the server's own page, its origin.
            const extra = url === '/maximo/j_security_check' ? basic : url.startsWith('/maximo/api') ? { origin: 'http://osprey.example:8080', host: 'osprey.example:8080', 'sec-fetch-site': 'same-origin' } : { 'x-public-uri': 'http://public.example.com/maximo/oslc' };
            const res = await t.inject({ url, method: 'POST', headers: { ...form, ...extra }, payload: 'j_username=maxadmin&j_password=maxadmin' });
            expect(res.statusCode, url).to.equal(200);
            expect(res.result.userName).to.equal('MAXADMIN');
            const cookie = setCookie(res)!;
            expect(cookie).to.match(/^osprey_session=[\w.-]{40,}; Path=\/maximo; HttpOnly; SameSite=Lax$/);
            const whoami = await t.inject({ url: '/maximo/oslc/whoami', headers: { cookie } });
            expect(whoami.result.userName).to.equal('MAXADMIN');
        }

        const refusals: [string, Record<string, string>, string, number, string][] = [
            ['/maximo/oslc/j_security_check', form, 'j_username=maxadmin&j_password=wrong', 401, 'BMXAA7901E'],
            ['/maximo/oslc/j_security_check', form, 'j_username=&j_password=maxadmin', 400, 'j_username and j_password'],
            ['/maximo/oslc/j_security_check', form, 'j_username=maxadmin', 400, 'j_username and j_password'],
            ['/maximo/oslc/j_security_check', { 'content-type': 'application/json' }, '{"j_username":"maxadmin","j_password":"maxadmin"}', 415, 'application/x-www-form-urlencoded'],
            ['/maximo/oslc/j_security_check', {}, '', 415, 'not as a body without a content type'],
            ['/maximo/oslc/j_security_check', form, '', 400, 'j_username and j_password'],
            ['/maximo/oslc/j_security_check', { ...form, ...maxauth('MAXADMIN', 'other') }, 'j_username=maxadmin&j_password=maxadmin', 400, 'two different logins (j_username with j_password and maxauth)'],
            ['/maximo/oslc/j_security_check', form, 'j_username=max%00admin&j_password=maxadmin', 401, 'BMXAA7901E'],
            ['/maximo/oslc/j_security_check', { ...form, origin: 'https://evil.example' }, 'j_username=maxadmin&j_password=maxadmin', 403, 'another site'],
            ['/maximo/oslc/j_security_check', { ...form, origin: 'null' }, 'j_username=maxadmin&j_password=maxadmin', 403, 'another site'],
            ['/maximo/oslc/j_security_check', { ...form, 'sec-fetch-site': 'cross-site' }, 'j_username=maxadmin&j_password=maxadmin', 403, 'another site'],
            ['/maximo/oslc/j_security_check', { ...form, ...wilson }, 'j_username=maxadmin&j_password=maxadmin', 400, 'two different logins (j_username with j_password and maxauth)'],
            ['/maximo/oslc/j_security_check', { ...form, apikey: 'x'.repeat(40) }, 'j_username=maxadmin&j_password=maxadmin', 400, 'apikey'],
            ['/maximo/oslc?&lean=1', form, 'j_username=maxadmin&j_password=maxadmin', 405, 'j_security_check'],
            ['/maximo/oslc?&lean=0/j_security_check', form, 'j_username=maxadmin&j_password=maxadmin', 400, 'lean'],
            ['/maximo/oslc/j_security_check?_lid=maxadmin', form, 'j_username=maxadmin&j_password=maxadmin', 400, '_lid']
        ];
        for (const [url, headers, payload, status, text] of refusals) {
            const res = await t.inject({ url, method: 'POST', headers, payload });
            expect(res.statusCode, url).to.equal(status);
            expect(JSON.stringify(res.result), url).to.contain(text);
            expect(setCookie(res), url).to.not.exist();
        }
    });
});
