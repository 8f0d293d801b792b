import type * as Hapi from '@hapi/hapi';

import type { OspreyOptions } from '../config';
import { maximoError } from '../errors/maximo-error';
import { header } from './headers';
import { requestHeaders } from './parameters';


// Browsers on other origins (OSPREY_CORS_ORIGINS). hapi's route option `cors` puts the answer's CORS headers on
// every answer, errors and 404s included (Access-Control-Allow-Origin for a listed origin, -Allow-Credentials,
// -Expose-Headers, Vary: origin). The preflight is answered here, before routing, rather than by hapi's own
// OPTIONS route: that one answers 200 with a JSON of its own or a bare 404 for what it refuses, and every route
// of any method (services, doclinks, the services not provided) would be found before it. Here a refusal is a
// Maximo error that says why, and neither the login nor the parameter gate runs: a browser sends no credentials
// and none of the request's headers on a preflight.

// The methods a page may send (with x-method-override for Maximo's MERGE, SYNC, BULK). A browser compares them
// case-sensitively: `fetch(…, { method: 'patch' })` is sent lowercase, and answered as not allowed.
export const corsMethods = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE'] as const;

// The headers a page may send: every header of the parameter table (one it may not send on some route is refused
// there by name, which a page can read; a cookie is no page's to set), and the transport headers Osprey reads.
export const corsRequestHeaders: readonly string[] = [
    ...requestHeaders.map((known) => known.name).filter((name) => name !== 'cookie'),
    'accept', 'accept-language', 'content-language', 'content-type', 'content-encoding', 'range', 'if-range'
];

// The answer's headers a page may read beside the safelisted ones (Content-Type, Content-Length, …).
export const corsExposedHeaders: readonly string[] = ['location', 'etag', 'content-disposition', 'content-range', 'accept-ranges', 'retry-after', 'www-authenticate', 'x-request-id'];

// How long a browser may keep a preflight's answer: a page's next writes go without one. An origin taken out of the
// settings is still preflighted by a browser that kept the answer for that long (the answers to its requests carry
// no Access-Control-Allow-Origin at once).
export const corsMaxAge = 600;

const allowedHeaders = new Set(corsRequestHeaders);
const allowedMethods = new Set<string>(corsMethods);

// The `cors` route option of every route, or false (no CORS headers) when no origin is configured. Credentials
// (the session cookie, the browser's Basic login) only for listed origins: `*` answers any page, without them
// (hapi names the page's origin in Access-Control-Allow-Origin rather than `*`, with Vary: origin).
export const corsRouteOptions = (options: OspreyOptions): Hapi.RouteOptionsCors | false => {

    if (!options.corsOrigins.length) {
        return false;
    }

    return {
        origin: [...options.corsOrigins],
        credentials: !options.corsOrigins.includes('*'),
        headers: [...corsRequestHeaders],
        additionalHeaders: [],
        exposedHeaders: [...corsExposedHeaders],
        additionalExposedHeaders: [],
        maxAge: corsMaxAge,
        preflightStatusCode: 204
    };
};

const setting = 'OSPREY_CORS_ORIGINS';

// An OPTIONS request: the preflight of a page on a listed origin is answered 204 with what it may send; anything
// else is a Maximo error that says why. A route a plugin declares for OPTIONS itself is left to it.
export const answerOptions = (request: Hapi.Request, h: Hapi.ResponseToolkit): Hapi.Lifecycle.ReturnValue => {

    const own = request.server.match('options', request.path);
    if (own?.method === 'options') {
        return h.continue;
    }

    const origins = request.server.app.osprey.options.corsOrigins;
    if (!origins.length) {
        throw maximoError('methodNotAllowed', `OPTIONS is answered only as the CORS preflight of a web page on another origin, and CORS is off: set ${setting} to the origins of the pages that call this server.`);
    }

    const origin = header(request, 'origin');
    const method = header(request, 'access-control-request-method');
    if (origin === undefined || method === undefined) {
        throw maximoError('methodNotAllowed', `OPTIONS is answered only as the CORS preflight of a web page on another origin, which sends Origin and Access-Control-Request-Method.`);
    }

    if (!origins.includes('*') && !origins.includes(origin)) {
        throw maximoError('forbidden', `The origin ${origin.slice(0, 200)} is not one of ${setting}, so its pages may not call this server.`);
    }

    if (!allowedMethods.has(method)) {
        throw maximoError('methodNotAllowed', `A page may send ${corsMethods.join(', ')} (in capitals), not ${method.slice(0, 50)}; Maximo's MERGE, SYNC and BULK are a POST with x-method-override.`);
    }

    const asked = (header(request, 'access-control-request-headers') ?? '').split(',').map((name) => name.trim().toLowerCase()).filter(Boolean);
    const refused = asked.filter((name) => !allowedHeaders.has(name));
    if (refused.length) {
        throw maximoError('forbidden', `A page may not send the header${refused.length > 1 ? 's' : ''} ${refused.join(', ').slice(0, 200)}: this server reads none of them. It reads ${corsRequestHeaders.join(', ')}.`);
    }

    // A route of a plugin may keep other origins out (`cors: false`).
    const route = request.server.match(method as typeof corsMethods[number], request.path);
    if (route && route.settings.cors === false) {
        throw maximoError('forbidden', `${method} ${request.path} answers no page on another origin.`);
    }

    // hapi's cors step adds Access-Control-Allow-Origin, -Allow-Credentials and Vary: origin to this answer too.
    return h.response()
        .code(204)
        .header('access-control-allow-origin', origin)
        .header('access-control-allow-methods', corsMethods.join(', '))
        .header('access-control-allow-headers', corsRequestHeaders.join(', '))
        .header('access-control-max-age', String(corsMaxAge))
        .takeover();
};
