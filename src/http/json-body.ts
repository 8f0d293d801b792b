import type * as Hapi from '@hapi/hapi';

import { maximoError } from '../errors/maximo-error';


// The one reader of a JSON request body (issue 34). hapi's own reader decodes the bytes leniently (an invalid
// UTF-8 sequence becomes U+FFFD, which would be stored) and JSON.parse keeps the last of two equal keys, so a
// body that names one attribute twice would write whichever came last. The routes whose body is JSON take it
// raw (`jsonPayload`: decompressed, not parsed) and the parameter gate reads it here, before any handler runs:
// text that is not UTF-8, text that is not JSON and an object that names one thing twice are each a 400.

// hapi's payload settings of a route whose body this module reads (plugins/resources/request.ts declares them on
// the routes; the parameter gate checks them at start).
export const jsonPayload = { parse: 'gunzip', output: 'data' } as const satisfies Hapi.RouteOptionsPayload;

// The name a body's key is read as: Maximo's names are case-insensitive and may carry the `spi:` prefix of the
// namespaced form. The write pipeline reads keys by this name (src/write/plan/input.ts), so two keys with one
// name are one attribute named twice.
export const bodyName = (key: string): string => {

    const lower = key.toLowerCase();
    return lower.startsWith('spi:') ? lower.slice(4) : lower;
};

// `ignoreBOM`: a byte-order mark stays in the text, which JSON.parse refuses, as hapi's reader did.
const decoder = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

// Bytes 0x80–0xBF that continue a sequence.
const continuation = (byte: number | undefined) => byte !== undefined && byte >= 0x80 && byte <= 0xbf;

// The offset of the first byte that does not start a well-formed UTF-8 character (RFC 3629: no overlong form,
// no surrogate, nothing past U+10FFFF), or -1. Only read once the decoder has refused the bytes.
export const firstInvalidUtf8 = (bytes: Uint8Array): number => {

    let at = 0;
    while (at < bytes.length) {
        const byte = bytes[at]!;
        const next = bytes[at + 1];
        let size = 0;
        if (byte < 0x80) {
            size = 1;
        }
        else if (byte >= 0xc2 && byte <= 0xdf) {
            size = 2;
        }
        else if (byte >= 0xe0 && byte <= 0xef) {
            // E0 needs A0–BF next (else overlong); ED needs 80–9F (else a surrogate).
            size = (byte === 0xe0 && next !== undefined && next < 0xa0) || (byte === 0xed && next !== undefined && next > 0x9f) ? 0 : 3;
        }
        else if (byte >= 0xf0 && byte <= 0xf4) {
            // F0 needs 90–BF next (else overlong); F4 needs 80–8F (else past U+10FFFF).
            size = (byte === 0xf0 && next !== undefined && next < 0x90) || (byte === 0xf4 && next !== undefined && next > 0x8f) ? 0 : 4;
        }

        for (let i = 1; i < size; ++i) {
            if (!continuation(bytes[at + i])) {
                size = 0;
            }
        }

        if (size === 0) {
            return at;
        }

        at += size;
    }

    return -1;
};

const hex = (bytes: Uint8Array, at: number) => [...bytes.subarray(at, at + 4)].map((byte) => byte.toString(16).toUpperCase().padStart(2, '0')).join(' ');

// The text of a body, refused unless it is UTF-8 (RFC 8259: JSON exchanged between systems is UTF-8).
export const utf8Text = (bytes: Uint8Array, what: string): string => {

    try {
        return decoder.decode(bytes);
    }
    catch {
        const at = firstInvalidUtf8(bytes);
        throw maximoError('badRequest', `${what} is not UTF-8 text: the bytes at offset ${at} (${hex(bytes, at)}) are no UTF-8 character. Send it encoded in UTF-8.`);
    }
};

interface Key {
    readonly name: string;          // as sent, unescaped
    readonly at: number;            // the index of its opening quote in the text
}

const quote = 0x22;
const backslash = 0x5c;

