import type * as Hapi from '@hapi/hapi';

import { header } from '../http/headers';


export const sessionCookie = 'osprey_session';

export interface PasswordCredentials {
    userid: string;
    password: string;
    method: 'maxauth' | 'basic' | 'lid';
}

const decodePair = (encoded: string, method: PasswordCredentials['method']): PasswordCredentials | undefined => {

    const text = Buffer.from(encoded.trim(), 'base64').toString('utf8');
    const colon = text.indexOf(':');
    return colon > 0 ? { userid: text.slice(0, colon), password: text.slice(colon + 1), method } : undefined;
};

// Every user/password pair a request sends: Maximo's maxauth header, HTTP Basic, the _lid/_lpwd query parameters.
export const allPasswordCredentials = (request: Hapi.Request): PasswordCredentials[] => {

    const found: PasswordCredentials[] = [];
    const maxauth = header(request, 'maxauth');
    const fromMaxauth = maxauth ? decodePair(maxauth, 'maxauth') : undefined;
    if (fromMaxauth) {
        found.push(fromMaxauth);
    }

    const authorization = header(request, 'authorization');
    const basic = authorization && /^Basic\s+(\S+)$/i.exec(authorization);
    const fromBasic = basic ? decodePair(basic[1]!, 'basic') : undefined;
    if (fromBasic) {
        found.push(fromBasic);
    }

    const { _lid: userid, _lpwd: password } = request.query as Record<string, string | undefined>;
    if (typeof userid === 'string' && typeof password === 'string' && userid) {
        found.push({ userid, password, method: 'lid' });
    }

    return found;
};

// User and password from Maximo's maxauth header, HTTP Basic, or the _lid/_lpwd query parameters (the first).
export const passwordCredentials = (request: Hapi.Request): PasswordCredentials | undefined => allPasswordCredentials(request)[0];

// Cookies are read by hand: clients echo cookie attributes back (the npm Maximo client, and IBM's Java client,
// which sends the whole Set-Cookie value as its Cookie header). Offered tokens hold dots (src/auth/sessions.ts).
const sessionPattern = new RegExp(`(?:^|;\\s*)${sessionCookie}=([A-Za-z0-9_.-]{20,400})`, 'g');

// Every session token the Cookie header holds (two are two logins: the scheme refuses them).
export const sessionTokens = (request: Hapi.Request): string[] => {

    const cookies = header(request, 'cookie');
    return cookies ? [...cookies.matchAll(sessionPattern)].map((match) => match[1]!) : [];
};

export const sessionToken = (request: Hapi.Request): string | undefined => sessionTokens(request)[0];

export const sessionCookieHeader = (request: Hapi.Request, contextRoot: string, token: string | undefined): string => {

    const secure = request.url.protocol === 'https:' || header(request, 'x-forwarded-proto') === 'https' ? '; Secure' : '';
    const value = token ?? '';
    const expiry = token ? '' : '; Max-Age=0';
    return `${sessionCookie}=${value}; Path=/${contextRoot}; HttpOnly; SameSite=Lax${secure}${expiry}`;
};
