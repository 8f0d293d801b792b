import type { Knex } from 'knex';

import type { Db } from '../../db/db';
import { remember } from '../../db/remember';
import { conditions, quoted, selectOne, whereBindings, whereShape } from '../../db/statements';
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

// The counter is incremented first: only the first number of a scope finds no counter row to increment. On
// SQLite the same statement tells whether the new number is taken in its scope already (typed in by hand), one
// statement where two ran: SQLite's write transaction holds the database's write lock from its BEGIN, so the
// statement sees every committed row. Not on PostgreSQL: an UPDATE that waited for the counter's row lock
// (another create of the scope) keeps the snapshot it started with, and would miss a number typed in and
// committed meanwhile; there the check is a statement of its own, after the lock. Only integer and string keys
// are compared in SQL (a key's number is its text after the prefix). SQL made once per shape.
const increments = new Map<string, string>();

const foldsCheck = (db: Db, attr: Attribute) => db.kind === 'sqlite' && ['integer', 'string'].includes(typeTable[attr.type].family);

const incrementSql = (object: BusinessObject, attr: Attribute, scopeWhere: Row, check: boolean, numeric: boolean) => {

    const shape = `${object.table} ${attr.name} ${whereShape(scopeWhere)} ${check} ${numeric}`;
    return increments.get(shape) ?? remember(increments, shape, (() => {

        const update = 'update "osprey_autokey" set "last" = "last" + 1 where "objectname" = ? and "attribute" = ? and "scope" = ? returning "last"';
        if (!check) {
            return update;
        }

        // "last" is qualified: the object's table may have a column of that name.
        const last = '"osprey_autokey"."last"';
        const number = `${quoted(attr.name)} = ${numeric ? last : `cast(? as varchar) || cast(${last} as varchar)`}`;
        return `${update}, exists (select 1 from ${quoted(object.table)} where ${[conditions(scopeWhere), number].filter(Boolean).join(' and ')}) as "taken"`;
    })());
};

const increment = async (db: Db, object: BusinessObject, attr: Attribute, scopeWhere: Row, key: { objectname: string; attribute: string; scope: string }) => {

    const check = foldsCheck(db, attr);
    const numeric = typeTable[attr.type].family === 'integer';
    const { prefix } = settingsOf(attr);
    const bindings: Knex.Value[] = [key.objectname, key.attribute, key.scope, ...(check ? [...whereBindings(scopeWhere), ...(numeric ? [] : [prefix])] : [])];
    const [row] = await db.rows(incrementSql(object, attr, scopeWhere, check, numeric), bindings);
    if (!row) {
        return undefined;
    }

    const candidate = numeric ? Number(row.last) : `${prefix}${row.last as string}`;
    // SQLite answers 0 or 1.
    const taken = check ? row.taken === 1 : await selectOne(db, object.table, { ...scopeWhere, [attr.name]: candidate }, { columns: [attr.name] }) !== undefined;
    return { candidate, taken };
};

const nextValue = async (db: Db, object: BusinessObject, attr: Attribute, values: Row) => {

    const others = object.identity.filter((name) => name !== attr.name);
    const scopeWhere = Object.fromEntries(others.map((name) => [name, values[name] ?? null]));
    const key = { objectname: object.name, attribute: attr.name, scope: JSON.stringify(others.map((name) => values[name] ?? null)) };
    for (;;) {
        let next = await increment(db, object, attr, scopeWhere, key);
        if (next === undefined) {
            await ensureCounter(db, object, attr, scopeWhere, key);
            next = await increment(db, object, attr, scopeWhere, key);
        }

        // A value typed in by hand may already hold the next number: skip it.
        if (!next!.taken) {
            return next!.candidate;
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
