import { own } from './own';
import type { Attribute, BusinessObject } from './registry';
import { hooksOf, type Computed } from './hooks';
import { oncePer } from '../db/remember';
import { jsonConverter } from './types';


// Attributes whose value the server works out when a record is read, declared `persistent: false` in the YAML:
// a stored copy would go stale by itself (a key that was active stops being so when it expires, with no write).
// They render like stored attributes (in `*` too); they filter, sort and group only where their SQL is given
// (a plugin's `sql`), which puts the value in the database's hands.

// Each object's computed attributes are a hook (hooks.ts): the API key's `active` is registered in
// src/auth/api-key-hooks.ts.

export type { Computed };

// Plugins add computed attributes to one server's objects (`server.registerComputed`): kept by the object, which
// belongs to that server's registry, so that another server (of the same YAML) does not see them.
const added = new WeakMap<BusinessObject, Map<string, Computed>>();

export const computedOf = (object: BusinessObject, attr: Attribute): Computed | undefined => {

    if (attr.persistent) {
        return undefined;
    }

    const ofObject = hooksOf(object).computed;
    return (ofObject && own(ofObject, attr.name)) ?? added.get(object)?.get(attr.name);
};

export class ComputedError extends Error { }

// A stored row's JSON form, as plugins' value functions read it (addComputed), kept while the row lives.
const jsonForms = new WeakMap<object, Record<string, unknown>>();

/** What a plugin gives for a computed attribute (server.registerComputed). */
export interface ComputedSpec {
    /** The value of the attribute, as JSON, at `now` (ms), from a stored row: its stored attributes by name, in their
     * JSON form (datetimes `2025-05-01T21:00:00+00:00`, dates `YYYY-MM-DD`, numbers, booleans), the same on both
     * databases. */
    readonly value: (row: Record<string, unknown>, now: number) => unknown;
    /** An SQL expression of the value over the row's own columns (`${alias}.description`), for oslc.where; without
     * it the attribute cannot filter, and a query that filters by it is refused with a 400 naming it. */
    readonly sql?: Computed['sql'];
}

// Adds a computed attribute to an object: the YAML declares it `persistent: false` (its type, title and place in
// the schema), the plugin gives its value. Checked when registered, so a mistake stops the start naming it.
export const addComputed = (object: BusinessObject, name: string, spec: ComputedSpec): void => {

    const attr = typeof name === 'string' ? object.attributes.get(name.toLowerCase()) : undefined;
    if (!attr) {
        throw new ComputedError(`registerComputed: ${String(name)} is not an attribute of ${object.name}; declare it in the YAML with persistent: false.`);
    }

    if (attr.persistent) {
        throw new ComputedError(`registerComputed: ${object.name}.${attr.name} is stored; a computed attribute is declared persistent: false.`);
    }

    if (typeof spec?.value !== 'function' || (spec.sql !== undefined && typeof spec.sql !== 'function')) {
        throw new ComputedError(`registerComputed: ${object.name}.${attr.name} needs a value(row, now) function (and sql, if given, a function of the table's alias).`);
    }

    if (computedOf(object, attr)) {
        throw new ComputedError(`registerComputed: ${object.name}.${attr.name} is computed twice.`);
    }

    // With SQL it filters, sorts and groups like a column (../read/plan/ordering.ts), save in gbrange's ranges.
    const query = spec.sql ? 'is computed by a plugin in SQL, so it cannot group in ranges' : 'is computed by a plugin that gives no SQL for it, so it cannot filter, sort or group';
    const map = added.get(object) ?? new Map<string, Computed>();
    // The row as its JSON form, whatever the database's driver made of each column (a Date from node-pg, text from
    // SQLite): a plugin's function reads the same values on both.
    const converters = [...object.attributes.values()].filter((each) => each.persistent).map((each) => [each.name, jsonConverter(each)] as const);
    // Made once per row, however many computed attributes the row renders.
    const jsonRow = (row: Record<string, unknown>) => {

        let json = jsonForms.get(row);
        if (!json) {
            json = {};
            for (const [column, convert] of converters) {
                if (row[column] !== undefined) {
                    json[column] = convert(row[column]);
                }
            }

            jsonForms.set(row, json);
        }

        return json;
    };

    map.set(attr.name, { value: (row, now) => spec.value(jsonRow(row), now), query, ...(spec.sql ? { sql: spec.sql } : {}) });
    added.set(object, map);
    renderedAttributes.forget(object);
};

// The attributes of an object that a record renders without a select, or with `*`: the stored ones that are not
// secret, and the computed ones.
export const renderedAttributes = oncePer((object: BusinessObject): readonly Attribute[] => [...object.attributes.values()].filter((attr) => (attr.persistent && !attr.secret) || computedOf(object, attr)));

// Why a declared attribute that is not stored cannot be used where a query needs a column.
export const notStored = (object: BusinessObject, attr: Attribute): string => `${object.name}.${attr.name} ${computedOf(object, attr)?.query ?? 'is not stored (persistent: false), so it cannot filter, sort or group'}`;
