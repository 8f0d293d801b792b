import { setTimeout as sleep } from 'node:timers/promises';

import type * as Hapi from '@hapi/hapi';

import type { Osprey } from '../context';
import { maximoError } from '../errors/maximo-error';
import { clientAddress } from '../http/client-address';
import { otherSiteSign } from '../http/cross-site';
import type { UserProfile } from './users';
import { readCredentialState, type CredentialState } from './credential-stamp';
import { offeredCredentials, sessionCookieHeader, type PasswordCredentials } from './credentials';
import { LoginThrottle, addressKey, throttleKeys, userKey, type Attempt, type Lock } from './throttle';
import { normalUserid } from './userid';


// Credential checks behind one throttle: the authentication scheme's and the form login's
// (POST …/j_security_check), so a password guessed through either counts against the same limits, on every node.
export interface Logins {
    /** The user of a right password; a 401 (slowed) or 429 otherwise. `state`: as the request read it, when it did. */
    password(userid: string, password: string, address: string, state?: CredentialState): Promise<UserProfile>;
    /** `state`: its stamp is used; the address's failures are read again for a wrong key. */
    apiKey(key: string, address: string, state?: CredentialState): Promise<UserProfile>;
    /** A form login (its fields read by plugins/auth): refused with 400 beside any other login, as the scheme refuses two. */
    formLogin(request: Hapi.Request, userid: string, password: string): Promise<UserProfile>;
    /** The users and addresses locked out now, for an administrator. */
    locks(): Promise<Lock[]>;
    /** Lifts the lock of a user or an address; whether there was one (or a count of failures) to lift. */
    lift(kind: 'user' | 'address', name: string): Promise<boolean>;
    /** Removes counts whose window has passed (housekeeping); how many. */
    purge(): Promise<number>;
}

// Keyed by the application state, which every plugin's view of the server shares (the server objects differ).
const logins = new WeakMap<object, Logins>();

// A user id no account can have: control characters (a NUL is an error in PostgreSQL text), or longer than the
// user table's column. It is a failed login, counted against the address only.
const impossibleUser = (userid: string) => /[\u0000-\u001f\u007f]/.test(userid) || userid.length > 30;

const tooMany = (wait: number) => {

    const error = maximoError('tooManyLogins', `Too many failed logins. Try again in ${wait} seconds.`);
    error.output.headers['Retry-After'] = String(wait);
    return error;
};

// How a client sent a user and password, as it would name it.
const spelled: Readonly<Record<PasswordCredentials['method'], string>> = { maxauth: 'maxauth', basic: 'Authorization: Basic', lid: '_lid with _lpwd', form: 'j_username with j_password' };

const twoUsers = (what: string) => maximoError('badRequest', `This request carries ${what}; a request logs in as one user: send one credential.`);

// The credentials a request carries, refused with 400 when they are of two logins: two different API keys
// (header lines and query), two different user/password pairs (maxauth, Basic, _lid/_lpwd, a form login's fields,
// and each repeated line of a header), two session cookies. A credential header that names no login (unreadable,
// or of a scheme Osprey does not carry out) is a failed login alone, and a 400 beside another credential: it is
// never passed over for the other. The one place every login crosses: the scheme's and the form login's.
const credentialsOf = (request: Hapi.Request, form?: PasswordCredentials) => {

    const { keys, passwords, tokens, unread } = offeredCredentials(request);
    if (new Set(keys).size > 1) {
        throw twoUsers('two different API keys (apikey header lines or query parameters)');
    }

    if (form) {
        passwords.unshift(form);
    }

    const first: PasswordCredentials | undefined = passwords[0];
    const other = passwords.find((pair) => normalUserid(pair.userid) !== normalUserid(first!.userid) || pair.password !== first!.password);
    if (other) {
        throw twoUsers(`two different logins (${spelled[first!.method]}${other.method === first!.method ? ' twice' : ` and ${spelled[other.method]}`})`);
    }

    if (new Set(tokens).size > 1) {
        throw twoUsers('two different session cookies');
    }

    if (unread.length && (keys.length || passwords.length || tokens.length)) {
        throw twoUsers(`${unread[0]} beside another credential`);
    }

    return { key: keys[0], password: first, token: tokens[0] };
};

// The user of a live session, or undefined (unknown, ended, idle, or opened under another stamp of its user).
const sessionUser = async (osprey: Osprey, token: string, stamp: number): Promise<UserProfile | undefined> => {

    const session = await osprey.sessions.resolve(token, async (userid) => (await osprey.users.profile(userid, stamp))?.stamp);
    const user = session && await osprey.users.profile(session.userid, stamp);
    return user?.stamp === session?.stamp ? user : undefined;
};

