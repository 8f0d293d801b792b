import type * as Hapi from '@hapi/hapi';

import { flag } from './flags';
import { header } from './headers';
import { homeOf } from './homes';
import { remember } from '../db/remember';


// The origin of the request as its Host names it, or undefined when the Host is not a host (and port): a Host
// is the client's word, and `h"><script>` must never reach an href.
const hostPattern = /^[a-z0-9.\-]+(:\d{1,5})?$|^\[[0-9a-f:.]+\](:\d{1,5})?$/i;

// A host name or address with an optional port, as a URL can hold it (a port above 65535, `[:::::]` or
// `[1.2.3.4]` pass the pattern but not the URL parser, which hapi runs on it later).
const wellFormed = (host: string): boolean => hostPattern.test(host) && URL.canParse(`http://${host}`);

// The Host values found well formed so far: a few names serve a server, so most checks are a lookup.
const goodHosts = new Set<string>();

// Whether a Host is a host name or address with an optional port, remembered when it is.
export const wellFormedHost = (host: string): boolean => {

    if (goodHosts.has(host)) {
        return true;
    }

    if (!wellFormed(host)) {
        return false;
    }

    if (goodHosts.size >= 256) {
        goodHosts.clear();
    }

    goodHosts.add(host);
    return true;
};

// The entry of a forwarded header (X-Forwarded-Proto, X-Forwarded-Host) the outermost of `trustProxy` proxies
// wrote: each proxy that appends puts its entry last, so it is that many places from the right; entries to its
// left are the client's own words. A proxy that sets the header (nginx's proxy_set_header) leaves one entry.
const forwarded = (request: Hapi.Request, name: string, trustProxy: number): string | undefined => {

    const value = header(request, name);
    if (value === undefined) {
        return undefined;
    }

    const entries = value.split(',').map((entry) => entry.trim()).filter(Boolean);
    return entries[Math.max(0, entries.length - trustProxy)];
};

// The scheme and host the client used, as an origin: the connection's scheme and the Host, or behind trusted
// proxies (OSPREY_TRUST_PROXY) what they forward, X-Forwarded-Proto (http or https) and a well-formed
// X-Forwarded-Host. Undefined when the host is not a host (and port): a Host is the client's word, and
// `h"><script>` must never reach an href. A scheme's default port is left out, as a URL's origin leaves it.
const hostOrigin = (request: Hapi.Request, trustProxy: number): string | undefined => {

    let scheme = request.server.info.protocol as string;
    let host = request.info.host;
    if (trustProxy > 0) {
        const proto = forwarded(request, 'x-forwarded-proto', trustProxy)?.toLowerCase();
        scheme = proto === 'http' || proto === 'https' ? proto : scheme;
        const forwardedHost = forwarded(request, 'x-forwarded-host', trustProxy);
        host = forwardedHost !== undefined && wellFormedHost(forwardedHost) ? forwardedHost : host;
    }

    if (!wellFormedHost(host)) {
        return undefined;
    }

    const origin = `${scheme}://${host}`.toLowerCase();
    return origin.endsWith(scheme === 'https' ? ':443' : ':80') ? origin.slice(0, origin.lastIndexOf(':')) : origin;
};

// A URL given as text (x-public-uri, a configured origin) rebuilt from its parsed parts: origin and path, never
// the text as sent.
const parsedBase = (text: string): { origin: string; base: string } | undefined => {

    if (!/^https?:\/\/\S+$/i.test(text)) {
        return undefined;
    }

    try {
        const url = new URL(text);
        return { origin: url.origin, base: `${url.origin}${url.pathname.replace(/\/+$/, '')}` };
    }
    catch {
        return undefined;
    }
};

// The origin hrefs are built on: the x-public-uri header when a proxy sends it, otherwise the request's own
// scheme and host (behind a trusted proxy, the forwarded ones); empty (relative hrefs) with relativeuri=1. In Maximo x-public-uri is the public URI of the
// API home, and IBM's Java client sends it so on every request (http://host:port/maximo/oslc): a value that
// ends with /{contextRoot}/{api|oslc} gives the origin before it; any other value is the origin itself.
//
// Both are the client's words, so neither may put an arbitrary origin into hrefs and Location (issue 18):
// x-public-uri counts when its origin is one of OSPREY_PUBLIC_ORIGINS, or the request's own, or when a trusted
// proxy (OSPREY_TRUST_PROXY) sets it; a Host (or a trusted proxy's X-Forwarded-Host) counts when it is a
// well-formed host and, where public origins are configured, one of them — else the first configured origin
// stands in.
export const origin = (request: Hapi.Request): string => {

    if (flag(request.query.relativeuri)) {
        return '';
    }

    const { contextRoot, publicOrigins, trustProxy } = request.server.app.osprey.options;
    // The Host counts only among the public origins, where they are configured (it is the client's word too).
    const sent = hostOrigin(request, trustProxy);
    const own = sent !== undefined && (publicOrigins.length === 0 || publicOrigins.includes(sent)) ? sent : undefined;
    const publicUri = header(request, 'x-public-uri');
    const given = publicUri === undefined ? undefined : parsedBase(publicUri);
    if (given && (trustProxy > 0 || given.origin === own || publicOrigins.includes(given.origin))) {
        const home = /^(.*)\/([^/]+)\/(?:api|oslc)$/i.exec(given.base);
        return home && home[1]!.length >= given.origin.length && home[2]!.toLowerCase() === contextRoot.toLowerCase() ? home[1]! : given.base;
    }

    if (own !== undefined) {
        return own;
    }

    // request.url is not to be touched here: hapi cannot make one of a malformed Host, and throws.
    const { host, port } = request.server.app.osprey.options;
    return publicOrigins[0] ?? `${request.server.info.protocol}://${host}:${port}`;
};

// The API home the request came in on, e.g. http://host:8080/maximo/oslc.
export const homeHref = (request: Hapi.Request, contextRoot: string): string => `${origin(request)}/${contextRoot}/${homeOf(request)}`;

// The request's URL as page links carry it on: credentials sent as query parameters never travel on. Made once
// per URL (a client pages through the same query, and the URL work was 3.6 % of a count=1's CPU), except for a
// URL that may carry credentials, which is not kept.
const linkHrefs = new Map<string, string>();
const credentials = /apikey|_lid|_lpwd|%/i;

export const linkHref = (href: string): string => {

    const known = linkHrefs.get(href);
    if (known !== undefined) {
        return known;
    }

    const url = new URL(href);
    for (const name of ['apikey', '_lid', '_lpwd']) {
        url.searchParams.delete(name);
    }

    return credentials.test(href) ? url.href : remember(linkHrefs, href, url.href, 1000);
};
