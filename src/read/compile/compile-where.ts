import type { Knex } from 'knex';

import type { DatabaseKind } from '../../db/knex';
import { deadlineFunction } from '../../db/sqlite-deadline';
import type { Attribute, BusinessObject, Registry, Structure } from '../../structures/registry';
import { monthHasDay, toDb, typeTable } from '../../structures/types';
import type { Literal, Path, Where } from '../parse/ast';
import { QueryError } from '../parse/query-error';
import { computedExpression, foldedColumn, isText, orderedColumn, orLikes, valuePlaceholder } from './sql-types';
import { computedOf, notStored } from '../../structures/computed';
import { reachRelation, type OwnerFilter, type Reach } from '../plan/reach';
import { namedAttribute } from '../plan/attribute-names';


// Compiles a parsed oslc.where onto a knex query. Names are resolved against the structure here: an
// attribute of the object, or a hop through a relation (root objects) or a child object. Hops become
// EXISTS subqueries, so a term about related rows never multiplies the rows of the query. Every value is a
// bound parameter, typed by the attribute it is compared with.
//
// Semantics both databases share (README, "Query semantics"):
// - `upper`/`lower` attributes compare with the value upper-/lower-cased, as they are stored; other text
//   compares exactly, by code point (PostgreSQL uses COLLATE "C" for <, >, like SQLite's BINARY).
// - `"%x%"` forms are LIKE, case-insensitive on both (lower() on both sides); `_` and `\` are literal.
// - a null never equals, differs from or falls in a range of a value; `="*"` / `!="*"` test for null.
// - datetimes are compared as UTC instants; a value without an offset is read as UTC.

export interface WhereScope {
    readonly registry: Registry;
    readonly kind: DatabaseKind;
    readonly parameter: string;
    readonly params: Readonly<Record<string, unknown>>;
    /** Where the names resolve: the structure (for relations) and the object whose table is aliased. */
    readonly structure: Structure | undefined;
    readonly object: BusinessObject;
    readonly alias: string;
    readonly aliases: { next: number };
    /** Who reads: a relation is followed with their read right and owner rule on its target (../plan/reach.ts);
     * undefined only where no rows are read for a user (a gbfilter, over rows already filtered; the server's own plans). */
    readonly reach: Reach | undefined;
    /** SQLite through better-sqlite3 with a statement timeout: each EXISTS tests the deadline each time it is
     * evaluated (src/db/sqlite-deadline.ts). Only for reads outside a transaction: inside one there is no deadline. */
    readonly deadline?: boolean;
    /** OR-ed LIKEs of one attribute are one test (Osprey's likeAny, src/context.ts): where the server reads for a client. */
    readonly likeAny?: boolean;
}

type Builder = Knex.QueryBuilder;

const fail = (scope: Pick<WhereScope, 'parameter'>, position: number, message: string): never => {

    throw new QueryError(scope.parameter, position, message);
};

interface Hop {
    readonly table: string;
    readonly on: [string, string][];          // [outer column, inner column]
    readonly structure: Structure | undefined;
    readonly object: BusinessObject;
    readonly owner?: OwnerFilter;
}

// The related rows a name reaches from the scope's object: a child collection or a relation.
const hopOf = (scope: WhereScope, name: string, position: number): Hop => {

    const child = scope.object.children.get(name);
    if (child) {
        return { table: child.object.table, on: Object.entries(child.join), structure: undefined, object: child.object };
    }

    const reached = scope.structure?.root === scope.object ? reachRelation(scope.registry, scope.structure, name, scope.reach) : undefined;
    if (reached) {
        const { relation, target, owner } = reached;
        return { table: target.root.table, on: Object.entries(relation.join), structure: target, object: target.root, owner };
    }

    return fail(scope, position, `${name} is not an attribute, child object or relationship of ${scope.object.name}.`);
};

// Runs `inner` inside EXISTS (SELECT 1 FROM related WHERE join AND inner), with names resolved there.
const viaHop = (builder: Builder, scope: WhereScope, hop: Hop, inner: (sub: Builder, subScope: WhereScope) => void) => {

    const alias = `q${++scope.aliases.next}`;
    const subScope: WhereScope = { ...scope, structure: hop.structure, object: hop.object, alias };
    builder.whereExists(function (this: Builder) {

        this.select(this.client.raw('1')).from({ [alias]: hop.table });
        for (const [outerColumn, innerColumn] of hop.on) {
            this.whereRaw('?? = ??', [`${alias}.${innerColumn}`, `${scope.alias}.${outerColumn}`]);
        }

        if (hop.owner) {
            this.where(`${alias}.${hop.owner.attribute}`, hop.owner.value);
        }

        inner(this, subScope);
        if (scope.deadline) {
            this.whereRaw(`${deadlineFunction}()`);
        }
    });
};

