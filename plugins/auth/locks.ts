import type * as Hapi from '@hapi/hapi';

import { loginsOf, maximoError, type UserProfile } from '../../src';


// {home}/loginlocks: the users and addresses that failed logins have locked out, and lifting a lock before its
// window ends (issue 18): a lock meant for a guesser also stops the user it names, so an administrator must be
// able to let them back in without a restart. Administrators only: the list tells who is under attack. An
// administrator's API key serves too: a locked-out administrator may have nothing else that still logs in. Locks
// are the database's (osprey_loginfailure, src/auth/throttle.ts): listed and lifted on one node, for every node.

const administrator = (request: Hapi.Request): void => {

    const user = request.auth.credentials.user as UserProfile;
    if (!user.isAdmin) {
        throw maximoError('forbidden', 'Login locks are for administrators.');
    }
};

export const listLocks: Hapi.Lifecycle.Method = async (request) => {

    administrator(request);
    const member = (await loginsOf(request.server).locks()).map(({ key, failures, retryAfter }) => {

        const [kind, ...rest] = key.split(':');
        return { [kind === 'user' ? 'userid' : 'address']: rest.join(':'), failures, retryAfter };
    });

    return { member };
};

// DELETE …/loginlocks/users/{userid} and …/loginlocks/addresses/{address}: 204 when a lock (or a count of failures)
// was lifted, 404 when there was none.
export const liftLock = (kind: 'users' | 'addresses'): Hapi.Lifecycle.Method => {

    return async (request, h) => {

        administrator(request);
        const name = String(request.params.name);
        if (!await loginsOf(request.server).lift(kind === 'users' ? 'user' : 'address', name)) {
            throw maximoError('notFound', `There is no login lock on ${kind === 'users' ? 'the user' : 'the address'} ${name}.`);
        }

        return h.response().code(204);
    };
};