// A key's text from its opening quote to its closing one: the slice itself unless it holds an escape.
const keyText = (text: string, start: number, end: number): string => {

    const raw = text.slice(start + 1, end);
    return raw.includes('\\') ? JSON.parse(text.slice(start, end + 1)) as string : raw;
};

// The index of the quote that closes the string opened at `start`: the next quote not escaped by an odd run of
// backslashes before it.
const closingQuote = (text: string, start: number): number => {

    let end = text.indexOf('"', start + 1);
    for (;;) {
        let slashes = 0;
        while (text.charCodeAt(end - 1 - slashes) === backslash) {
            ++slashes;
        }

        if (slashes % 2 === 0) {
            return end;
        }

        end = text.indexOf('"', end + 1);
    }
};

// The string opened at `start`: where it closes, and the first character after it that is not white space (a
// colon there makes the string a key).
const stringAt = (text: string, start: number): { readonly end: number; readonly after: number } => {

    const end = closingQuote(text, start);
    let after = end + 1;
    while (after < text.length && text.charCodeAt(after) <= 0x20) {
        ++after;
    }

    return { end, after };
};

// Two keys of one object that are read as one name, or a `__proto__` key (which hapi's reader refused too: code
// that copies a body with Object.assign would set the object's prototype). Runs over text JSON.parse has
// accepted, so that every string closes, and a string followed by a colon is a key.
type Problem = { readonly first?: Key; readonly second: Key };

export const nameProblem = (text: string): Problem | undefined => {

    // One entry per open object or array; an object's names (read as bodyName, with where their key starts) once
    // it has any. Only numbers are kept: the keys are made again for the answer.
    const open: (Map<string, number> | null | undefined)[] = [];
    const length = text.length;
    let i = 0;
    while (i < length) {
        const code = text.charCodeAt(i);
        if (code === quote) {
            const { end, after } = stringAt(text, i);
            if (text.charCodeAt(after) === 0x3a) {                      // `:`: a key of the innermost object
                const key = keyText(text, i, end);
                if (key === '__proto__') {
                    return { second: { name: key, at: i } };
                }

                const name = bodyName(key);
                let names = open[open.length - 1];
                if (!names) {
                    names = new Map();
                    open[open.length - 1] = names;
                }

                const first = names.get(name);
                if (first !== undefined) {
                    return { first: { name: keyText(text, first, closingQuote(text, first)), at: first }, second: { name: key, at: i } };
                }

                names.set(name, i);
            }

            i = after;
            continue;
        }

        if (code === 0x7b) {                                            // `{`
            open.push(undefined);
        }
        else if (code === 0x5b) {                                       // `[`
            open.push(null);
        }
        else if (code === 0x7d || code === 0x5d) {                      // `}` or `]`
            open.pop();
        }

        ++i;
    }

    return undefined;
};

const byteOffset = (text: string, at: number) => Buffer.byteLength(text.slice(0, at));

// Refuses JSON text (read as `value`) in which an object names one thing twice, or that holds a __proto__ key.
// `what` is what the answer calls the text: the body, or a query parameter holding JSON.
export const namedOnce = (text: string, value: unknown, what: string): void => {

    // Only an object can name anything twice; a text without a colon has no key.
    const problem = typeof value === 'object' && value !== null && text.includes(':') ? nameProblem(text) : undefined;
    if (problem?.first) {
        const { first, second } = problem;
        const name = bodyName(second.name);
        throw maximoError('badRequest', `${what} names ${name} twice in one object (as ${JSON.stringify(first.name)} at byte ${byteOffset(text, first.at)} and as ${JSON.stringify(second.name)} at byte ${byteOffset(text, second.at)}); which one counts would be a guess: name it once.`, { attribute: name });
    }

    if (problem) {
        throw maximoError('badRequest', `Invalid request payload JSON format: the key __proto__ at byte ${byteOffset(text, problem.second.at)} of ${what.toLowerCase()} is not accepted.`);
    }
};

