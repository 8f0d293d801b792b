import type * as Hapi from '@hapi/hapi';

import { header, headerLines } from '../http/headers';


export const sessionCookie = 'osprey_session';

export interface PasswordCredentials {
    userid: string;
    password: string;
    method: 'maxauth' | 'basic' | 'lid' | 'form';
}

// Standard base64 (padded or not), nothing else: Buffer.from(…, 'base64') skips what it cannot read and stops at
// padding, so `A, B` (two maxauth lines a proxy joined) would have decoded as A alone.
const base64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}(?:==)?|[A-Za-z0-9+/]{3}=?)?$/;

const decodePair = (encoded: string, method: PasswordCredentials['method']): PasswordCredentials | undefined => {

    const trimmed = encoded.trim();
    const text = base64.test(trimmed) ? Buffer.from(trimmed, 'base64').toString('utf8') : '';
    const colon = text.indexOf(':');
    return colon > 0 ? { userid: text.slice(0, colon), password: text.slice(colon + 1), method } : undefined;
};

// Everything a request offers to log in with, every line of every credential header read on its own (src/http/
// headers.ts), so that a repeated header is seen as two credentials (the scheme refuses two different ones).
export interface OfferedCredentials {
    readonly keys: string[];
    readonly passwords: PasswordCredentials[];
    readonly tokens: string[];
    /** Credential headers that name no login (an unreadable maxauth or Basic, a scheme Osprey does not carry out): what each is. */
    readonly unread: string[];
}

const queryValues = (value: unknown): string[] => (Array.isArray(value) ? value : [value]).filter((one): one is string => typeof one === 'string');

// Cookies are read by hand: clients echo cookie attributes back (the npm Maximo client, and IBM's Java client,
// which sends the whole Set-Cookie value as its Cookie header). Offered tokens hold dots (src/auth/sessions.ts).
const sessionPattern = new RegExp(`(?:^|;\\s*)${sessionCookie}=([A-Za-z0-9_.-]{20,400})`, 'g');

export const offeredCredentials = (request: Hapi.Request): OfferedCredentials => {

    const query = request.query as Record<string, unknown>;
    const keys = [...headerLines(request, 'apikey'), ...queryValues(query.apikey)].filter((key) => key !== '');
    const passwords: PasswordCredentials[] = [];
    const unread: string[] = [];
    // An empty line carries nothing, as an absent header (some clients send one unset).
    const lines = (name: string) => headerLines(request, name).filter((line) => line.trim() !== '');
    for (const line of lines('maxauth')) {
        const pair = decodePair(line, 'maxauth');
        if (pair) {
            passwords.push(pair);
        }
        else {
            unread.push('a maxauth header that is not the base64 of user:password');
        }
    }

    for (const line of lines('authorization')) {
        const scheme = /^\s*(\S+)/.exec(line)?.[1] ?? '';
        if (scheme.toLowerCase() !== 'basic') {
            unread.push(`an Authorization header of the ${scheme.slice(0, 40)} scheme, which Osprey does not carry out`);
            continue;
        }

        const basic = /^\s*Basic\s+(\S+)\s*$/i.exec(line);
        const pair = basic ? decodePair(basic[1]!, 'basic') : undefined;
        if (pair) {
            passwords.push(pair);
        }
        else {
            unread.push('an Authorization header that is not Basic and the base64 of user:password');
        }
    }

    // Each _lid beside the first _lpwd and the first _lid beside each _lpwd: two different values of either are two logins.
    const lids = [...new Set(queryValues(query._lid))].filter((userid) => userid !== '');
    const lpwds = [...new Set(queryValues(query._lpwd))];
    if (lids.length && lpwds.length) {
        passwords.push(...lids.map((userid) => ({ userid, password: lpwds[0]!, method: 'lid' as const })));
        passwords.push(...lpwds.slice(1).map((password) => ({ userid: lids[0]!, password, method: 'lid' as const })));
    }

    const tokens = headerLines(request, 'cookie').flatMap((cookies) => [...cookies.matchAll(sessionPattern)].map((match) => match[1]!));
    return { keys, passwords, tokens, unread };
};

// Every user/password pair a request sends: Maximo's maxauth header, HTTP Basic, the _lid/_lpwd query parameters.
export const allPasswordCredentials = (request: Hapi.Request): PasswordCredentials[] => offeredCredentials(request).passwords;

// User and password from Maximo's maxauth header, HTTP Basic, or the _lid/_lpwd query parameters (the first).
export const passwordCredentials = (request: Hapi.Request): PasswordCredentials | undefined => allPasswordCredentials(request)[0];

// Every session token the Cookie headers hold (two different ones are two logins: the scheme refuses them).
export const sessionTokens = (request: Hapi.Request): string[] => offeredCredentials(request).tokens;

export const sessionToken = (request: Hapi.Request): string | undefined => sessionTokens(request)[0];

export const sessionCookieHeader = (request: Hapi.Request, contextRoot: string, token: string | undefined): string => {

    const secure = request.url.protocol === 'https:' || header(request, 'x-forwarded-proto') === 'https' ? '; Secure' : '';
    const value = token ?? '';
    const expiry = token ? '' : '; Max-Age=0';
    return `${sessionCookie}=${value}; Path=/${contextRoot}; HttpOnly; SameSite=Lax${secure}${expiry}`;
};
