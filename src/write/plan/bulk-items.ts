import { maximoError } from '../../errors/maximo-error';
import { memberId } from '../../read/serialize/serialize';
import type { Row, Structure } from '../../structures/registry';
import type { WriteKind } from '../rights';
import { keyValues } from './input';


// The items of a BULK (CONTRACT §4), read before anything runs: each one's operation (its `_action`, or its
// `_meta.method`), so that the rights the bulk needs are known before a transaction opens, and the record it names.

export interface BulkItem {
    readonly kind: WriteKind;
    readonly body: Row;
    /** The record an update, merge or delete names by href; an AddChange without one is a sync by its keys. */
    readonly id?: string;
    /** The item's own properties (`_meta.properties`), else the request's apply. */
    readonly properties?: string;
}

// The `_action` values of the IBM guide and the TypeScript client, and the `_meta.method` values of IBM's Java
// client, by what they do. A Map, as the operation is the client's word ("constructor" is none).
const kinds = new Map<string, WriteKind>(Object.entries({
    add: 'create', create: 'create', post: 'create',
    update: 'update', change: 'update', replace: 'update', patch: 'update', put: 'update',
    merge: 'merge',
    delete: 'delete',
    addchange: 'sync', sync: 'sync'
} as const));

// The items of a BULK body: a JSON array of at most OSPREY_MAX_BULK_ITEMS, refused whole before anything is read
// or written. Without the bound a 10 MB body of empty items was three million writes in one request.
export const bulkItems = (body: unknown, max: number, what: string): unknown[] => {

    if (!Array.isArray(body)) {
        throw maximoError('badRequest', `The body of a BULK request is a JSON array of ${what}.`);
    }

    if (body.length > max) {
        throw maximoError('badRequest', `The BULK request has ${body.length} items; at most ${max} are taken in one request (OSPREY_MAX_BULK_ITEMS). Send them in several bulks; nothing was written.`);
    }

    return body;
};

const isObject = (value: unknown): value is Row => typeof value === 'object' && value !== null && !Array.isArray(value);

// The member id an item's href (or `_meta.uri`) ends with: an id alone, or a path (a URL) that ends with
// os/{this structure}/{id}. Any other path is refused, not read for its last segment.
export const hrefId = (structure: Structure, href: unknown): string | undefined => {

    if (href === undefined || href === null) {
        return undefined;
    }

    const refused = () => maximoError('badRequest', `${JSON.stringify(href)} is not the href of a ${structure.name} record.`);
    const segments = typeof href === 'string' ? href.split(/[?#]/)[0]!.split('/').filter(Boolean) : [];
    const os = segments.length - 3;
    if (!segments.length || (segments.length > 1 && (os < 0 || segments[os]!.toLowerCase() !== 'os' || segments[os + 1]!.toLowerCase() !== structure.id))) {
        throw refused();
    }

    try {
        return decodeURIComponent(segments[segments.length - 1]!);
    }
    catch {
        throw refused();
    }
};

const kindOf = (name: unknown): WriteKind => {

    if (name === undefined) {
        return 'create';
    }

    const kind = kinds.get(String(name).toLowerCase());
    if (!kind) {
        throw maximoError('badRequest', `The bulk operation ${JSON.stringify(name)} is not one of Add, Update, Merge, Delete, AddChange.`);
    }

    return kind;
};

// One item in either form: `{...record, _action, href}` or `{_data: {...}, _meta: {method, uri, properties}}`.
export const bulkItem = (structure: Structure, raw: unknown): BulkItem => {

    if (!isObject(raw)) {
        throw maximoError('badRequest', 'Each item of a bulk is a JSON object: a record with _action, or {"_data": …, "_meta": …}.');
    }

    if ('_data' in raw || '_meta' in raw) {
        const data = raw._data ?? {};
        const meta = raw._meta ?? {};
        if (!isObject(data) || !isObject(meta)) {
            throw maximoError('badRequest', '_data and _meta of a bulk item are JSON objects.');
        }

        const method = kindOf(meta.method);
        const merge = method === 'update' && String(meta.patchtype ?? '').toUpperCase() === 'MERGE';
        const properties = typeof meta.properties === 'string' ? meta.properties : undefined;
        return { kind: merge ? 'merge' : method, body: data, id: hrefId(structure, meta.uri), properties };
    }

    const { _action: action, ...body } = raw;
    const item: BulkItem = { kind: kindOf(action), body, id: hrefId(structure, body.href) };
    // An item without _action is an Add, and an Add writes a new record whatever href it carries: one that names a
    // record (as the npm client's BulkOperationBuilder.action builds) would create another instead of changing it.
    if (action === undefined && item.id !== undefined) {
        throw maximoError('badRequest', 'A bulk item that names a record by href needs an _action (Update, Merge, Delete or AddChange); without one it would be created anew.');
    }

    return item;
};

export const bulkIdOf = (raw: unknown): unknown => (isObject(raw) ? raw._bulkid ?? (isObject(raw._meta) ? raw._meta._bulkid : undefined) : undefined);

// The answers of an all-or-nothing bulk (a write's or an action's) whose item `failed` (counted from 1) failed:
// that item its error, every other one a 424 saying it was not written because of that one.
export const allOrNothingFailed = (raws: readonly unknown[], failed: number, error: unknown): { ok: false; error: unknown; bulkid: unknown }[] => {

    const notWritten = maximoError('bulkNotWritten', `Not written: bulk item ${failed} of ${raws.length} failed, and the bulk is all or nothing (allornothing: 1).`);
    return raws.map((raw, index) => ({ ok: false, error: index + 1 === failed ? error : notWritten, bulkid: bulkIdOf(raw) }));
};

// The id of the record an update or delete names by its keys, read as their attributes store them (an upper-case
// key is upper-cased), as SYNC reads them.
export const keyId = (structure: Structure, body: Row): string => {

    const root = structure.root;
    const keys = keyValues(root, body);
    if (!keys) {
        throw maximoError('badRequest', `A bulk update or delete names its ${root.name} by href, or by all of its keys (${root.primaryKey.join(', ')}).`);
    }

    return memberId(root, keys);
};
