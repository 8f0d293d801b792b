import type { Db } from '../../db/db';
import { storedColumns } from '../../db/migrate';
import { selectOne } from '../../db/statements';
import type { BusinessObject, Child, Row } from '../../structures/registry';
import { decodeId } from '../../structures/resource-id';
import { typeTable } from '../../structures/types';


const keyValue = (object: BusinessObject, key: string, value: string | null): string | number | undefined => {

    // NUL cannot be in a stored key (PostgreSQL refuses it in text).
    if (value === null || value.includes('\u0000')) {
        return undefined;
    }

    const family = typeTable[object.attributes.get(key)!.type].family;
    if (family !== 'integer' && family !== 'decimal') {
        return value;
    }

    return /^-?\d+(\.\d+)?$/.test(value) ? Number(value) : undefined;
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
    const values = decoded.values.map((value, i) => keyValue(object, object.primaryKey[i]!, value));
    if (values.some((value) => value === undefined)) {
        return undefined;
    }

    return Object.fromEntries(object.primaryKey.map((key, i) => [key, values[i]]));
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
