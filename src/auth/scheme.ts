import { setTimeout as sleep } from 'node:timers/promises';

import type * as Hapi from '@hapi/hapi';

import { maximoError } from '../errors/maximo-error';
import { clientAddress } from '../http/client-address';
import { header } from '../http/headers';
import type { UserProfile } from './users';
import { passwordCredentials, sessionCookieHeader, sessionToken } from './credentials';
import { LoginThrottle, throttleKeys, userKey, type Attempt, type Lock } from './throttle';


// Credential checks behind one throttle per server: the authentication scheme's and the form login's
// (POST …/j_security_check), so a password guessed through either counts against the same limits.
export interface Logins {
    /** The user of a right password; a 401 (slowed) or 429 otherwise. */
    password(userid: string, password: string, address: string): Promise<UserProfile>;
    apiKey(key: string, address: string): Promise<UserProfile>;
    /** The users and addresses locked out now, for an administrator. */
    locks(): Lock[];
    /** Lifts the lock of a user or an address; whether there was one (or a count of failures) to lift. */
    lift(kind: 'user' | 'address', name: string): boolean;
}

// Keyed by the application state, which every plugin's view of the server shares (the server objects differ).
const logins = new WeakMap<object, Logins>();

// A user id no account can have: control characters (a NUL is an error in PostgreSQL text) are a failed login.
const impossibleUser = /[\u0000-\u001f\u007f]/;

export const loginsOf = (server: Hapi.Server): Logins => {

    const osprey = server.app.osprey;
    const known = logins.get(osprey);
    if (known) {
        return known;
    }

    const throttle = new LoginThrottle({ attempts: osprey.options.loginAttempts, windowMs: osprey.options.loginLockMinutes * 60_000 });

    const tooMany = (wait: number) => {

        const error = maximoError('tooManyLogins', `Too many failed logins. Try again in ${wait} seconds.`);
        error.output.headers['Retry-After'] = String(wait);
        return error;
    };

    const refuseWhenLocked = (keys: string[]) => {

        const wait = throttle.retryAfter(keys);
        if (wait > 0) {
            throw tooMany(wait);
        }
    };

    // The attempt is counted before the check, so a burst cannot run more checks than the limit allows.
    const attempt = (keys: string[]): Attempt => {

        const counted = throttle.attempt(keys);
        if (typeof counted === 'number') {
            throw tooMany(counted);
        }

        return counted;
    };

    const failed = async (counted: Attempt): Promise<never> => {

        await sleep(counted.failed());
        throw maximoError('loginFailed');
    };

    // Concurrent checks of the same credentials are one attempt: the first counts it (against its user and its
    // address), the others wait for its outcome (Users.verify runs one check for them all).
    const flights = new Map<string, Promise<{ user?: UserProfile; counted: Attempt }>>();

    const made: Logins = {
        password: async (userid, password, address) => {

            const keys = throttleKeys(userid, address);
            // One flight per credentials, whatever address sends them: the same password from many places at once is
            // one check and one attempt (a right one must not lock its user out by arriving in a burst). Who joins a
            // flight adds no guess, so only its own address's lock holds it back: the user's count includes the
            // flight's own attempt.
            const flightKey = `${userid.toUpperCase()}\0${password}`;
            let flight = flights.get(flightKey);
            if (flight) {
                refuseWhenLocked(keys.slice(-1));
            }
            else {
                refuseWhenLocked(keys);
                // Credentials checked right a moment ago are no guess: they count nothing.
                const remembered = impossibleUser.test(userid) ? undefined : osprey.users.remembered(userid, password);
                const recent = remembered && await remembered;
                if (recent) {
                    return recent;
                }

                flight = flights.get(flightKey);
            }

            if (!flight) {
                const counted = attempt(keys);
                flight = (async () => {

                    try {
                        const user = impossibleUser.test(userid) ? undefined : await osprey.users.verify(userid, password);
                        if (user) {
                            counted.succeeded();
                        }

                        return { user, counted };
                    }
                    finally {
                        flights.delete(flightKey);
                    }
                })();
                flights.set(flightKey, flight);
            }

            const { user, counted } = await flight;
            return user ?? await failed(counted);
        },
        // A key cannot be guessed (256 random bits) and its check is cheap, so a wrong key is counted after its
        // check: counting every request in flight would lock a busy client out of its own address.
        apiKey: async (key, address) => {

            const keys = throttleKeys(undefined, address);
            refuseWhenLocked(keys);
            return await osprey.apiKeys.verify(key) ?? await failed(attempt(keys));
        },
        locks: () => throttle.locks(),
        lift: (kind, name) => throttle.lift(kind === 'user' ? userKey(name) : `address:${name}`)
    };
    logins.set(osprey, made);
    return made;
};

// The one authentication scheme: API key (header or query parameter), then user/password credentials, then the
// session cookie. Every failure is the same 401 with no hint which part was wrong; repeated failures are
// slowed and then refused with 429 (src/auth/throttle.ts). A password login that brings no session cookie is
// offered one (src/auth/sessions.ts), as Maximo opens a session for it.
export const ospreyScheme = (server: Hapi.Server): Hapi.ServerAuthSchemeObject => {

    const osprey = server.app.osprey;
    const checks = loginsOf(server);

    return { authenticate: async (request, h) => {

        const address = clientAddress(request, osprey.options.trustProxy);
        const key = header(request, 'apikey') ?? (typeof request.query.apikey === 'string' ? request.query.apikey : undefined);
        if (key) {
            return h.authenticated({ credentials: { user: await checks.apiKey(key, address), method: 'apikey' } });
        }

        const token = sessionToken(request);
        const password = passwordCredentials(request);
        if (password) {
            const user = await checks.password(password.userid, password.password, address);
            let offeredSession: string | undefined;
            if (token === undefined) {
                // Set here rather than in a response extension, which every request would pass through. One
                // header, spelled so: IBM's Java client looks up exactly `Set-Cookie` and keeps the last one.
                offeredSession = osprey.sessions.offer(user.userid);
                request.raw.res.setHeader('Set-Cookie', sessionCookieHeader(request, osprey.options.contextRoot, offeredSession));
            }

            return h.authenticated({ credentials: { user, method: password.method, offeredSession } });
        }

        const userid = token && await osprey.sessions.resolve(token);
        const user = userid ? await osprey.users.profile(userid) : undefined;
        if (user) {
            return h.authenticated({ credentials: { user, method: 'session', sessionToken: token } });
        }

        throw maximoError('loginFailed');
    } };
};
