import * as MimeTypes from 'mime-types';

import { maximoError } from '../errors/maximo-error';


// The file name and content type of an attachment, as a client sends them and as a download answers them.

// A name is a file's name, not a path: no separators, no control characters, no `.`/`..`, at most 255 characters
// (what file systems take); any other Unicode is kept as sent.
export const maxNameLength = 255;

export const checkFileName = (name: string, what = 'The file name'): string => {

    const trimmed = name.trim();
    if (!trimmed) {
        throw maximoError('badRequest', `${what} is empty; send it in the slug (or encslug) header.`);
    }

    if ([...trimmed].length > maxNameLength) {
        throw maximoError('badRequest', `${what} is ${[...trimmed].length} characters long; the limit is ${maxNameLength}.`);
    }

    if (/[/\\]/.test(trimmed) || trimmed === '.' || trimmed === '..') {
        throw maximoError('badRequest', `${what} ${JSON.stringify(trimmed)} is a path; send the file's name alone, without / or \\.`);
    }

    if (controls.test(trimmed)) {
        throw maximoError('badRequest', `${what} holds a control character; send the file's name without one.`);
    }

    // A name that shows other than it is (invoice‮fdp.exe shows as invoiceexe.pdf) or shows as nothing.
    if (bidiControls.test(trimmed) || !trimmed.replace(invisible, '').trim()) {
        throw maximoError('badRequest', `${what} holds a character that changes the direction of the text, or nothing visible; send the file's name without it.`);
    }

    return trimmed;
};

const controls = /[\u0000-\u001f\u007f-\u009f\u2028\u2029]/;
const bidiControls = /[\u200e\u200f\u202a-\u202e\u2066-\u2069]/;
const invisible = /[\u200b-\u200d\u2060\ufeff]/g;

// A document type (x-document-meta's second part, a write's doctype): 1 to 64 letters, digits, spaces, _ . or -.
export const docTypePattern = /^[A-Za-z0-9][A-Za-z0-9 _.-]{0,63}$/;

// A document's description (x-document-description, or a write's): at most 1000 characters, tabs and line breaks
// kept, no other control character (PostgreSQL refuses NUL in text).
export const checkDescription = (value: string, what = 'The description'): string => {

    if ([...value].length > 1000) {
        throw maximoError('badRequest', `${what} is ${[...value].length} characters long; the limit is 1000.`);
    }

    if (/[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f]/.test(value)) {
        throw maximoError('badRequest', `${what} holds a control character other than a tab or a line break.`);
    }

    return value;
};

// A header's text as the client meant it. Node hands a header's bytes as Latin-1, but clients send non-ASCII
// text raw as UTF-8 (IBM's Java client on JDK 17 does, for slug and x-document-description alike): bytes that
// are valid UTF-8 are read as UTF-8, any others as Latin-1.
export const headerText = (value: string): string => {

    const bytes = Buffer.from(value, 'latin1');
    const text = bytes.toString('utf8');
    return Buffer.from(text, 'utf8').equals(bytes) ? text : value;
};

// A header value is Latin-1 on the wire: a client sends a Unicode name percent-encoded (encslug, or a slug of
// UTF-8 bytes percent-encoded), which is decoded here; a slug that is not percent-encoding is taken as sent
// (IBM's Java client sends a name as it is, and "worn 50%.txt" is a file's name).
// (The header's name, once used in a refusal, is still taken so that callers need not change.)
// The header's bytes are read as UTF-8 first (a raw UTF-8 name), then its percent-encoding is decoded.
export const decodedName = (value: string, _header?: string): string => {

    const text = headerText(value);
    return (text.includes('%') ? percentDecoded(text) : undefined) ?? text;
};

const percentDecoded = (value: string): string | undefined => {

    try {
        return decodeURIComponent(value);
    }
    catch {
        return undefined;
    }
};