// A session cookie beside another credential: refused when it is a live session of another user. An offered
// token names its user under the server's signature, so one of the same user costs no database read.
const refuseOtherSession = async (osprey: Osprey, token: string | undefined, userid: string, stamp: number) => {

    if (token === undefined || osprey.sessions.offeredUser(token) === userid) {
        return;
    }

    const other = await sessionUser(osprey, token, stamp);
    if (other && other.userid !== userid) {
        throw twoUsers(`a session cookie of ${other.userid} and the credentials of ${userid}`);
    }
};

// A logout ends the session of its cookie and asks no login, but a request carries one user's credentials (the
// scheme's rule, src/auth/scheme.ts): another user's password beside the cookie, two cookies, or an API key beside
// one (a logout does not revoke keys: apitoken/revoke does) is a 400, and no session ends. A browser that signed
// in with Basic sends it with its logout too: the same user's, that is one login.
export const refuseOtherLogins = (request: Hapi.Request, token: string | undefined): void => {

    // Two keys, two users' passwords, two cookies, an unreadable credential beside another: the scheme's own rule.
    const { key, password } = credentialsOf(request);
    const owner = token === undefined ? undefined : request.server.app.osprey.sessions.offeredUser(token);
    if (token !== undefined && (key !== undefined || (owner !== undefined && password !== undefined && normalUserid(password.userid) !== owner))) {
        throw maximoError('badRequest', 'This logout carries the credentials of more than one login (another user\'s password or an API key beside the session cookie); a logout ends the session of its one cookie: send that alone.');
    }

    // A form's fields (j_username, j_password) or any other body: a logout reads none, so it is sent none.
    const body = request.payload;
    if (body !== null && body !== undefined && !(Buffer.isBuffer(body) && body.length === 0) && !(typeof body === 'object' && Object.keys(body).length === 0)) {
        throw maximoError('badRequest', 'A logout takes no body: it ends the session of its cookie, whoever a body names.');
    }
};

