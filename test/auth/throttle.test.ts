import * as Code from '@hapi/code';
import * as Lab from '@hapi/lab';

import { readCredentialState } from '../../src/auth/credential-stamp';
import { LoginThrottle, throttleKeys, type Attempt } from '../../src/auth/throttle';
import { testDatabases } from '../helpers/databases';
import { onEachDatabase } from '../helpers/experiments';
import { maxadmin, maxauth, startTestServer, wilson } from '../helpers/server';


const lab = exports.lab = Lab.script();
const { experiment, test } = lab;
const { expect } = Code;

onEachDatabase(lab, 'login throttle', (t) => {

    const throttleOf = (attempts: number) => new LoginThrottle(t.server.app.osprey.knex, { attempts, windowMs: 60_000 });
    // What a request reads before it logs in: the rows of its names, as of now.
    const retryAfter = async (throttle: LoginThrottle, keys: string[], now: number) => throttle.retryAfter((await readCredentialState(t.server.app.osprey.db, keys)).failures, keys, now);

    // A wrong guess: counted, then settled as a failure; answers the delay, or the wait when refused.
    const fail = async (throttle: LoginThrottle, keys: string[], now: number) => {

        const attempt = await throttle.attempt(keys, now);
        return typeof attempt === 'number' ? { wait: attempt } : { delay: attempt.failed() };
    };

    lab.beforeEach(() => t.server.app.osprey.knex('osprey_loginfailure').delete());

    test('slows from the third failure, locks at the limit, forgets after the window', async () => {

        const throttle = throttleOf(4);
        const keys = throttleKeys('wilson', '10.0.0.1');
        const delays = [];
        for (let i = 0; i < 4; ++i) {
            delays.push(await fail(throttle, keys, 1000));
        }

        expect(delays).to.equal([{ delay: 0 }, { delay: 0 }, { delay: 250 }, { delay: 500 }]);
        expect(await fail(throttle, keys, 1000)).to.equal({ wait: 60 });
        expect(await retryAfter(throttle, keys, 1000)).to.equal(60);
        expect(await retryAfter(throttle, throttleKeys('maxadmin', '10.0.0.1'), 1000)).to.equal(0);
        expect(await retryAfter(throttle, keys, 61_000)).to.equal(0);
        expect(await fail(throttle, keys, 61_000)).to.equal({ delay: 0 });

        // Many names from one address: the address is refused at five times the user limit.
        for (let i = 0; i < 20; ++i) {
            await fail(throttle, throttleKeys(`user${i}`, '10.0.0.2'), 1000);
        }

        expect(await retryAfter(throttle, throttleKeys('someone', '10.0.0.2'), 2000)).to.equal(59);
    });

    test('counts an attempt before its check: a burst gets no more checks than the limit', async () => {

        const throttle = throttleOf(10);
        const keys = throttleKeys('wilson', '10.0.0.1');
        // 40 attempts begun before any has been settled, as concurrent requests are.
        const begun = await Promise.all(Array.from({ length: 40 }, () => throttle.attempt(keys, 1000)));
        expect(begun.filter((attempt) => typeof attempt !== 'number')).to.have.length(10);
        expect(begun.filter((attempt) => attempt === 60)).to.have.length(30);
    });

    test('a success clears the user and gives its attempt back to the address', async () => {

        const throttle = throttleOf(2);
        for (let i = 0; i < 9; ++i) {
            const attempt = await throttle.attempt(throttleKeys(`user${i}`, '10.0.0.3'), 1000);
            await (attempt as Attempt).succeeded();
        }

        // Nine right logins from one address count nothing against it.
        expect(await retryAfter(throttle, throttleKeys('other', '10.0.0.3'), 1000)).to.equal(0);
        await fail(throttle, throttleKeys('wilson', '10.0.0.3'), 1000);
        await (await throttle.attempt(throttleKeys('wilson', '10.0.0.3'), 1000) as Attempt).succeeded();
        expect(await fail(throttle, throttleKeys('wilson', '10.0.0.3'), 1000)).to.equal({ delay: 0 });
    });

    test('an administrator lifts a lock; the list shows what is locked; purge removes what has expired', async () => {

        const throttle = throttleOf(2);
        const keys = throttleKeys('wilson', '10.0.0.4');
        await fail(throttle, keys, 1000);
        await fail(throttle, keys, 1000);
        expect(await throttle.locks(2000)).to.equal([{ key: 'user:WILSON', failures: 2, retryAfter: 59 }]);
        expect(await throttle.lift('user:WILSON', 2000)).to.be.true();
        expect(await throttle.lift('user:WILSON', 2000)).to.be.false();
        expect(await throttle.locks(2000)).to.equal([]);
        expect(await retryAfter(throttle, keys, 2000)).to.equal(0);

        expect(await throttle.purge(2000)).to.equal(0);
        expect(await throttle.purge(61_000)).to.equal(1);
        expect(await t.server.app.osprey.knex('osprey_loginfailure').select('name')).to.equal([]);
    });

    test('a name a client made long is stored as its digest', async () => {

        const throttle = throttleOf(2);
        const keys = throttleKeys('w'.repeat(1000), 'x'.repeat(1000));
        expect(keys.every((key) => key.length < 100)).to.be.true();
        expect(await fail(throttle, keys, 1000)).to.equal({ delay: 0 });
        expect(await fail(throttle, keys, 1000)).to.equal({ delay: 0 });
        expect(await fail(throttle, keys, 1000)).to.equal({ wait: 60 });
    });
});

