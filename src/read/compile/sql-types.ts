import type { Knex } from 'knex';

import type { DatabaseKind } from '../../db/knex';
import { joinPatterns, likeAnyFunction, likeAnyJoins, likeSetFunction } from '../../db/like-any';
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

// Several case-insensitive LIKEs of one column, OR-ed, as one test that folds the column once per row rather than
// once per pattern: `lower(c) LIKE ANY (ARRAY[lower(p), …])` on PostgreSQL, whose LIKE escapes with `\` by default
// (100 patterns over 200,000 rows: 1.1 s instead of 5.6 s), and osprey_like_any(c, patterns) on SQLite through
// better-sqlite3 (src/db/like-any.ts). For the patterns Osprey writes, whose `_` and `\` are escaped (oslc.where,
// oslc.searchTerms). Undefined where one test cannot say it: a pattern holding NUL, which joins them for SQLite.
const foldedLikeAny = (kind: DatabaseKind, column: unknown, patterns: readonly string[]): { sql: string; bindings: unknown[] } | undefined => {

    if (kind === 'postgresql') {
        return { sql: `${foldedColumn(kind)} like any (array[${patterns.map(() => 'lower(?)').join(', ')}])`, bindings: [column, ...patterns] };
    }

    return likeAnyJoins(patterns) ? { sql: `${likeAnyFunction}(??, ${likeSetFunction}(?))`, bindings: [column, joinPatterns(patterns)] } : undefined;
};

// OR-ed onto `builder`: a case-insensitive LIKE of `column` for each pattern, as one test where `grouped` (Osprey's
// likeAny, src/context.ts) and it can. A pattern sent twice is tested once (PostgreSQL merged identical OR-ed
// LIKEs itself, but tests every element of an array).
export const orLikes = (builder: Knex.QueryBuilder, kind: DatabaseKind, grouped: boolean, column: unknown, sent: readonly string[]): void => {

    const patterns = [...new Set(sent)];
    const any = grouped && patterns.length > 1 ? foldedLikeAny(kind, column, patterns) : undefined;
    if (any) {
        builder.orWhereRaw(any.sql, any.bindings as Knex.RawBinding[]);
        return;
    }

    for (const pattern of patterns) {
        builder.orWhereRaw(`${foldedColumn(kind)} like lower(?) escape '\\'`, [column as Knex.RawBinding, pattern]);
    }
};

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
