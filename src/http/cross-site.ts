import type * as Hapi from '@hapi/hapi';

import { maximoError } from '../errors/maximo-error';
import { header } from './headers';


// What another site's page can make a browser send with Osprey's session cookie (SameSite=Lax: sent on a
// top-level link, and by pages of the same site, a sibling subdomain) without asking first: a GET, or a POST
// with no body or a form's body. A JSON body is asked first (a CORS preflight), so it reaches Osprey from a page
// of another origin only where OSPREY_CORS_ORIGINS lists it. Everything that may change state on such a request
// goes through this check (checkCrossSite below): a page of another site (the browser
// says so by Sec-Fetch-Site: cross-site or same-site, or by an Origin of another host) does nothing, unless its
// origin is listed by name (`*` lists none). The API clients (and curl) send neither header; a page of Osprey's
// own origin sends same-origin.
export const refuseCrossSite = (request: Hapi.Request, what: string): void => {

    const sign = otherSiteSign(request);
    if (sign !== undefined) {
        throw maximoError('forbidden', `${what} is not accepted from another site's page (${sign}), and nothing was done.`);
    }
};

// What says a request comes from another site's page (the header and its value), or none.
export const otherSiteSign = (request: Hapi.Request): string | undefined => {

    const origin = header(request, 'origin');
    if (origin !== undefined && origin !== '*' && request.server.app.osprey.options.corsOrigins.includes(origin)) {
        return undefined;
    }

    const site = header(request, 'sec-fetch-site')?.toLowerCase();
    if (site === 'cross-site' || site === 'same-site') {
        return `Sec-Fetch-Site: ${site}`;
    }

    if (origin === undefined) {
        return undefined;
    }

    const hosts = [request.info.host, header(request, 'x-forwarded-host')];
    let originHost: string;
    try {
        originHost = new URL(origin).host;
    }
    catch {
        originHost = '';                            // `null` (a sandboxed or privacy-sensitive page) and the like
    }

    return hosts.includes(originHost) ? undefined : `Origin: ${origin.slice(0, 200)}`;
};

/** Route options (`options.app`) of a GET that changes state: the words a refusal names it by. */
export interface CrossSiteRoute {
    readonly crossSite?: string;
}

// The one place the rule is kept (the parameter gate calls it before every handler, plugins' routes included):
// every request that may change state — any method but GET and HEAD, a GET with ?action= (an action, a service
// method), a GET route whose options say it changes state (a login by _lid/_lpwd, a logout) — is refused when a
// page of another site sent it. A JSON body needs a CORS preflight anyway; this covers what needs none, and a
// route a plugin adds later.
export const checkCrossSite = (request: Hapi.Request): void => {

    const method = request.method;
    const action = request.query.action as unknown;
    const label = (request.route.settings.app as CrossSiteRoute | undefined)?.crossSite;
    if ((method === 'get' || method === 'head') && action === undefined && label === undefined) {
        return;
    }

    const named = Array.isArray(action) ? action[action.length - 1] as unknown : action;
    refuseCrossSite(request, named !== undefined ? `The action ${String(named).slice(0, 100)}` : label ?? `A ${method.toUpperCase()} of ${request.path.slice(0, 200)}`);
};
