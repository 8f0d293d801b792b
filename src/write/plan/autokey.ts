import type { Db } from '../../db/db';
import { selectOne } from '../../db/statements';
import type { Attribute, BusinessObject } from '../../structures/registry';
import { typeTable } from '../../structures/types';
import type { Row } from '../../read/execute/find';


// Generated keys (`autokey`, like a work order's wonum): a counter row per attribute and scope — the values of
// the row's other identity attributes, so work orders number per site and a child's numbers per parent. The counter is incremented with an
// UPDATE inside the write's transaction: PostgreSQL locks the row until commit and SQLite writes one
// transaction at a time, so concurrent creates never receive the same number.

const counters = 'osprey_autokey';

const settingsOf = (attr: Attribute) => (typeof attr.autokey === 'object' ? attr.autokey : { prefix: '', start: 1 });

const numberIn = (value: unknown, prefix: string) => {

    const text = String(value);
    return text.startsWith(prefix) && /^\d{1,15}$/.test(text.slice(prefix.length)) ? Number(text.slice(prefix.length)) : 0;
};

// The first time a scope is numbered, counting continues after the highest number already stored there
// (demo data, imported records).
const ensureCounter = async (db: Db, object: BusinessObject, attr: Attribute, scopeWhere: Row, key: Row) => {

    const { prefix, start } = settingsOf(attr);
    const stored = await db.query(object.table).where(scopeWhere).select(attr.name) as Row[];
    const highest = stored.reduce((max: number, row) => Math.max(max, numberIn(row[attr.name], prefix)), start - 1);
    await db.query(counters).insert({ ...key, last: highest }).onConflict(['objectname', 'attribute', 'scope']).ignore();
};

// The counter is incremented first: only the first number of a scope finds no counter row to increment.
const increment = async (db: Db, key: { objectname: string; attribute: string; scope: string }) => {

    const [row] = await db.rows('update "osprey_autokey" set "last" = "last" + 1 where "objectname" = ? and "attribute" = ? and "scope" = ? returning "last"', [key.objectname, key.attribute, key.scope]);
    return row?.last as number | string | undefined;
};

const nextValue = async (db: Db, object: BusinessObject, attr: Attribute, values: Row) => {

    const others = object.identity.filter((name) => name !== attr.name);
    const scopeWhere = Object.fromEntries(others.map((name) => [name, values[name] ?? null]));
    const key = { objectname: object.name, attribute: attr.name, scope: JSON.stringify(others.map((name) => values[name] ?? null)) };
    const { prefix } = settingsOf(attr);
    const numeric = typeTable[attr.type].family === 'integer';
    for (;;) {
        let last = await increment(db, key);
        if (last === undefined) {
            await ensureCounter(db, object, attr, scopeWhere, key);
            last = await increment(db, key);
        }

        const candidate = numeric ? Number(last) : `${prefix}${last!}`;
        // A value typed in by hand may already hold the next number: skip it.
        if (!await selectOne(db, object.table, { ...scopeWhere, [attr.name]: candidate }, { columns: [attr.name] })) {
            return candidate;
        }
    }
};

// Assigns the missing generated values; true when one of them is part of the primary key, which makes the
// key new (nextValue skipped every number already taken in its scope).
export const assignAutokeys = async (db: Db, object: BusinessObject, values: Row): Promise<boolean> => {

    let newKey = false;
    for (const attr of object.columns) {
        if (attr.autokey && (values[attr.name] === undefined || values[attr.name] === null)) {
            values[attr.name] = await nextValue(db, object, attr, values);
            newKey ||= object.primaryKey.includes(attr.name);
        }
    }

    return newKey;
};
