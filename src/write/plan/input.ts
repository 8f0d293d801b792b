import type Joi from 'joi';

import type { AttributeError } from '../../errors/maximo-error';
import { bodyName } from '../../http/json-body';
import { notProvidedMessage, unservedAttribute } from '../../http/unserved';
import type { DomainDef } from '../../structures/definition';
import type { Attribute, BusinessObject } from '../../structures/registry';
import { toDb, toJson, typeTable } from '../../structures/types';
import type { Row } from '../../read/execute/find';
import { domainEntry, internalOf } from '../../read/serialize/synonyms';


// One item of a write body (a record or a child row) checked against its business object: what may be
// written, in which type, and what the server keeps for itself. Errors are collected, not thrown, so that
// `batcherror: 1` can report all of them.

export interface ParsedItem {
    /** Persistent attributes as bound in SQL. */
    readonly values: Row;
    /** Non-persistent attributes declared in YAML (a status change's memo). */
    readonly transient: Row;
    /** Raw child arrays by child name, in body order. */
    readonly children: Map<string, unknown[]>;
    /** The record's inline documents (`doclinks: […]`, a root object with attachments), unchecked: ./documents.ts. */
    readonly documents?: unknown[];
    readonly action?: 'delete';
    readonly rowstamp?: string;
    readonly href?: string;
    /** Attributes of this item that already have an error. */
    readonly failed: Set<string>;
}

export interface ParseSettings {
    readonly object: BusinessObject;
    readonly objectPath: string;
    readonly domains: ReadonlyMap<string, DomainDef>;
    readonly errors: AttributeError[];
    readonly now: Date;
    /** The stored row when the item updates one; absent on create. */
    readonly current?: Row;
    /** Values set by the server (a child's join columns from its parent); the body may only repeat them. */
    readonly fixed?: Row;
    /** Whether a plugin's handler takes a non-persistent attribute (src/write/attribute-writes.ts). */
    readonly claims?: (object: BusinessObject, attribute: string) => boolean;
}

// Properties the server itself writes into records; a client that reads a record and sends it back may
// repeat them, so they are accepted and ignored.
const echoed = (name: string, object: BusinessObject) => {

    return name === 'localref' ||
        name === '_id' ||
        name === '_bulkid' ||
        name.endsWith('_collectionref') ||
        (name.endsWith('_description') && object.attributes.get(name.slice(0, -'_description'.length))?.domain !== undefined);
};

// The attribute of a synonym domain whose internal value `{attr}_maxvalue` names.
const internalValueOf = (name: string, object: BusinessObject, domains: ReadonlyMap<string, DomainDef>): Attribute | undefined => {

    const attr = name.endsWith('_maxvalue') ? object.attributes.get(name.slice(0, -'_maxvalue'.length)) : undefined;
    return attr?.domain && domains.get(attr.domain)?.type === 'SYNONYM' ? attr : undefined;
};

const schemas = new WeakMap<Attribute, Joi.Schema>();

const schemaOf = (attr: Attribute) => {

    let schema = schemas.get(attr);
    if (!schema) {
        schema = typeTable[attr.type].input(attr).label(attr.name).prefs({ convert: true });
        schemas.set(attr, schema);
    }

    return schema;
};

const sameValue = (attr: Attribute, a: unknown, b: unknown) => toJson(attr, a) === toJson(attr, b);

const inDomain = (domain: DomainDef, value: unknown) => domain.values.some((entry) => String(entry.value) === String(value));

// A YAML default as stored: NOW is the write's time; other values go through the type's input rules.
export const defaultValue = (attr: Attribute, now: Date): unknown => {

    if (attr.default === 'NOW') {
        return toDb(attr, now);
    }

    const { value } = schemaOf(attr).validate(attr.default);
    return toDb(attr, value);
};

// The name a body's key is read as; the JSON reader refuses two keys of one object with one name.
export const normalName = bodyName;