// A media type (RFC 9110 8.3.1): type/subtype of RFC 6838's names, then parameters name=value, each value a token
// or a quoted string.
const typeName = /^[a-z0-9][a-z0-9!#$&^_.+-]{0,126}\/[a-z0-9][a-z0-9!#$&^_.+-]{0,126}$/;
const parameter = /^\s*([!#$%&'*+.^_`|~0-9a-z-]+)=([!#$%&'*+.^_`|~0-9a-z-]+|"(?:[\t\x20-\x21\x23-\x5b\x5d-\x7e]|\\[\t\x20-\x7e])*")\s*$/i;

// The most a document's type may take (osprey_doclink.mimetype).
const typeLength = 255;

// A media type as a request names it, type, subtype and parameter names in lower case (as are charset's values);
// none: application/octet-stream. One that is not a media type is a 400 naming the header, not a guess.
export const mediaType = (value: string | undefined): string => {

    const [name, ...parameters] = (value ?? '').split(';');
    const type = name!.trim().toLowerCase();
    if (!type && !parameters.length) {
        return 'application/octet-stream';
    }

    const named = parameters.map((each) => parameter.exec(each));
    if (!typeName.test(type) || named.some((each) => each === null)) {
        throw maximoError('badRequest', `The Content-Type header of an upload is a media type (type/subtype, each 1 to 127 letters, digits or !#$&^_.+-, then parameters name=value): ${JSON.stringify((value ?? '').slice(0, 300))} is not one.`);
    }

    const text = [type, ...named.map((each) => {

        const key = each![1]!.toLowerCase();
        return `${key}=${key === 'charset' ? each![2]!.toLowerCase() : each![2]}`;
    })].join('; ');
    if (text.length > typeLength) {
        throw maximoError('badRequest', `The Content-Type header of an upload is at most ${typeLength} characters with its parameters (a document keeps it to serve it with).`);
    }

    return text;
};

// A document type without its parameters (text/plain of text/plain; charset=utf-8).
export const bareType = (type: string): string => type.split(';')[0]!;

// The type a document is kept and served with: the upload's Content-Type, exactly. IBM's Java client labels every
// upload application/json (MaximoConnector.setMethod), and many clients send octet-stream for any file: under
// those two labels the file name's extension names the type where it is a known one (never the bytes: nothing is
// sniffed).
export const documentType = (contentType: string | undefined, fileName: string): string => {

    const sent = mediaType(contentType);
    const bare = bareType(sent);
    if (bare !== 'application/json' && bare !== 'application/octet-stream') {
        return sent;
    }

    const byName = MimeTypes.lookup(fileName);
    return byName ? byName.toLowerCase() : sent;
};

// Content-Disposition with the name in both forms (RFC 6266): an ASCII fallback and the UTF-8 name.
export const disposition = (kind: 'inline' | 'attachment', name: string): string => {

    const ascii = name.replace(/[^\x20-\x7e]/g, '_').replace(/["\\]/g, '_');
    const encoded = encodeURIComponent(name).replace(/['()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
    return `${kind}; filename="${ascii}"; filename*=UTF-8''${encoded}`;
};

// A link's address (a URL document: IBM's guide's `www.cnn.com`): 1 to 2000 characters without control characters,
// and a scheme (where it names one) a browser opens as a page, never javascript: or data:.
export const checkLink = (value: string, what = 'The address'): string => {

    const text = value.trim();
    if (!text || text.length > 2000 || /[\u0000-\u001f\u007f]/.test(text)) {
        throw maximoError('badRequest', `${what} of a URL document is 1 to 2000 characters without control characters.`);
    }

    // `www.x.com:8080/…` (a name with a dot, or localhost) is a host and a port, not a scheme; `javascript:80` is not.
    const scheme = /^([a-z][a-z0-9+.-]*):/i.exec(text)?.[1]?.toLowerCase();
    const hostAndPort = scheme !== undefined && (scheme.includes('.') || scheme === 'localhost') && /^\d+(?:[/?#]|$)/.test(text.slice(scheme.length + 1));
    if (scheme !== undefined && !['http', 'https', 'ftp', 'mailto'].includes(scheme) && !hostAndPort) {
        throw maximoError('badRequest', `${what} ${JSON.stringify(text.slice(0, 60))} names the scheme ${scheme}:; a URL document links with http, https, ftp or mailto, or names a host (www.example.com).`);
    }

    return text;
};

// A URL document's title (its slug): 1 to 255 characters without control characters.
export const checkTitle = (value: string, what = 'The title'): string => {

    const text = value.trim();
    if (!text || [...text].length > maxNameLength || controls.test(text) || bidiControls.test(text) || !text.replace(invisible, '').trim()) {
        throw maximoError('badRequest', `${what} of a URL document is 1 to ${maxNameLength} characters, something visible, without control characters or changes of the text's direction.`);
    }

    return text;
};