const attributeOf = (scope: WhereScope, name: string, position: number): Attribute => {

    const attr = namedAttribute(scope.object, name, { parameter: scope.parameter, position });
    if (!attr) {
        return fail(scope, position, `${name} is not an attribute of ${scope.object.name}.`);
    }

    // A computed attribute filters where its plugin gave the SQL of its value (src/structures/computed.ts).
    if (!attr.persistent && !computedOf(scope.object, attr)?.sql) {
        return fail(scope, position, `${notStored(scope.object, attr)}.`);
    }

    return attr;
};

const literalValue = (scope: WhereScope, literal: Literal, position: number, attr?: Attribute): unknown => {

    // An unquoted true or false is a truth value: against text it would match the word, or nothing, unsaid, where a
    // number attribute refuses it.
    if (literal.kind === 'boolean' && attr && ['string', 'text'].includes(typeTable[attr.type].family)) {
        return fail(scope, position, `${attr.name} is text; ${String(literal.value)} is a truth value: quote a text value ("${String(literal.value)}").`);
    }

    if (literal.kind !== 'param') {
        return literal.value;
    }

    // Its own values only: `:constructor` has none, whatever Object.prototype holds.
    if (!Object.hasOwn(scope.params, literal.name)) {
        return fail(scope, position, `The parameter :${literal.name} has no value.`);
    }

    return scope.params[literal.name];
};

// A value as the attribute stores it; null stays null (an absent parameter value). Also for gbrange's values.
const isoDay = /^(\d{4})-(\d{2})-(\d{2})(?![\d-])/;
const realDate = ([, year, month, day]: RegExpExecArray) => monthHasDay(Number(year), Number(month), Number(day));