export const parseItem = (body: unknown, settings: ParseSettings): ParsedItem => {

    const { object, objectPath, errors, fixed = {} } = settings;
    const values: Row = {};
    const transient: Row = {};
    const children = new Map<string, unknown[]>();
    const failed = new Set<string>();
    const fail = (attribute: string, message: string, reason: AttributeError['reason'] = 'attributeInvalid') => {

        failed.add(attribute);
        errors.push({ attribute, objectPath, message, reason });
    };

    const internals: [Attribute, unknown][] = [];
    let action: ParsedItem['action'];
    let rowstamp: string | undefined;
    let href: string | undefined;
    let documents: unknown[] | undefined;

    if (!body || typeof body !== 'object' || Array.isArray(body)) {
        fail('', `Each ${object.name} in the body must be a JSON object.`, 'badRequest');
        return { values, transient, children, failed };
    }

    for (const [key, raw] of Object.entries(body as Record<string, unknown>)) {
        const name = normalName(key);
        if (name === '_action') {
            if (String(raw).toLowerCase() === 'delete') {
                action = 'delete';
            }
            else if (!['add', 'update', 'change', 'addchange', 'replace', 'merge'].includes(String(raw).toLowerCase())) {
                fail('_action', `The _action ${JSON.stringify(raw)} is not one of Delete, Add, Update, AddChange.`);
            }

            continue;
        }

        if (name === '_rowstamp') {
            rowstamp = raw === null || raw === undefined ? undefined : String(raw);
            continue;
        }

        if (name === 'href') {
            href = typeof raw === 'string' ? raw : undefined;
            continue;
        }

        if (echoed(name, object)) {
            continue;
        }

        const synonym = internalValueOf(name, object, settings.domains);
        if (synonym) {
            internals.push([synonym, raw]);
            continue;
        }

        // The record's documents, written with it (./documents.ts). A record read whole carries `doclinks: {href}`:
        // sent back, it names no document to write.
        if (name === 'doclinks' && object.attachments) {
            if (Array.isArray(raw)) {
                documents = raw;
            }
            else if (!(raw && typeof raw === 'object' && Object.keys(raw).every((inner) => inner === 'href'))) {
                fail(name, `doclinks of ${object.name} is an array of documents ({urltype: 'FILE', urlname, documentdata} or {urltype: 'URL', urlname}), not ${JSON.stringify(raw)?.slice(0, 40)}.`, 'badRequest');
            }

            continue;
        }

        if (object.children.has(name)) {
            children.set(name, Array.isArray(raw) ? raw : [raw]);
            continue;
        }

        // An attribute of a feature Osprey names as not provided is refused by name, declared or not, unless it is
        // declared non-persistent and a plugin's handler takes it (a meter's newreading and the meters example).
        const attr = object.attributes.get(name);
        const unserved = attr?.persistent || (attr && settings.claims?.(object, name)) ? undefined : unservedAttribute(object.name, name);
        if (unserved) {
            fail(name, notProvidedMessage(unserved), 'notProvided');
            continue;
        }

        if (!attr) {
            fail(name, `The attribute ${name} does not exist on ${object.name}.`, 'unknownAttribute');
            continue;
        }

        checkValue(attr, raw, { ...settings, fixed }, fail, values, transient);
    }

    // `{attr}_maxvalue` (what internalvalues=1 renders) is derived from the attribute: a body may repeat the one
    // its value stands for, and cannot write another.
    for (const [attr, raw] of internals) {
        // Left out of the body: the record's value, or on a create the default it will be given.
        const value = Object.hasOwn(values, attr.name) ? values[attr.name] : settings.current ? settings.current[attr.name] : attr.default === undefined ? undefined : defaultValue(attr, new Date());
        const entry = value === null || value === undefined ? undefined : domainEntry(settings.domains.get(attr.domain!)!, value);
        const internal = entry && internalOf(entry);
        if (!failed.has(attr.name) && (internal === undefined || String(raw) !== internal)) {
            fail(`${attr.name}_maxvalue`, `${attr.name}_maxvalue is the internal value of ${object.name}.${attr.name.toUpperCase()}${internal === undefined ? '' : ` (${internal})`}, which the server derives from it: send ${attr.name} (a value of the domain ${attr.domain}) instead.`);
        }
    }

    return { values, transient, children, action, rowstamp, href, failed, ...documents ? { documents } : {} };
};

type Fail = (attribute: string, message: string, reason?: AttributeError['reason']) => void;

