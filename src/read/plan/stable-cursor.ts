import * as Crypto from 'node:crypto';

import { maximoError } from '../../errors/maximo-error';


// stablepaging=1: the next page's position travels in the nextPage href as `stableId`, a token signed with the
// server secret. It holds the ordered values of the last row served, the page number, and a digest of the
// query it belongs to; nothing is kept on the server, so any node sharing the secret serves the next page.

export interface Cursor {
    readonly page: number;
    readonly values: readonly unknown[];
}

// The query a cursor belongs to: the collection path and every parameter but the position itself and `_`, a cache
// buster that asks nothing (jQuery's cache: false sends a new one with every request).
export const queryDigest = (path: string, params: URLSearchParams): string => {

    const entries = [...params].filter(([name]) => !['pageno', 'stableid', '_'].includes(name.toLowerCase())).map((entry) => entry.join('=')).sort();
    return Crypto.createHash('sha256').update(JSON.stringify([path.toLowerCase(), entries])).digest('base64url').slice(0, 22);
};

const sign = (secret: Buffer, body: string) => Crypto.createHmac('sha256', secret).update(`stableId.${body}`).digest('base64url');

export const encodeCursor = (secret: Buffer, digest: string, cursor: Cursor): string => {

    const body = Buffer.from(JSON.stringify({ q: digest, p: cursor.page, v: cursor.values })).toString('base64url');
    return `${body}.${sign(secret, body)}`;
};

const refuse = (): never => {

    throw maximoError('badRequest', 'The stableId is not valid for this query: page again from the first page with stablepaging=1.');
};

// The digest covers oslc.orderBy, so a cursor that verifies has one value per ordered column.
export const decodeCursor = (secret: Buffer, digest: string, token: string): Cursor => {

    const [body = '', signature = ''] = token.split('.');
    // Compared as bytes: a signature of as many characters as the real one, some beyond ASCII, has more bytes.
    const given = Buffer.from(signature);
    const expected = Buffer.from(sign(secret, body));
    if (given.length !== expected.length || !Crypto.timingSafeEqual(given, expected)) {
        return refuse();
    }

    const parsed = JSON.parse(Buffer.from(body, 'base64url').toString('utf8')) as { q: string; p: number; v: unknown[] };
    return parsed.q === digest ? { page: parsed.p, values: parsed.v } : refuse();
};
