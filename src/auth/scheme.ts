import { setTimeout as sleep } from 'node:timers/promises';

import type * as Hapi from '@hapi/hapi';

import { maximoError } from '../errors/maximo-error';
import { header } from '../http/headers';
import { passwordCredentials, sessionToken } from './credentials';
import { LoginThrottle, throttleKeys } from './throttle';


// The one authentication scheme: API key (header or query parameter), then user/password credentials, then the
// session cookie. Every failure is the same 401 with no hint which part was wrong; repeated failures are
// slowed and then refused with 429 (src/auth/throttle.ts).
export const ospreyScheme = (server: Hapi.Server): Hapi.ServerAuthSchemeObject => {

    const osprey = server.app.osprey;
    const throttle = new LoginThrottle({ attempts: osprey.options.loginAttempts, windowMs: osprey.options.loginLockMinutes * 60_000 });

    const refuseWhenLocked = (keys: string[]) => {

        const wait = throttle.retryAfter(keys);
        if (wait > 0) {
            const error = maximoError('tooManyLogins', `Too many failed logins. Try again in ${wait} seconds.`);
            error.output.headers['Retry-After'] = String(wait);
            throw error;
        }
    };

    const failed = async (keys: string[]): Promise<never> => {

        await sleep(throttle.failed(keys));
        throw maximoError('loginFailed');
    };

    return { authenticate: async (request, h) => {

        const address = request.info.remoteAddress;
        const key = header(request, 'apikey') ?? (typeof request.query.apikey === 'string' ? request.query.apikey : undefined);
        if (key) {
            const keys = throttleKeys(undefined, address);
            refuseWhenLocked(keys);
            const user = await osprey.apiKeys.verify(key);
            return user ? h.authenticated({ credentials: { user, method: 'apikey' } }) : await failed(keys);
        }

        const password = passwordCredentials(request);
        if (password) {
            const keys = throttleKeys(password.userid, address);
            refuseWhenLocked(keys);
            const user = await osprey.users.verify(password.userid, password.password);
            if (!user) {
                return await failed(keys);
            }

            throttle.succeeded(keys[0]!);
            return h.authenticated({ credentials: { user, method: password.method } });
        }

        const token = sessionToken(request);
        const userid = token && await osprey.sessions.resolve(token);
        const user = userid ? await osprey.users.profile(userid) : undefined;
        if (user) {
            return h.authenticated({ credentials: { user, method: 'session', sessionToken: token } });
        }

        throw maximoError('loginFailed');
    } };
};
