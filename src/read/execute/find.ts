import type { Db } from '../../db/db';
import { storedColumns } from '../../db/migrate';
import { oncePer } from '../../db/remember';
import { selectOne } from '../../db/statements';
import type { BusinessObject, Child, Row } from '../../structures/registry';
import { decodeId } from '../../structures/resource-id';
import { typeTable } from '../../structures/types';
import { declaredAttribute } from '../plan/attribute-names';


// Which of an object's key attributes are bound as numbers, worked out once per object rather than looked up
// through the type table for every id read.
const numeric = (object: BusinessObject, key: string): boolean => {

    const family = typeTable[declaredAttribute(object, key)!.type].family;
    return family === 'integer' || family === 'decimal';
};

const numericKeys = oncePer((object: BusinessObject): readonly boolean[] => object.primaryKey.map((key) => numeric(object, key)));

const number = /^-?\d+(\.\d+)?$/;

const keyValue = (asNumber: boolean, value: string | null): string | number | undefined => {

    // NUL cannot be in a stored key (PostgreSQL refuses it in text).
    if (value === null || value.includes('\u0000')) {
        return undefined;
    }

    if (!asNumber) {
        return value;
    }

    return number.test(value) ? Number(value) : undefined;
};

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
        return { [object.uniqueColumn]: decoded.value };
    }

    // Ids are text; a key of a numeric type is bound as a number so that both databases compare it as one. A
    // value that cannot be a key (null, or not a number for a numeric key) names no record.
    const numbers = numericKeys(object);
    const where: Row = {};
    for (let i = 0; i < numbers.length; ++i) {
        const value = keyValue(numbers[i]!, decoded.values[i]!);
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