const checkValue = (attr: Attribute, raw: unknown, settings: ParseSettings & { fixed: Row }, fail: Fail, values: Row, transient: Row) => {

    const { object, current, fixed } = settings;
    if (typeof raw === 'string' && raw.includes('\u0000')) {
        fail(attr.name, `The value of ${object.name}.${attr.name.toUpperCase()} contains a NUL character.`);
        return;
    }

    const { error, value } = raw === null || raw === '' ? { error: undefined, value: null } : schemaOf(attr).validate(raw);
    if (error) {
        // A secret, or a password on its way to being set, is not repeated in the answer (nor in a log of it).
        const shown = attr.secret || /passw|pwd/i.test(attr.name) ? 'The value' : `The value ${JSON.stringify(raw)}`;
        fail(attr.name, `${shown} is not valid for ${object.name}.${attr.name.toUpperCase()}: ${error.message}.`);
        return;
    }

    const stored = toDb(attr, value);
    if (Object.hasOwn(fixed, attr.name)) {
        if (stored !== null && !sameValue(attr, stored, fixed[attr.name])) {
            fail(attr.name, `${object.name}.${attr.name.toUpperCase()} is set from the parent record and cannot be written.`);
        }

        return;
    }

    // A value equal to the stored one is not a change: clients send back what they read. A non-persistent one has
    // none stored: a null sent is kept, for what takes it (a plugin's handler) to see.
    if (current && attr.persistent && sameValue(attr, stored, current[attr.name])) {
        return;
    }

    if (attr.generated || attr.readonly || attr.name === object.uniqueColumn) {
        if (stored === null && !current) {
            return;
        }

        fail(attr.name, `${object.name}.${attr.name.toUpperCase()} is read-only.`);
        return;
    }

    if (current && object.primaryKey.includes(attr.name)) {
        fail(attr.name, `${object.name}.${attr.name.toUpperCase()} is a key and cannot be changed once the record exists.`);
        return;
    }

    if (stored === null && (attr.required || object.primaryKey.includes(attr.name))) {
        fail(attr.name, `${object.name}.${attr.name.toUpperCase()} is required.`, 'required');
        return;
    }

    if (stored !== null && attr.domain && !inDomain(settings.domains.get(attr.domain)!, value)) {
        fail(attr.name, `The value ${JSON.stringify(value)} of ${object.name}.${attr.name.toUpperCase()} is not in the domain ${attr.domain}.`);
        return;
    }

    (attr.persistent ? values : transient)[attr.name] = stored;
};

// On create: defaults for attributes the body left out, and an error for each required one still missing
// (keys generated by the server are assigned later and are not missing).
export const completeNew = (item: ParsedItem, settings: ParseSettings): void => {

    const { object, objectPath, errors, now, fixed = {} } = settings;
    for (const attr of object.columns) {
        if (Object.hasOwn(item.values, attr.name) || item.failed.has(attr.name) || Object.hasOwn(fixed, attr.name) || attr.generated || attr.name === object.uniqueColumn) {
            continue;
        }

        if (attr.default !== undefined) {
            item.values[attr.name] = defaultValue(attr, now);
            continue;
        }

        if ((attr.required || object.primaryKey.includes(attr.name)) && !attr.autokey) {
            errors.push({ attribute: attr.name, objectPath, message: `${object.name}.${attr.name.toUpperCase()} is required.`, reason: 'required' });
        }
    }
};

// The key values an item names, typed as stored; undefined unless every key is given and valid.
export const keyValues = (object: BusinessObject, body: unknown): Row | undefined => {

    if (!body || typeof body !== 'object') {
        return undefined;
    }

    const given = new Map(Object.entries(body as Row).map(([key, value]) => [normalName(key), value]));
    const keys: Row = {};
    for (const name of object.primaryKey) {
        const attr = object.attributes.get(name)!;
        const { error, value } = schemaOf(attr).validate(given.get(name));
        // PostgreSQL cannot compare text holding NUL: such a key names no record (and a create refuses it).
        if (error || value === undefined || value === null || (typeof value === 'string' && value.includes('\u0000'))) {
            return undefined;
        }

        keys[name] = toDb(attr, value);
    }

    return keys;
};