for (const database of testDatabases) {
    experiment(`brute-force logins through HTTP (${database.name})`, () => {

        test('repeated failures for one user end in 429 with Retry-After; other users are not affected', { timeout: 20_000 }, async () => {

            const t = await startTestServer(database, { loginAttempts: 3, loginLockMinutes: 0.05 });
            try {
                const whoami = (headers: Record<string, string>) => t.inject({ url: '/maximo/oslc/whoami', headers });
                for (let i = 0; i < 3; ++i) {
                    const res = await whoami(maxauth('wilson', 'wrong'));
                    expect(res.statusCode).to.equal(401);
                }

                // Locked: even the right password is refused until the window has passed.
                const locked = await whoami(wilson);
                expect(locked.statusCode).to.equal(429);
                expect(locked.result.Error.reasonCode).to.equal('BMXAA1723E');
                expect(Number(locked.headers['retry-after']) > 0).to.be.true();
                expect((await whoami(maxadmin)).statusCode).to.equal(200);
                const login = await t.inject({ url: '/maximo/oslc/login', headers: maxauth('wilson', 'wilson') });
                expect(login.statusCode).to.equal(429);

                await new Promise((resolve) => setTimeout(resolve, 3100));
                expect((await whoami(wilson)).statusCode).to.equal(200);
                // Wrong API keys count against the address, never against a user.
                expect((await whoami({ apikey: 'not-a-key' })).statusCode).to.equal(401);
                expect((await whoami(wilson)).statusCode).to.equal(200);

                // A form login counts against the same limits as maxauth, either way round.
                const form = (password: string) => t.inject({ url: '/maximo/j_security_check', method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, payload: `j_username=maxadmin&j_password=${password}` });
                for (let i = 0; i < 3; ++i) {
                    expect((await form('wrong')).statusCode).to.equal(401);
                }

                expect((await whoami(maxadmin)).statusCode).to.equal(429);
                expect((await form('maxadmin')).statusCode).to.equal(429);
            }
            finally {
                await t.stop();
            }
        });

        test('a burst of concurrent wrong passwords is checked no more times than the limit, and a right one in it waits; concurrent right ones count nothing', { timeout: 20_000 }, async () => {

            const t = await startTestServer(database, { loginAttempts: 10 });
            try {
                const whoami = (headers: Record<string, string>) => t.inject({ url: '/maximo/oslc/whoami', headers });
                // The same wrong password forty times at once is one guess, checked once.
                const same = await Promise.all(Array.from({ length: 40 }, () => whoami(maxauth('wilson', 'wrong'))));
                expect(same.every((res) => res.statusCode === 401)).to.be.true();
                // Forty different ones are forty guesses: nine more are checked, the rest refused unchecked.
                const burst = await Promise.all([...Array.from({ length: 40 }, (_, i) => whoami(maxauth('wilson', `wrong${i}`))), whoami(wilson)]);
                const codes = burst.map((res) => res.statusCode);
                expect(codes.filter((code) => code === 401)).to.have.length(9);
                expect(codes.filter((code) => code === 429)).to.have.length(32);

                // An administrator sees the lock and lifts it; WILSON is let back in at once.
                const locks = await t.inject({ url: '/maximo/oslc/loginlocks', headers: maxadmin });
                expect(locks.statusCode).to.equal(200);
                expect(locks.result.member).to.equal([{ userid: 'WILSON', failures: 10, retryAfter: locks.result.member[0].retryAfter }]);
                expect((await t.inject({ url: '/maximo/oslc/loginlocks', headers: maxauth('wilson', 'wrong') })).statusCode).to.equal(429);
                expect((await t.inject({ url: '/maximo/oslc/loginlocks/users/wilson', method: 'DELETE', headers: maxadmin })).statusCode).to.equal(204);
                expect((await t.inject({ url: '/maximo/oslc/loginlocks/users/wilson', method: 'DELETE', headers: maxadmin })).statusCode).to.equal(404);
                expect((await whoami(wilson)).statusCode).to.equal(200);
                expect((await t.inject({ url: '/maximo/oslc/loginlocks', headers: maxadmin })).result).to.equal({ member: [] });
                // Only administrators see or lift locks.
                expect((await t.inject({ url: '/maximo/oslc/loginlocks', headers: wilson })).statusCode).to.equal(403);
                expect((await t.inject({ url: '/maximo/oslc/loginlocks/users/maxadmin', method: 'DELETE', headers: wilson })).statusCode).to.equal(403);
                expect((await t.inject({ url: '/maximo/oslc/loginlocks/addresses/127.0.0.1', method: 'DELETE', headers: maxadmin })).statusCode).to.equal(204);

                // Sixty requests at once with a right password (above the address limit of 50) are all let in.
                const right = await Promise.all(Array.from({ length: 60 }, () => whoami(maxadmin)));
                expect(right.every((res) => res.statusCode === 200)).to.be.true();
            }
            finally {
                await t.stop();
            }
        });

        test('behind a trusted proxy the address is the client the proxy saw, not what the client wrote', { timeout: 20_000 }, async () => {

            // Without a trusted proxy X-Forwarded-For is ignored: every guess counts against the connection.
            const direct = await startTestServer(database, { loginAttempts: 1 });
            try {
                for (let i = 0; i < 5; ++i) {
                    const res = await direct.inject({ url: '/maximo/oslc/whoami', headers: { ...maxauth(`nobody${i}`, 'x'), 'x-forwarded-for': `10.9.0.${i}` } });
                    expect(res.statusCode).to.equal(401);
                }

                expect((await direct.inject({ url: '/maximo/oslc/whoami', headers: { ...wilson, 'x-forwarded-for': '10.9.9.9' } })).statusCode).to.equal(429);
            }
            finally {
                await direct.stop();
            }

            // One trusted proxy: the last entry is the client's address; entries before it are the client's own words.
            const proxied = await startTestServer(database, { loginAttempts: 1, trustProxy: 1 });
            try {
                for (let i = 0; i < 5; ++i) {
                    const res = await proxied.inject({ url: '/maximo/oslc/whoami', headers: { ...maxauth(`nobody${i}`, 'x'), 'x-forwarded-for': `1.2.3.${i}, 10.8.0.1` } });
                    expect(res.statusCode).to.equal(401);
                }

                expect((await proxied.inject({ url: '/maximo/oslc/whoami', headers: { ...wilson, 'x-forwarded-for': '10.8.0.1' } })).statusCode).to.equal(429);
                expect((await proxied.inject({ url: '/maximo/oslc/whoami', headers: { ...wilson, 'x-forwarded-for': '10.8.0.1, 10.8.0.2' } })).statusCode).to.equal(200);
                expect((await proxied.inject({ url: '/maximo/oslc/whoami', headers: wilson })).statusCode).to.equal(200);

                // The same right password from twelve addresses at once is one check, not twelve attempts.
                const everywhere = await Promise.all(Array.from({ length: 12 }, (_, i) => proxied.inject({ url: '/maximo/oslc/whoami', headers: { ...maxadmin, 'x-forwarded-for': `10.7.0.${i}` } })));
                expect(everywhere.map((res) => res.statusCode)).to.equal(Array.from({ length: 12 }, () => 200));

                // An administrator locked out by someone else's guesses lifts the lock with an API key.
                const key = (await proxied.inject({ method: 'POST', url: '/maximo/oslc/apitoken/get', headers: maxadmin })).result.apikey as string;
                expect((await proxied.inject({ url: '/maximo/oslc/whoami', headers: { ...maxauth('maxadmin', 'guess'), 'x-forwarded-for': '10.6.0.1' } })).statusCode).to.equal(401);
                expect((await proxied.inject({ url: '/maximo/oslc/whoami', headers: { ...maxadmin, 'x-forwarded-for': '10.6.0.2' } })).statusCode).to.equal(429);
                expect((await proxied.inject({ url: '/maximo/oslc/loginlocks/users/maxadmin', method: 'DELETE', headers: { apikey: key } })).statusCode).to.equal(204);
                expect((await proxied.inject({ url: '/maximo/oslc/whoami', headers: { ...maxadmin, 'x-forwarded-for': '10.6.0.2' } })).statusCode).to.equal(200);
            }
            finally {
                await proxied.stop();
            }
        });
    });
}
