import type { DatabaseKind } from '../../db/knex';
import type { Attribute } from '../../structures/registry';
import { typeTable } from '../../structures/types';


// How a value of an attribute is compared in SQL the same way on both databases (README, "Query semantics").

export const isText = (attr: Attribute): boolean => ['string', 'text'].includes(typeTable[attr.type].family);

// PostgreSQL types an untyped parameter after its column, so 2.5 against an integer column would fail to parse;
// as numeric it compares by value, as SQLite does. A whole number against an integer column is a bigint instead:
// compared with a numeric, PostgreSQL would cast the column and could no longer use its index for a range (a
// report's keyset pages by id scanned every earlier row).
export const valuePlaceholder = (kind: DatabaseKind, attr: Attribute, value: unknown): string => {

    const family = typeTable[attr.type].family;
    if (kind !== 'postgresql' || (family !== 'integer' && family !== 'decimal')) {
        return '?';
    }

    return family === 'integer' && Number.isSafeInteger(value) ? 'cast(? as bigint)' : 'cast(? as numeric)';
};

// Text orders by code point: PostgreSQL with COLLATE "C", like SQLite's BINARY. For <, >, and ORDER BY.
export const orderedColumn = (kind: DatabaseKind, attr: Attribute): string => (kind === 'postgresql' && isText(attr) ? '?? collate "C"' : '??');

// Case-insensitive matching folds with the database's own collation: the code-point collation of PostgreSQL's
// text columns ("C") would fold ASCII only, so "É" would not match "é".
export const foldedColumn = (kind: DatabaseKind): string => (kind === 'postgresql' ? 'lower(?? collate "default")' : 'lower(??)');

// A computed attribute's SQL (src/structures/computed.ts) as a query uses it, typed as its declared attribute. A
// plugin's expression may be a constant: ORDER BY 1 or GROUP BY 1 would name the first column of the select, and
// on PostgreSQL a bare NULL has no type to order, sum or compare. PostgreSQL casts it to the attribute's column
// type; SQLite has no such types (a CAST would turn text into numbers), and an identity function is no constant.
const pgTypes: Readonly<Record<ReturnType<typeof familyOf>, string>> = { string: 'text', text: 'text', integer: 'bigint', decimal: 'numeric', date: 'date', datetime: 'timestamptz', boolean: 'boolean' };

const familyOf = (attr: Attribute) => typeTable[attr.type].family;

export const computedExpression = (kind: DatabaseKind, attr: Attribute, sql: (alias: string, kind: DatabaseKind) => string, alias: string): string => {

    const expression = sql(alias, kind);
    return kind === 'postgresql' ? `cast((${expression}) as ${pgTypes[familyOf(attr)]})` : `coalesce((${expression}), null)`;
};
