// Record identity in URLs (CONTRACT §2). Three input forms decode to key values:
//   _QkVERk9SRC8xMDAx  Maximo's form: '_' + base64 of the key values joined by '/', with = + / as - _ ~
//   siteid:BEDFORD|wonum:1001  the seed's form: pairs joined by '|', with : | % ~ percent-encoded in values
//   12345  the numeric unique id
// Values holding '/', '%' or '~' are percent-encoded inside the base64 form, so every value round-trips;
// ordinary values encode exactly as Maximo does.

export type KeyValue = string | number | null;

const nullToken = '~NULL~';

const escape = (value: string, special: RegExp) => value.replace(special, (char) => `%${char.charCodeAt(0).toString(16).toUpperCase().padStart(2, '0')}`);

const unescape = (value: string): string => value.replace(/%([0-9A-Fa-f]{2})/g, (_, hex: string) => String.fromCharCode(parseInt(hex, 16)));

const encodeValue = (value: KeyValue, special: RegExp) => (value === null ? nullToken : escape(String(value), special));

const decodeValue = (value: string): string | null => (value === nullToken ? null : value.includes('%') ? unescape(value) : value);

// The base64 form is coded here rather than through Buffer and three regular-expression passes: every record
// of every answer carries its id, and encoding one cost 5–7 µs inside the server, decoding one 10 (issue 19;
// the README's Performance section). Text of ASCII only, which ordinary keys are, is coded character by
// character; any other text goes through Buffer's UTF-8, so its bytes are exactly what they were.
const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_~';
const padding = '-';
const sextets = new Int8Array(128).fill(-1);
for (let i = 0; i < alphabet.length; ++i) {
    sextets[alphabet.charCodeAt(i)] = i;
}

// Standard base64's own characters were always read too: + and / as _ and ~, = as the padding -.
sextets[43] = 62;
sextets[47] = 63;
const pad = (code: number) => code === 45 || code === 61;

// The characters a value's text escapes in the base64 form; `special` only tells whether it holds any.
const escaped = /[%/~]/g;
const special = /[%/~]/;

const maximoBase64 = (text: string): string => {

    let out = '';
    const n = text.length;
    let i = 0;
    for (; i + 2 < n; i += 3) {
        const a = text.charCodeAt(i);
        const b = text.charCodeAt(i + 1);
        const c = text.charCodeAt(i + 2);
        if ((a | b | c) > 0x7f) {
            return utf8Base64(text);
        }

        out += alphabet[a >> 2]! + alphabet[((a & 3) << 4) | (b >> 4)]! + alphabet[((b & 15) << 2) | (c >> 6)]! + alphabet[c & 63]!;
    }

    if (i < n) {
        const a = text.charCodeAt(i);
        const b = i + 1 < n ? text.charCodeAt(i + 1) : 0;
        if ((a | b) > 0x7f) {
            return utf8Base64(text);
        }

        out += alphabet[a >> 2]! + alphabet[((a & 3) << 4) | (b >> 4)]! + (i + 1 < n ? alphabet[(b & 15) << 2]! : padding) + padding;
    }

    return out;
};

const utf8Base64 = (text: string): string => Buffer.from(text, 'utf8').toString('base64').replace(/[=+/]/g, (char) => (char === '=' ? '-' : char === '+' ? '_' : '~'));

export const encodeBase64Id = (values: readonly KeyValue[]): string => {

    let text = '';
    for (let i = 0; i < values.length; ++i) {
        const value = values[i]!;
        const part = value === null ? nullToken : String(value);
        text += `${i ? '/' : ''}${value !== null && special.test(part) ? escape(part, escaped) : part}`;
    }

    return `_${maximoBase64(text)}`;
};

// The text of the base64 form `id` (from its second character), or undefined when it is not base64 in Maximo's
// alphabet (or standard base64's): up to two padding characters at its end, and a length (padding counted) that
// is not one character beyond a whole group of four. Bytes decode as Buffer decodes them: a last lone character
// adds none, and bytes beyond ASCII are read as UTF-8.
const base64Text = (id: string): string | undefined => {

    let end = id.length;
    if ((end - 1) % 4 === 1) {
        return undefined;
    }

    if (pad(id.charCodeAt(end - 1))) {
        --end;
        if (pad(id.charCodeAt(end - 1))) {
            --end;
        }
    }

    let text = '';
    let bytes: number[] | undefined;
    let bits = 0;
    let held = 0;
    for (let i = 1; i < end; ++i) {
        const code = id.charCodeAt(i);
        const sextet = code < 128 ? sextets[code]! : -1;
        if (sextet < 0) {
            return undefined;
        }

        bits = ((bits << 6) | sextet) & 0xffffff;
        held += 6;
        if (held >= 8) {
            held -= 8;
            const byte = (bits >> held) & 0xff;
            if (byte > 0x7f && !bytes) {
                bytes = [...text].map((char) => char.charCodeAt(0));
            }

            if (bytes) {
                bytes.push(byte);
            }
            else {
                text += String.fromCharCode(byte);
            }
        }
    }

    return bytes ? Buffer.from(bytes).toString('utf8') : text;
};

export const encodePairsId = (keys: readonly string[], values: readonly KeyValue[]): string => {

    return keys.map((key, index) => `${key}:${encodeValue(values[index] ?? null, /[%:|~]/g)}`).join('|');
};

export type DecodedId =
    | { kind: 'keys'; values: (string | null)[] }
    | { kind: 'unique'; value: number };

// Decodes any of the three forms against the key list of a structure; undefined when the id is malformed.
export const decodeId = (id: string, keys: readonly string[]): DecodedId | undefined => {

    if (/^\d{1,15}$/.test(id)) {
        return { kind: 'unique', value: Number(id) };
    }

    if (id.startsWith('_')) {
        const parts = base64Text(id)?.split('/');
        return parts?.length === keys.length ? { kind: 'keys', values: parts.map(decodeValue) } : undefined;
    }

    const values = new Map<string, string | null>();
    for (const pair of id.split('|')) {
        const colon = pair.indexOf(':');
        const key = pair.slice(0, colon).toLowerCase();
        if (colon < 1 || !keys.includes(key) || values.has(key)) {
            return undefined;
        }

        values.set(key, decodeValue(pair.slice(colon + 1)));
    }

    return values.size === keys.length ? { kind: 'keys', values: keys.map((key) => values.get(key)!) } : undefined;
};
