import type * as Hapi from '@hapi/hapi';

import { sessionCookieHeader, sessionToken } from '../../src/auth/credentials';
import { maximoError } from '../../src/errors/maximo-error';
import { homeRoutes } from '../../src/http/homes';
import { whoami } from '../info/documents';


// Credential login and logout. The session cookie header is written by hand as `Set-Cookie`: some Maximo
// clients look the header up with exactly that spelling.
export const authRoutes: Hapi.Plugin<unknown> = {
    name: 'auth',
    register: (server) => {

        const { contextRoot } = server.app.osprey.options;

        const login: Hapi.Lifecycle.Method = async (request, h) => {

            const osprey = request.server.app.osprey;
            const credentials = request.auth.credentials;
            if (credentials.method === 'apikey') {
                throw maximoError('forbidden', 'A login needs user credentials (maxauth, Basic or _lid/_lpwd), not an API key.');
            }

            const token = credentials.sessionToken ?? await osprey.sessions.create(credentials.user!.userid);
            return h.response(whoami(request)).header('Set-Cookie', sessionCookieHeader(request, contextRoot, token));
        };

        const logout: Hapi.Lifecycle.Method = async (request, h) => {

            const token = sessionToken(request);
            if (token) {
                await request.server.app.osprey.sessions.end(token);
            }

            return h.response().code(200).header('Set-Cookie', sessionCookieHeader(request, contextRoot, undefined));
        };

        server.route(homeRoutes(contextRoot, [
            { method: 'GET', path: '/login', options: { id: 'auth.login', handler: login } },
            { method: 'POST', path: '/login', options: { id: 'auth.loginPost', handler: login, payload: { parse: false, output: 'data' } } },
            { method: 'GET', path: '/logout', options: { id: 'auth.logout', auth: false, handler: logout } }
        ]));
        server.route({ method: 'GET', path: `/${contextRoot}/logout`, options: { id: 'auth.logoutRoot', auth: false, handler: logout } });
    }
};