export const bindValue = (scope: Pick<WhereScope, 'parameter'>, attr: Attribute, raw: unknown, position: number): unknown => {

    if (raw === null || raw === undefined) {
        return null;
    }

    const family = typeTable[attr.type].family;
    if (family === 'string' || family === 'text') {
        const text = String(raw);
        // Parameters (a lookup's, a report's) may come from elsewhere than a query's text: PostgreSQL cannot
        // compare text holding NUL, so no query can hold it on either database.
        if (text.includes('\u0000')) {
            return fail(scope, position, `${attr.name} is text; a value with a NUL character is not.`);
        }

        return attr.type === 'upper' ? text.toUpperCase() : attr.type === 'lower' ? text.toLowerCase() : text;
    }

    if (family === 'integer' || family === 'decimal') {
        // Decimal notation only: Number() would also read 0x10, 0b1 and 0o7.
        const number = typeof raw === 'number' ? raw : (typeof raw === 'string' && /^\s*[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?\s*$/.test(raw) ? Number(raw) : NaN);
        return Number.isFinite(number) ? number : fail(scope, position, `${attr.name} is a number; ${JSON.stringify(raw)} is not.`);
    }

    if (family === 'boolean') {
        const truth = new Map<unknown, boolean>([[true, true], [false, false], [1, true], [0, false], ['1', true], ['0', false], ['Y', true], ['N', false], ['true', true], ['false', false]]);
        return truth.has(raw) ? truth.get(raw) : fail(scope, position, `${attr.name} is true or false; ${JSON.stringify(raw)} is not.`);
    }

    // An ISO-8601 day (YYYY-MM-DD), with a time or not, that its month has: JavaScript's Date would also read
    // 2025-1-1 (in the server's time zone) and roll 2025-02-30 over into March, as a write never does.
    const day = typeof raw === 'string' ? isoDay.exec(raw) : null;
    const date = day && realDate(day) ? new Date(/[zZ]|[+-]\d\d:?\d\d$/.test(raw as string) || (raw as string).length <= 10 ? raw as string : `${raw as string}Z`) : new Date(NaN);
    // Years outside 0001–9999 have no common form on both databases (SQLite compares ISO text).
    if (Number.isNaN(date.getTime()) || date.getUTCFullYear() < 1 || date.getUTCFullYear() > 9999) {
        return fail(scope, position, `${attr.name} is a date; ${JSON.stringify(raw)} is not.`);
    }

    // Stored datetimes are whole seconds; a query value keeps its milliseconds so that < and > stay exact.
    return family === 'datetime' ? date.toISOString() : toDb(attr, date);
};

// A stored attribute's column; a computed one's SQL expression (a raw value binds where a column name would).
const column = (builder: Builder, scope: WhereScope, attr: Attribute): string => {

    const sql = attr.persistent ? undefined : computedOf(scope.object, attr)?.sql;
    return sql ? builder.client.raw(computedExpression(scope.kind, attr, sql, scope.alias)) as unknown as string : `${scope.alias}.${attr.name}`;
};

type Term = Extract<Where, { path: Path }>;

// A "%x%" term's attribute is text.
const likeAttribute = (scope: WhereScope, attr: Attribute, position: number): Attribute => (isText(attr) ? attr : fail(scope, position, `${attr.name} is not text; "%" patterns apply to text attributes.`));

// Its pattern as LIKE reads it: `%` the only wildcard, `_` and `\` literal.
const likePattern = (pattern: string): string => pattern.replace(/[\\_]/g, (char) => `\\${char}`);

const applyTerm = (builder: Builder, scope: WhereScope, term: Term, names: readonly string[]) => {

    const position = term.path.position;
    if (names.length > 1 || term.kind === 'exists') {
        const [first, ...rest] = names;
        const hop = hopOf(scope, first!, position);
        viaHop(builder, scope, hop, (sub, subScope) => {

            // Either more of the path to follow, or the end of a scoped term's path: child{...}.
            if (rest.length) {
                applyTerm(sub, subScope, term, rest);
            }
            else {
                applyWhere(sub, subScope, (term as Extract<Where, { kind: 'exists' }>).where);
            }
        });
        return;
    }

    const attr = attributeOf(scope, names[0]!, position);
    const col = column(builder, scope, attr);
    switch (term.kind) {
        case 'isnull': {
            builder[term.isNull ? 'whereNull' : 'whereNotNull'](col);
            return;
        }

        case 'like': {
            likeAttribute(scope, attr, position);
            builder.whereRaw(`${term.negated ? 'not ' : ''}${foldedColumn(scope.kind)} like lower(?) escape '\\'`, [col, likePattern(term.pattern)]);
            return;
        }

        case 'in': {
            const values = term.values.map((value) => bindValue(scope, attr, literalValue(scope, value, position, attr), position));
            const list = values.map((value) => valuePlaceholder(scope.kind, attr, value)).join(', ');
            builder.whereRaw(`?? ${term.negated ? 'not in' : 'in'} (${list})`, [col, ...values as Knex.Value[]]);
            return;
        }

        default: {
            const value = bindValue(scope, attr, literalValue(scope, term.value, position, attr), position);
            if (value === null) {
                return void (term.op === '!=' ? builder.whereNotNull(col) : term.op === '=' ? builder.whereNull(col) : builder.whereRaw('1 = 0'));
            }

            const op = term.op === '!=' ? '<>' : term.op;
            const target = op === '=' || op === '<>' ? '??' : orderedColumn(scope.kind, attr);
            builder.whereRaw(`${target} ${op} ${valuePlaceholder(scope.kind, attr, value)}`, [col, value as Knex.Value]);
        }
    }
};

// One alternative of an OR: a where, and for a term the part of its path still to follow from the scope's object.
interface Alternative {
    readonly where: Where;
    readonly names: readonly string[];
}

const alternativeOf = (where: Where): Alternative => ({ where, names: 'path' in where ? where.path.names : [] });

// The relation or child an alternative's path goes through first, if it does.
const hopName = ({ where, names }: Alternative): string | undefined => ('path' in where && (names.length > 1 || where.kind === 'exists') ? names[0] : undefined);

// What is left of an alternative once inside its first hop: the rest of its path, or a scoped term's where.
const beyondHop = ({ where, names }: Alternative): Alternative => (names.length > 1 ? { where, names: names.slice(1) } : alternativeOf((where as Extract<Where, { kind: 'exists' }>).where));

// The attribute of a case-insensitive LIKE that the alternative tests on the scope's own object.
const likeName = ({ where, names }: Alternative): string | undefined => (where.kind === 'like' && !where.negated && names.length === 1 ? names[0] : undefined);

// Resolves an alternative's names as compiling it would, and fails as it would on the first that names nothing.
const checkNames = (scope: WhereScope, alternative: Alternative): void => {

    const { where, names } = alternative;
    if (!('path' in where)) {
        const terms = where.kind === 'not' ? [where.term] : where.kind === 'and' || where.kind === 'or' ? where.terms : [];
        terms.forEach((term) => checkNames(scope, alternativeOf(term)));
        return;
    }

    const position = where.path.position;
    const hop = hopName(alternative);
    if (hop !== undefined) {
        const { structure, object } = hopOf(scope, hop, position);
        checkNames({ ...scope, structure, object }, beyondHop(alternative));
        return;
    }

    const attr = attributeOf(scope, names[0]!, position);
    if (where.kind === 'like') {
        likeAttribute(scope, attr, position);
    }
};

// The alternatives of an OR. Those that go through the same relation or child become one EXISTS whose row satisfies
// any of them (EXISTS a OR EXISTS b is EXISTS (a OR b) over the same related rows): 32 OR-ed child terms were 32
// scans of the child table (12.9 s on 200,000 work orders with 300,000 tasks on PostgreSQL), now one (2.0 s).
// And where the database can, the LIKEs of one attribute are one test that folds it once per row (0.5 s).
const applyAlternatives = (builder: Builder, scope: WhereScope, alternatives: readonly Alternative[]) => {

    const groups = new Map<string, Alternative[]>();
    const keyOf = (alternative: Alternative) => {

        const hop = hopName(alternative);
        const like = hop === undefined && (scope.likeAny || scope.kind === 'postgresql') ? likeName(alternative) : undefined;
        return hop !== undefined ? `hop ${hop}` : like !== undefined ? `like ${like}` : undefined;
    };

    const keys = alternatives.map(keyOf);
    for (const [i, alternative] of alternatives.entries()) {
        const key = keys[i];
        if (key !== undefined) {
            const group = groups.get(key) ?? [];
            group.push(alternative);
            groups.set(key, group);
        }
    }

    // A grouped term is compiled where its group's first member is: its names are checked here first, in the order
    // sent, so that a where with several wrong names is refused for the first of them, as it was term by term.
    if ([...groups.values()].some((group) => group.length > 1)) {
        alternatives.forEach((alternative) => checkNames(scope, alternative));
    }

    const applied = new Set<string>();
    for (const [i, alternative] of alternatives.entries()) {
        const key = keys[i];
        const group = key === undefined ? [] : groups.get(key)!;
        if (group.length < 2) {
            builder.orWhere(function (this: Builder) {

                if (alternative.names.length) {
                    applyTerm(this, scope, alternative.where as Term, alternative.names);
                }
                else {
                    applyWhere(this, scope, alternative.where);
                }
            });
            continue;
        }

        if (applied.has(key!)) {
            continue;
        }

        applied.add(key!);
        const position = (alternative.where as Term).path.position;
        const hop = hopName(alternative);
        if (hop !== undefined) {
            builder.orWhere(function (this: Builder) {

                viaHop(this, scope, hopOf(scope, hop, position), (sub, subScope) => {

                    sub.where(function (this: Builder) {

                        applyAlternatives(this, subScope, group.map(beyondHop));
                    });
                });
            });
            continue;
        }

        const attr = likeAttribute(scope, attributeOf(scope, alternative.names[0]!, position), position);
        const patterns = group.map(({ where }) => likePattern((where as Extract<Where, { kind: 'like' }>).pattern));
        orLikes(builder, scope.kind, true, column(builder, scope, attr), patterns);
    }
};

export const applyWhere = (builder: Builder, scope: WhereScope, where: Where): void => {

    switch (where.kind) {
        case 'and': {
            builder.where(function (this: Builder) {

                for (const term of where.terms) {
                    this.andWhere(function (this: Builder) {

                        applyWhere(this, scope, term);
                    });
                }
            });
            return;
        }

        case 'or': {
            builder.where(function (this: Builder) {

                applyAlternatives(this, scope, where.terms.map(alternativeOf));
            });
            return;
        }

        case 'not': {
            builder.whereNot(function (this: Builder) {

                applyWhere(this, scope, where.term);
            });
            return;
        }

        default: applyTerm(builder, scope, where, where.path.names);
    }
};
