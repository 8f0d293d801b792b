import type * as Hapi from '@hapi/hapi';

import { sessionCookieHeader, sessionToken } from '../../src/auth/credentials';
import { maximoError } from '../../src/errors/maximo-error';
import { homeRoutes } from '../../src/http/homes';
import { whoami } from '../info/documents';


// Credential login and logout. hapi lower-cases the headers it writes, but some Maximo clients look the
// cookie header up as exactly `Set-Cookie`, so it is set on the raw response with that spelling.
const setCookie = (request: Hapi.Request, value: string) => request.raw.res.setHeader('Set-Cookie', value);

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
            setCookie(request, sessionCookieHeader(request, contextRoot, token));
            return h.response(whoami(request));
        };

        const logout: Hapi.Lifecycle.Method = async (request, h) => {

            const token = sessionToken(request);
            if (token) {
                await request.server.app.osprey.sessions.end(token);
            }

            setCookie(request, sessionCookieHeader(request, contextRoot, undefined));
            return h.response().code(200);
        };

        server.route(homeRoutes(contextRoot, [
            { method: 'GET', path: '/login', options: { id: 'auth.login', handler: login } },
            { method: 'POST', path: '/login', options: { id: 'auth.loginPost', handler: login, payload: { parse: false, output: 'data' } } },
            { method: 'GET', path: '/logout', options: { id: 'auth.logout', auth: false, handler: logout } }
        ]));
        server.route({ method: 'GET', path: `/${contextRoot}/logout`, options: { id: 'auth.logoutRoot', auth: false, handler: logout } });
    }
};
