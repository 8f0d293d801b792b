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

const decodeValue = (value: string): string | null => (value === nullToken ? null : unescape(value));

export const encodeBase64Id = (values: readonly KeyValue[]): string => {

    const text = values.map((value) => encodeValue(value, /[%/~]/g)).join('/');
    const base64 = Buffer.from(text, 'utf8').toString('base64');
    return `_${base64.replace(/[=+/]/g, (char) => ({ '=': '-', '+': '_', '/': '~' })[char]!)}`;
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
        const base64 = id.slice(1).replace(/[-_~]/g, (char) => ({ '-': '=', '_': '+', '~': '/' })[char]!);
        if (!/^[A-Za-z0-9+/]*={0,2}$/.test(base64) || base64.length % 4 === 1) {
            return undefined;
        }

        const parts = Buffer.from(base64, 'base64').toString('utf8').split('/');
        return parts.length === keys.length ? { kind: 'keys', values: parts.map(decodeValue) } : undefined;
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
