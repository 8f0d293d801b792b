import type * as Hapi from '@hapi/hapi';

import { maximoError } from '../errors/maximo-error';
import { header } from '../http/headers';
import { passwordCredentials, sessionToken } from './credentials';
import type { UserProfile } from './users';


// An API-key verifier is added by the apikeys plugin; the scheme only knows that keys exist.
export type ApiKeyVerifier = (key: string, request: Hapi.Request) => Promise<UserProfile | undefined>;

// The one authentication scheme: API key, then user/password credentials, then the session cookie.
// Every failure is the same 401 with no hint which part was wrong.
export const ospreyScheme = (verifiers: { apikey?: ApiKeyVerifier }) => {

    return (server: Hapi.Server): Hapi.ServerAuthSchemeObject => ({ authenticate: async (request, h) => {

        const osprey = server.app.osprey;
        const key = header(request, 'apikey') ?? (typeof request.query.apikey === 'string' ? request.query.apikey : undefined);
        if (key && verifiers.apikey) {
            const user = await verifiers.apikey(key, request);
            if (user) {
                return h.authenticated({ credentials: { user, method: 'apikey' } });
            }

            throw maximoError('loginFailed');
        }

        const password = passwordCredentials(request);
        if (password) {
            const user = await osprey.users.verify(password.userid, password.password);
            if (user) {
                return h.authenticated({ credentials: { user, method: password.method } });
            }

            throw maximoError('loginFailed');
        }

        const token = sessionToken(request);
        const userid = token && await osprey.sessions.resolve(token);
        const user = userid ? await osprey.users.profile(userid) : undefined;
        if (user) {
            return h.authenticated({ credentials: { user, method: 'session', sessionToken: token } });
        }

        throw maximoError('loginFailed');
    } });
};
