import { own } from './own';
import type { Attribute, BusinessObject } from './registry';
import { hooksOf, type Computed } from './hooks';
import { oncePer } from '../db/remember';


// Attributes whose value the server works out when a record is read, declared `persistent: false` in the YAML:
// a stored copy would go stale by itself (a key that was active stops being so when it expires, with no write).
// They render like stored attributes (in `*` too) and cannot filter, sort or group, which would need the value
// in the database.

// Each object's computed attributes are a hook (hooks.ts): the API key's `active` is registered in
// src/auth/api-key-hooks.ts.

export type { Computed };

export const computedOf = (object: BusinessObject, attr: Attribute): Computed | undefined => {

    const ofObject = attr.persistent ? undefined : hooksOf(object).computed;
    return ofObject && own(ofObject, attr.name);
};

// The attributes of an object that a record renders without a select, or with `*`: the stored ones that are not
// secret, and the computed ones.
export const renderedAttributes = oncePer((object: BusinessObject): readonly Attribute[] => [...object.attributes.values()].filter((attr) => (attr.persistent && !attr.secret) || computedOf(object, attr)));

// Why a declared attribute that is not stored cannot be used where a query needs a column.
export const notStored = (object: BusinessObject, attr: Attribute): string => `${object.name}.${attr.name} ${computedOf(object, attr)?.query ?? 'is not stored (persistent: false), so it cannot filter, sort or group'}`;
