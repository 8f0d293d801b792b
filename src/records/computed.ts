import { apiKeyObject } from '../auth/api-keys';
import { own } from '../structures/own';
import type { Attribute, BusinessObject } from '../structures/registry';
import type { Row } from './find';


// Attributes whose value the server works out when a record is read, declared `persistent: false` in the YAML:
// a stored copy would go stale by itself (a key that was active stops being so when it expires, with no write).
// They render like stored attributes (in `*` too) and cannot filter, sort or group, which would need the value
// in the database.

export interface Computed {
    /** The value of the attribute in a stored row, as JSON, at `now` (ms). */
    readonly value: (row: Row, now: number) => unknown;
    /** Why the attribute cannot be used in a query, and what to use instead. */
    readonly query: string;
}

const computed: Readonly<Record<string, Readonly<Record<string, Computed>>>> = {
    [apiKeyObject]: {
        // A revoked key is deleted: a key that is there is active until its expirationdate (none: never expires).
        active: {
            value: (row, now) => row.expirationdate === null || new Date(row.expirationdate as string).getTime() > now,
            query: 'is computed when a key is read (active until its expirationdate; a revoked key is deleted) and never stored, so it cannot filter, sort or group: use expirationdate (the saved query NEVEREXPIRE, expirationdate>"…" for keys not expired by then)'
        }
    }
};

export const computedOf = (object: BusinessObject, attr: Attribute): Computed | undefined => {

    const ofObject = attr.persistent ? undefined : own(computed, object.name);
    return ofObject && own(ofObject, attr.name);
};

// The attributes of an object that a record renders without a select, or with `*`: the stored ones that are not
// secret, and the computed ones.
const rendered = new WeakMap<BusinessObject, readonly Attribute[]>();

export const renderedAttributes = (object: BusinessObject): readonly Attribute[] => {

    let attributes = rendered.get(object);
    if (!attributes) {
        attributes = [...object.attributes.values()].filter((attr) => (attr.persistent && !attr.secret) || computedOf(object, attr));
        rendered.set(object, attributes);
    }

    return attributes;
};

// Why a declared attribute that is not stored cannot be used where a query needs a column.
export const notStored = (object: BusinessObject, attr: Attribute): string => `${object.name}.${attr.name} ${computedOf(object, attr)?.query ?? 'is not stored (persistent: false), so it cannot filter, sort or group'}`;