// A number's value as sign, digits and exponent (digits × 10^exponent, no leading or trailing zero), so that two
// spellings of one value compare equal: 1.50 and 15e-1, -0 and 0.
const decimalValue = (literal: string): string => {

    const parts = /^(-?)(\d+)(?:\.(\d+))?(?:[eE]([+-]?\d+))?$/.exec(literal);
    if (!parts) {
        return literal;                                                 // Infinity: no JSON number reads as it
    }

    const [, sign, whole, fraction = '', exponent = '0'] = parts;
    const digits = (whole! + fraction).replace(/^0+/, '');
    const kept = digits.replace(/0+$/, '');
    return kept ? `${sign}${kept}e${Number(exponent) - fraction.length + digits.length - kept.length}` : '0';
};

// The first number of JSON text whose value JavaScript's double cannot hold (JSON.parse rounds it without a
// word: 1.00000000000000000001 is read as 1, 9007199254740993 as 9007199254740992, 1e-400 as 0), with the key
// it is the value of. Runs over text JSON.parse has accepted: strings close, and anything else that starts with
// `-` or a digit is a number.
// A number of at most 15 digits and no exponent is exact: any decimal of 15 significant digits or fewer comes
// back from a double as the same value (IEEE 754's 15 decimal digits), so only the others are compared, which
// takes a scan of a 32,000-row body from 60–75 ms to a few (the event loop is held while it runs).
const surelyExact = (digits: number, exponent: boolean) => digits <= 15 && !exponent;

export const inexactNumber = (text: string): { readonly literal: string; readonly at: number; readonly key?: string } | undefined => {

    // Where the last key's string starts and ends: its text is made only for the answer.
    let keyStart = -1;
    let keyEnd = -1;
    const length = text.length;
    let i = 0;
    while (i < length) {
        const code = text.charCodeAt(i);
        if (code === quote) {
            const { end, after } = stringAt(text, i);
            if (text.charCodeAt(after) === 0x3a) {
                keyStart = i;
                keyEnd = end;
            }

            i = end + 1;
            continue;
        }

        if (code === 0x2d || (code >= 0x30 && code <= 0x39)) {              // `-` or a digit
            let end = i + 1;
            let digits = code === 0x2d ? 0 : 1;
            let exponent = false;
            for (; end < length; ++end) {
                const next = text.charCodeAt(end);
                if (next >= 0x30 && next <= 0x39) {
                    ++digits;
                }
                else if (next === 0x65 || next === 0x45) {                  // e, E
                    exponent = true;
                }
                else if (next !== 0x2e && next !== 0x2b && next !== 0x2d) { // . + -
                    break;
                }
            }

            if (!surelyExact(digits, exponent)) {
                const literal = text.slice(i, end);
                if (decimalValue(literal) !== decimalValue(String(Number(literal)))) {
                    return { literal, at: i, key: keyStart < 0 ? undefined : keyText(text, keyStart, keyEnd) };
                }
            }

            i = end;
            continue;
        }

        ++i;
    }

    return undefined;
};

// Refuses a number the body holds that JSON.parse would have rounded: the value written would not be the one sent.
const exactNumbers = (text: string, what: string): void => {

    const found = inexactNumber(text);
    if (found) {
        const { literal, at, key } = found;
        const name = key === undefined ? undefined : bodyName(key);
        throw maximoError('badRequest', `${what} holds the number ${literal.length > 40 ? `${literal.slice(0, 40)}…` : literal} (at byte ${byteOffset(text, at)}${name ? `, for ${name}` : ''}), which has more digits than a number can hold exactly: it would be read as ${String(Number(literal))}. Send at most 15 significant digits.`, name ? { attribute: name } : {});
    }
};

// A JSON body as its value: null when empty, else the strict reading of its bytes.
export const readJsonBody = (bytes: Buffer): unknown => {

    if (bytes.length === 0) {
        return null;
    }

    const text = utf8Text(bytes, 'The body');
    let value: unknown;
    try {
        value = JSON.parse(text);
    }
    catch {
        // hapi's words, as before; the parser's own message would quote the body back.
        throw maximoError('badRequest', 'Invalid request payload JSON format');
    }

    namedOnce(text, value, 'The body');
    exactNumbers(text, 'The body');
    return value;
};