export const loginsOf = (server: Hapi.Server): Logins => {

    const osprey = server.app.osprey;
    const known = logins.get(osprey);
    if (known) {
        return known;
    }

    const throttle = new LoginThrottle(osprey.knex, { attempts: osprey.options.loginAttempts, windowMs: osprey.options.loginLockMinutes * 60_000 });

    const refuseWhenLocked = (state: CredentialState, names: string[]) => {

        const wait = throttle.retryAfter(state.failures, names);
        if (wait > 0) {
            throw tooMany(wait);
        }
    };

    // The attempt is counted before the check, so a burst cannot run more checks than the limit allows.
    const attempt = async (names: string[]): Promise<Attempt> => {

        const counted = await throttle.attempt(names);
        if (typeof counted === 'number') {
            throw tooMany(counted);
        }

        return counted;
    };

    // The failure that locks a user or an address out is the server's event: a lock lasts the window (it lifts
    // by itself then, at its retryAfter) or until an administrator lifts it (plugins/auth/locks.ts).
    const failed = async (counted: Attempt): Promise<never> => {

        for (const lock of counted.locking()) {
            osprey.log('warn', { msg: 'login lockout', key: lock.key, failures: lock.failures, retryAfter: lock.retryAfter });
        }

        await sleep(counted.failed());
        throw maximoError('loginFailed');
    };

    // Concurrent checks of the same credentials on this node are one attempt: the first counts it (against its
    // user and its address), the others wait for its outcome.
    const flights = new Map<string, Promise<{ user?: UserProfile; counted: Attempt }>>();

    const made: Logins = {
        password: async (userid, password, address, given) => {

            const possible = !impossibleUser(normalUserid(userid));
            const names = throttleKeys(possible ? userid : undefined, address);
            const state = given ?? await readCredentialState(osprey.db, names);
            // One flight per credentials, whatever address sends them: the same password from many places at once is
            // one check and one attempt (a right one must not lock its user out by arriving in a burst). Who joins a
            // flight adds no guess, so only its own address's lock holds it back: the user's count includes the
            // flight's own attempt.
            const flightKey = `${normalUserid(userid)}\0${password}`;
            let flight = flights.get(flightKey);
            if (flight) {
                refuseWhenLocked(state, names.slice(-1));
            }
            else {
                refuseWhenLocked(state, names);
                // Credentials checked right a moment ago are no guess: they count nothing, and clear the user's count.
                const recent = possible ? await osprey.users.remembered(userid, password, state.stamp) : undefined;
                if (recent) {
                    osprey.log('debug', { msg: 'login remembered', user: recent.userid });
                    if (throttle.counting(state.failures, names[0]!)) {
                        await throttle.clear(names[0]!);
                    }

                    return recent;
                }

                flight = flights.get(flightKey);
            }

            if (!flight) {
                flight = (async () => {

                    try {
                        const counted = await attempt(names);
                        const user = possible ? await osprey.users.verify(userid, password, state.stamp) : undefined;
                        if (user) {
                            await counted.succeeded();
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
        // For the same reason an address lock holds back wrong keys only: a right one is no guess, and lets a
        // locked-out administrator lift the lock (plugins/auth/locks.ts).
        apiKey: async (key, address, given) => {

            // The address's failures are read only for a wrong key: a right one needs the stamp alone.
            const names = [addressKey(address)];
            const stamp = given?.stamp ?? (await readCredentialState(osprey.db, [])).stamp;
            const user = await osprey.apiKeys.verify(key, stamp);
            if (user) {
                return user;
            }

            refuseWhenLocked(await readCredentialState(osprey.db, names), names);
            return await failed(await attempt(names));
        },
        formLogin: async (request, userid, password) => {

            const { key, token } = credentialsOf(request, { userid, password, method: 'form' });
            if (key !== undefined) {
                throw twoUsers('an API key beside the credentials of its form');
            }

            const address = clientAddress(request, osprey.options.trustProxy);
            const normal = normalUserid(userid);
            const state = await readCredentialState(osprey.db, throttleKeys(impossibleUser(normal) ? undefined : normal, address));
            await refuseOtherSession(osprey, token, normal, state.stamp);
            return await made.password(userid, password, address, state);
        },
        locks: () => throttle.locks(),
        lift: async (kind, name) => {

            const key = kind === 'user' ? userKey(name) : addressKey(name);
            const lifted = await throttle.lift(key);
            if (lifted) {
                osprey.log('info', { msg: 'login lock lifted', key });
            }

            return lifted;
        },
        purge: () => throttle.purge()
    };
    logins.set(osprey, made);
    return made;
};

// The one authentication scheme: API key (header or query parameter), user/password credentials, or the session
// cookie. Every failure is the same 401 with no hint which part was wrong; repeated failures are slowed and then
// refused with 429 (src/auth/throttle.ts). Credentials of two users in one request (an API key and another user's
// maxauth, a session cookie and another user's password…) are a 400: which one would win is no client's to guess.
// A password login that brings no session cookie is offered one (src/auth/sessions.ts), as Maximo opens a session
// for it. Each request reads osprey_authstamp (and its login failures) first, so what this node remembers of a
// user is dropped as soon as the user changes on any node (src/auth/credential-stamp.ts).
export const ospreyScheme = (server: Hapi.Server): Hapi.ServerAuthSchemeObject => {

    const osprey = server.app.osprey;
    const checks = loginsOf(server);

    return { authenticate: async (request, h) => {

        const address = clientAddress(request, osprey.options.trustProxy);
        const { key, password, token } = credentialsOf(request);
        if (key) {
            const state = await readCredentialState(osprey.db, []);     // the address's failures only for a wrong key
            const user = await checks.apiKey(key, address, state);
            if (password && normalUserid(password.userid) !== user.userid) {
                throw twoUsers(`an API key of ${user.userid} and the ${password.method} credentials of another user`);
            }

            await refuseOtherSession(osprey, token, user.userid, state.stamp);
            return h.authenticated({ credentials: { user, method: 'apikey' } });
        }

        if (password) {
            const userid = normalUserid(password.userid);
            const names = throttleKeys(impossibleUser(userid) ? undefined : userid, address);
            const state = await readCredentialState(osprey.db, names);
            await refuseOtherSession(osprey, token, userid, state.stamp);
            const user = await checks.password(password.userid, password.password, address, state);
            let offeredSession: string | undefined;
            // Never to another site's page: a link with _lid/_lpwd would log the browser in as the link's user.
            if (token === undefined && otherSiteSign(request) === undefined) {
                // Set here rather than in a response extension, which every request would pass through. One
                // header, spelled so: IBM's Java client looks up exactly `Set-Cookie` and keeps the last one.
                offeredSession = osprey.sessions.offer(user);
                request.raw.res.setHeader('Set-Cookie', sessionCookieHeader(request, osprey.options.contextRoot, offeredSession));
            }

            return h.authenticated({ credentials: { user, method: password.method, offeredSession } });
        }

        const user = token && await sessionUser(osprey, token, (await readCredentialState(osprey.db, [])).stamp);
        if (user) {
            return h.authenticated({ credentials: { user, method: 'session', sessionToken: token } });
        }

        throw maximoError('loginFailed');
    } };
};
