import type * as Hapi from '@hapi/hapi';

import { maximoError } from '../errors/maximo-error';
import { header } from './headers';


// What another site's page can make a browser send with Osprey's session cookie (SameSite=Lax: sent on a
// top-level link, and by pages of the same site, a sibling subdomain) without asking first: a GET, or a POST
// with no body or a form's body. A JSON body is asked first (a CORS preflight), so it reaches Osprey from a page
// of another origin only where OSPREY_CORS_ORIGINS lists it. Everything that changes state on such a request —
// a login, a logout, an action, a service method — goes through this check: a page of another site (the browser
// says so by Sec-Fetch-Site: cross-site or same-site, or by an Origin of another host) does nothing, unless its
// origin is listed by name (`*` lists none). The API clients (and curl) send neither header; a page of Osprey's
// own origin sends same-origin.
export const refuseCrossSite = (request: Hapi.Request, what: string): void => {

    const origin = header(request, 'origin');
    if (origin !== undefined && origin !== '*' && request.server.app.osprey.options.corsOrigins.includes(origin)) {
        return;
    }

    const site = header(request, 'sec-fetch-site')?.toLowerCase();
    if (site === 'cross-site' || site === 'same-site') {
        throw maximoError('forbidden', `${what} is not accepted from another site's page (Sec-Fetch-Site: ${site}), and nothing was done.`);
    }

    if (origin === undefined) {
        return;
    }

    const hosts = [request.info.host, header(request, 'x-forwarded-host')];
    let originHost: string;
    try {
        originHost = new URL(origin).host;
    }
    catch {
        originHost = '';                            // `null` (a sandboxed or privacy-sensitive page) and the like
    }

    if (!hosts.includes(originHost)) {
        throw maximoError('forbidden', `${what} is not accepted from another site's page (Origin: ${origin.slice(0, 200)}), and nothing was done.`);
    }
};
