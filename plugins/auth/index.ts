import type * as Hapi from '@hapi/hapi';

import { homeRoutes, loginsOf, maximoError, purgeWhileRunning, refuseOtherLogins, sessionCookieHeader, sessionToken } from '../../src';
import { whoami } from '../info/documents';
import { formCredentials } from './form';
import { liftLock, listLocks } from './locks';


// Credential login and logout. hapi lower-cases the headers it writes, but some Maximo clients look the
// cookie header up as exactly `Set-Cookie` (IBM's Java client among them), so it is set on the raw response
// with that spelling, and only once per answer: that client keeps the last Set-Cookie it sees.
const setCookie = (request: Hapi.Request, value: string) => request.raw.res.setHeader('Set-Cookie', value);

// IBM's Java client in FORM mode posts to `{appURI}/j_security_check`, and its appURI already ends in the query
// `?&lean=1`, so that post arrives at the home itself with the query `lean=1/j_security_check`.
const formLoginQuery = /\/j_security_check$/;

export const authRoutes: Hapi.Plugin<unknown> = {
    name: 'auth',
    // The app (src/app.ts): server.app.osprey (options, sessions) and the login strategy its login routes use.
    dependencies: ['osprey'],
    register: (server) => {

        const osprey = server.app.osprey;
        const { contextRoot } = osprey.options;

        // Ended and idle sessions (and the ends of offers once they have expired) are housekeeping, and so are
        // counts of failed logins whose window has passed.
        purgeWhileRunning(server, osprey.options.sessionMinutes * 60_000, () => osprey.sessions.purge());
        purgeWhileRunning(server, osprey.options.loginLockMinutes * 60_000, () => loginsOf(server).purge());

        const login: Hapi.Lifecycle.Method = (request, h) => {

            const credentials = request.auth.credentials;
            if (credentials.method === 'apikey') {
                throw maximoError('forbidden', 'A login needs user credentials (maxauth, Basic or _lid/_lpwd), not an API key.');
            }

            // A login that already holds a session keeps it; otherwise the scheme's offer becomes its cookie.
            const token = credentials.sessionToken ?? credentials.offeredSession ?? request.server.app.osprey.sessions.offer(credentials.user!);
            setCookie(request, sessionCookieHeader(request, contextRoot, token));
            return h.response(whoami(request));
        };

        const formLogin: Hapi.Lifecycle.Method = async (request, h) => {

            if (request.route.settings.id?.startsWith('auth.formLoginQuery') && !formLoginQuery.test(request.url.search)) {
                throw maximoError('methodNotAllowed', `POST is not served on ${request.path}; a form login posts to ${request.path}/j_security_check.`);
            }

            const form = formCredentials(request);
            const user = await loginsOf(request.server).formLogin(request, form.userid, form.password);
            setCookie(request, sessionCookieHeader(request, contextRoot, osprey.sessions.offer(user)));
            // A browser's login page goes back to the address it was shown for; the clients get whoami.
            return form.redirect === undefined ? h.response(whoami(request, user)) : h.redirect(form.redirect).code(303);
        };

        // POST is the logout's method; GET stays because both Maximo clients log out so (IBM's Java client and the
        // npm client send GET {contextRoot}/logout), but not from another site's page: its routes say they change
        // state (src/http/cross-site.ts), as a login's GET does (_lid/_lpwd in a link would log a browser in).
        const logout: Hapi.Lifecycle.Method = async (request, h) => {

            const token = sessionToken(request);
            refuseOtherLogins(request, token);
            if (token) {
                await request.server.app.osprey.sessions.end(token);
            }

            setCookie(request, sessionCookieHeader(request, contextRoot, undefined));
            return h.response().code(200);
        };

        // Small and unparsed: a form of two fields, read by formCredentials.
        const form = { auth: false, handler: formLogin, payload: { parse: false, output: 'data', maxBytes: 4096 } } as const;
        server.route(homeRoutes(contextRoot, [
            { method: 'GET', path: '/login', options: { id: 'auth.login', handler: login, app: { crossSite: 'A login' } } },
            { method: 'POST', path: '/login', options: { id: 'auth.loginPost', handler: login, payload: { parse: false, output: 'data' } } },
            { method: 'POST', path: '/j_security_check', options: { id: 'auth.formLogin', ...form } },
            { method: 'POST', path: '', options: { id: 'auth.formLoginQuery', ...form } },
            { method: 'GET', path: '/logout', options: { id: 'auth.logout', auth: false, handler: logout, app: { crossSite: 'A logout' } } },
            { method: 'POST', path: '/logout', options: { id: 'auth.logoutPost', auth: false, handler: logout } },
            { method: 'GET', path: '/loginlocks', options: { id: 'auth.locks', handler: listLocks } },
            { method: 'DELETE', path: '/loginlocks/users/{name}', options: { id: 'auth.liftUserLock', handler: liftLock('users') } },
            { method: 'DELETE', path: '/loginlocks/addresses/{name}', options: { id: 'auth.liftAddressLock', handler: liftLock('addresses') } }
        ]));
        server.route({ method: 'POST', path: `/${contextRoot}/j_security_check`, options: { id: 'auth.formLoginRoot', ...form } });
        server.route({ method: 'GET', path: `/${contextRoot}/logout`, options: { id: 'auth.logoutRoot', auth: false, handler: logout, app: { crossSite: 'A logout' } } });
        server.route({ method: 'POST', path: `/${contextRoot}/logout`, options: { id: 'auth.logoutRootPost', auth: false, handler: logout } });
    }
};
