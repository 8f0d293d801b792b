import * as Code from '@hapi/code';
import * as Lab from '@hapi/lab';

import { LoginThrottle, throttleKeys } from '../../src/auth/throttle';
import { testDatabases } from '../helpers/databases';
import { maxadmin, maxauth, startTestServer, wilson } from '../helpers/server';


const { experiment, test } = exports.lab = Lab.script();
const { expect } = Code;

experiment('login throttle', () => {

    test('slows from the third failure, locks at the limit, forgets after the window', () => {

        const throttle = new LoginThrottle({ attempts: 4, windowMs: 60_000 });
        const keys = throttleKeys('wilson', '10.0.0.1');
        const delays = [0, 0, 0, 0].map(() => throttle.failed(keys, 1000));
        expect(delays).to.equal([0, 0, 250, 500]);
        expect(throttle.retryAfter(keys, 1000)).to.equal(60);
        expect(throttle.retryAfter(throttleKeys('maxadmin', '10.0.0.1'), 1000)).to.equal(0);
        expect(throttle.retryAfter(keys, 61_000)).to.equal(0);
        expect(throttle.failed(keys, 61_000)).to.equal(0);

        // Many names from one address: the address is refused at five times the user limit.
        for (let i = 0; i < 20; ++i) {
            throttle.failed(throttleKeys(`user${i}`, '10.0.0.2'), 1000);
        }

        expect(throttle.retryAfter(throttleKeys('someone', '10.0.0.2'), 2000)).to.equal(59);
        throttle.succeeded('user:WILSON');
        expect(throttle.failed(keys, 61_000)).to.equal(0);
    });
});

for (const database of testDatabases) {
    experiment(`brute-force logins through HTTP (${database.name})`, () => {

        test('repeated failures for one user end in 429 with Retry-After; other users are not affected', { timeout: 20_000 }, async () => {

            const t = await startTestServer(database, { loginAttempts: 3, loginLockMinutes: 0.02 });
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

                await new Promise((resolve) => setTimeout(resolve, 1300));
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
    });
}
