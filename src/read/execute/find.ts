import type { Db } from '../../db/db';
import { storedColumns } from '../../db/migrate';
import { oncePer } from '../../db/remember';
import { selectOne } from '../../db/statements';
import type { Attribute, BusinessObject, Child, Row } from '../../structures/registry';
import { decodeId } from '../../structures/resource-id';
import { toDb, typeTable } from '../../structures/types';
import { declaredAttribute } from '../plan/attribute-names';


const number = /^-?\d+(\.\d+)?$/;

type KeyBinding = (value: string | null) => unknown;

// How a key value from an id is bound, worked out once per attribute: undefined when no record can have it, so
// that the id is a 404, as Maximo answers for a record that cannot exist. Ids are text; a key of a numeric type
// is bound as a number so that both databases compare it as one, and only a number its column can hold (what a
// write would accept: ../../structures/types.ts). Bound as it is, 1e+23 or 2.5 against an integer column, or
// "tomorrow" against a date, is an error on PostgreSQL (issue 34). NUL cannot be in stored text (PostgreSQL
// refuses it), and null is no key.
const bindingOf = (attr: Attribute): KeyBinding => {

    const entry = typeTable[attr.type];
    if (entry.family === 'string' || entry.family === 'text') {
        return (value) => (value === null || value.includes('\u0000') ? undefined : value);
    }

    // An integer key (every unique id) is checked against its type's range here, not by the input's schema:
    // ids are decoded on every record read, and the schema took 3 µs.
    const range = entry.range;
    if (range) {
        return (value) => {

            // Only the number's own spelling names it: 4.9999999999999999999 (read as 5), 05 or -0 name no record,
            // so a record has one id and no id reaches a row by rounding.
            const whole = value !== null && number.test(value) ? Number(value) : NaN;
            return Number.isInteger(whole) && String(whole) === value && whole >= range[0] && whole <= range[1] ? whole : undefined;
        };
    }

    const schema = entry.input(attr);
    return (value) => {

        if (value === null || (entry.family === 'decimal' && !number.test(value))) {
            return undefined;
        }

        const checked = schema.validate(value);
        // A boolean is bound as the text both databases read as one (PostgreSQL '1', SQLite's 1 by affinity).
        return checked.error ? undefined : entry.family === 'boolean' ? (checked.value ? '1' : '0') : toDb(attr, checked.value);
    };
};

const keyBindings = oncePer((object: BusinessObject): readonly KeyBinding[] => object.primaryKey.map((key) => bindingOf(declaredAttribute(object, key)!)));

const uniqueBinding = oncePer((object: BusinessObject): KeyBinding => bindingOf(declaredAttribute(object, object.uniqueColumn)!));

// A row as the database drivers answer it, keyed by column (src/structures/registry.ts declares it).
export type { Row } from '../../structures/registry';

// The WHERE of one stored row: its identity's values (a child's parent join columns and its key).
export const keyOf = (object: BusinessObject, row: Row): Row => {

    return Object.fromEntries(object.identity.map((key) => [key, row[key] ?? null]));
};

// The WHERE for a member id in any of its three forms; undefined when the id cannot name a record.
export const idWhere = (object: BusinessObject, id: string): Row | undefined => {

    const decoded = decodeId(id, object.primaryKey);
    if (!decoded) {
        return undefined;
    }

    if (decoded.kind === 'unique') {
        const value = uniqueBinding(object)(String(decoded.value));
        return value === undefined ? undefined : { [object.uniqueColumn]: value };
    }

    const bindings = keyBindings(object);
    const where: Row = {};
    for (let i = 0; i < bindings.length; ++i) {
        const value = bindings[i]!(decoded.values[i]!);
        if (value === undefined) {
            return undefined;
        }

        where[object.primaryKey[i]!] = value;
    }

    return where;
};

export const findById = async (db: Db, object: BusinessObject, id: string, options: { lock?: boolean } = {}): Promise<Row | undefined> => {

    const where = idWhere(object, id);
    if (!where) {
        return undefined;
    }

    return await selectOne(db, object.table, where, { columns: storedColumns(object), lock: options.lock && db.kind === 'postgresql' });
};

// A child's join columns take their values from the parent row.
export const joinValues = (child: Child, parent: Row): Row => {

    return Object.fromEntries(Object.entries(child.join).map(([parentAttr, childAttr]) => [childAttr, parent[parentAttr] ?? null]));
};

// One child row of a parent, by its id in any of the three forms: one indexed read bounded by the parent, not a
// load of the whole collection.
export const findChild = async (db: Db, child: Child, parent: Row, id: string): Promise<Row | undefined> => {

    const where = idWhere(child.object, id);
    return where ? await selectOne(db, child.object.table, { ...where, ...joinValues(child, parent) }, { columns: storedColumns(child.object) }) : undefined;
};
