import type { Knex } from 'knex';

import type { Literal, Where } from '../../src/read/parse/ast';
import { eachObject, type Attribute, type BusinessObject, type Registry, type Structure } from '../../src/structures/registry';
import { toJson, typeTable, type JsonValue } from '../../src/structures/types';


// An in-memory evaluator of oslc.where over rows read straight from the tables: the oracle the property test
// compares the SQL compiler with. It shares nothing with src/read/compile/compile-where.ts but the structure
// definitions, and it spells out the semantics (SQL three-valued logic) on its own:
// - a comparison, like, or in with a null stored value is UNKNOWN (null here); `="*"` / `!="*"` test for null;
// - upper/lower text compares with the value upper-/lower-cased; other text exactly, by code point;
// - numbers compare numerically, yorn as false < true, date and datetime values as UTC instants (a literal
//   without an offset is UTC; a date is its midnight UTC, as the API writes it);
// - a "%" pattern is lower(value) LIKE lower(pattern) with only `%` a wildcard;
// - and/or/not are Kleene's; a dotted name or child{…} is EXISTS over the related rows for which the inner
//   term is TRUE, so it is never UNKNOWN. A row is returned only when the whole where is TRUE.

export type Row = Record<string, JsonValue>;
export type Truth = boolean | null;

interface Scope {
    readonly structure: Structure | undefined;      // set on the root object of a structure: relations resolve there
    readonly object: BusinessObject;
    readonly row: Row;
}

interface Hop {
    readonly structure: Structure | undefined;
    readonly object: BusinessObject;
    readonly on: [string, string][];                // [outer attribute, inner attribute]
}

type Term = Extract<Where, { path: unknown }>;

const and = (values: Truth[]): Truth => (values.includes(false) ? false : values.includes(null) ? null : true);
const or = (values: Truth[]): Truth => (values.includes(true) ? true : values.includes(null) ? null : false);
const not = (value: Truth): Truth => (value === null ? null : !value);

// opmodeor=1: every and, at any depth and inside child scopes, is an or.
export const orMode = (where: Where): Where => {

    switch (where.kind) {
        case 'and':
        case 'or': return { kind: 'or', terms: where.terms.map(orMode) };
        case 'not': return { kind: 'not', term: orMode(where.term) };
        case 'exists': return { ...where, where: orMode(where.where) };
        default: return where;
    }
};

// Code point order, as SQLite's BINARY and PostgreSQL's COLLATE "C" sort UTF-8 text.
const compareText = (a: string, b: string): number => {

    const left = Array.from(a);
    const right = Array.from(b);
    for (let i = 0; i < Math.min(left.length, right.length); ++i) {
        const difference = left[i]!.codePointAt(0)! - right[i]!.codePointAt(0)!;
        if (difference) {
            return Math.sign(difference);
        }
    }

    return Math.sign(left.length - right.length);
};

// A literal date/datetime as an instant: an offset (or Z) is honoured, text without one is UTC.
export const literalInstant = (text: string): number => {

    const zoned = /(?:[zZ]|[+-]\d\d:?\d\d)$/.test(text) || /^\d{4}-\d\d-\d\d$/.test(text);
    return Date.parse(zoned ? text : `${text}Z`);
};

const truths = new Map<unknown, boolean>([[true, true], [false, false], [1, true], [0, false], ['1', true], ['0', false], ['Y', true], ['N', false], ['true', true], ['false', false]]);

const broken = (attr: Attribute, literal: Literal): never => {

    throw new Error(`The reference cannot type ${JSON.stringify(literal)} for ${attr.name} (${attr.type}): the generator made a where the server must refuse.`);
};

// A literal typed as the attribute: text (cased), a number, or an instant / truth as a number.
const typedLiteral = (attr: Attribute, literal: Literal): string | number => {

    if (literal.kind === 'param') {
        return broken(attr, literal);
    }

    const raw = literal.value;
    switch (typeTable[attr.type].family) {
        case 'string':
        case 'text': {
            const text = String(raw);
            return attr.type === 'upper' ? text.toUpperCase() : attr.type === 'lower' ? text.toLowerCase() : text;
        }

        case 'integer':
        case 'decimal': {
            const number = typeof raw === 'number' ? raw : typeof raw === 'string' && raw.trim() ? Number(raw) : NaN;
            return Number.isFinite(number) ? number : broken(attr, literal);
        }

        case 'boolean': return truths.has(raw) ? Number(truths.get(raw)) : broken(attr, literal);
        default: {
            const instant = typeof raw === 'string' ? literalInstant(raw) : NaN;
            return Number.isNaN(instant) ? broken(attr, literal) : instant;
        }
    }
};

// A stored (toJson) value in the same terms; never null here.
const typedStored = (attr: Attribute, value: Exclude<JsonValue, null>): string | number => {

    switch (typeTable[attr.type].family) {
        case 'date':
        case 'datetime': return Date.parse(String(value));
        case 'boolean': return Number(value);
        default: return value as string | number;
    }
};

const order = (a: string | number, b: string | number): number => {

    return typeof a === 'string' && typeof b === 'string' ? compareText(a, b) : Math.sign((a as number) - (b as number));
};

const compare = (op: Extract<Where, { kind: 'compare' }>['op'], a: string | number, b: string | number): boolean => {

    const sign = order(a, b);
    switch (op) {
        case '=': return sign === 0;
        case '!=': return sign !== 0;
        case '<': return sign < 0;
        case '<=': return sign <= 0;
        case '>': return sign > 0;
        case '>=': return sign >= 0;
    }
};

// lower(value) LIKE lower(pattern), `%` the only wildcard.
const likeRx = (pattern: string) => new RegExp(`^${pattern.toLowerCase().split('%').map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('[\\s\\S]*')}$`, 'u');

export class Reference {

    readonly registry: Registry;
    readonly tables = new Map<string, Row[]>();
    private readonly indexes = new Map<string, Map<string, Row[]>>();
    private readonly patterns = new Map<string, RegExp>();

    constructor(registry: Registry) {

        this.registry = registry;
    }

    // Reads every table of every structure, its values as the API writes them, so both databases look alike.
    async load(knex: Knex): Promise<this> {

        this.tables.clear();
        this.indexes.clear();
        for (const structure of this.registry.list()) {
            for (const object of eachObject(structure.root)) {
                if (this.tables.has(object.table)) {
                    continue;
                }

                const rows = await knex(object.table).select(object.columns.map((attr) => attr.name));
                this.tables.set(object.table, rows.map((row: Record<string, unknown>) => Object.fromEntries(object.columns.map((attr) => [attr.name, toJson(attr, row[attr.name])]))));
            }
        }

        return this;
    }

    // The rows in oslc.orderBy's order as the README defines it: text by code point, numbers by value, false
    // before true, dates by instant (the API's ISO form sorts as text); a null after every value ascending and
    // before every value descending; the unique id last.
    order(structureName: string, rows: Row[], terms: readonly { name: string; direction: 'asc' | 'desc' }[]): Row[] {

        const root = this.registry.get(structureName)!.root;
        const all = [...terms, { name: root.uniqueColumn, direction: 'asc' as const }];
        const byValue = (a: JsonValue, b: JsonValue): number => {

            if (typeof a === 'string' && typeof b === 'string') {
                const [x, y] = [Array.from(a, (c) => c.codePointAt(0)!), Array.from(b, (c) => c.codePointAt(0)!)];
                for (let i = 0; i < Math.min(x.length, y.length); ++i) {
                    if (x[i] !== y[i]) {
                        return x[i]! - y[i]!;
                    }
                }

                return x.length - y.length;
            }

            return Number(a) - Number(b);
        };

        return [...rows].sort((left, right) => {

            for (const { name, direction } of all) {
                const [a, b] = [left[name] ?? null, right[name] ?? null];
                const sign = direction === 'asc' ? 1 : -1;
                const result = a === null || b === null ? (a === b ? 0 : a === null ? 1 : -1) : byValue(a, b);
                if (result !== 0) {
                    return sign * result;
                }
            }

            return 0;
        });
    }

    rows(object: BusinessObject): Row[] {

        return this.tables.get(object.table)!;
    }

    // The root rows of a structure for which the where is TRUE.
    select(structureName: string, where: Where | undefined): Row[] {

        const structure = this.registry.get(structureName)!;
        return this.rows(structure.root).filter((row) => !where || this.evaluate(where, { structure, object: structure.root, row }) === true);
    }

    // The primary key of a root row, as the test compares result sets.
    key(structureName: string, row: Row): string {

        return this.registry.get(structureName)!.root.primaryKey.map((name) => row[name]).join('/');
    }

    evaluate(where: Where, scope: Scope): Truth {

        switch (where.kind) {
            case 'and': return and(where.terms.map((term) => this.evaluate(term, scope)));
            case 'or': return or(where.terms.map((term) => this.evaluate(term, scope)));
            case 'not': return not(this.evaluate(where.term, scope));
            default: return this.term(where, where.path.names, scope);
        }
    }

    private term(term: Term, names: readonly string[], scope: Scope): Truth {

        if (names.length > 1 || term.kind === 'exists') {
            const [first, ...rest] = names;
            const hop = this.hop(scope, first!);
            return this.related(hop, scope.row).some((row) => {

                const inner: Scope = { structure: hop.structure, object: hop.object, row };
                return (rest.length ? this.term(term, rest, inner) : this.evaluate((term as Extract<Where, { kind: 'exists' }>).where, inner)) === true;
            });
        }

        const attr = scope.object.attributes.get(names[0]!);
        if (!attr?.persistent) {
            throw new Error(`The reference does not know ${names[0]} on ${scope.object.name}.`);
        }

        const value = scope.row[attr.name] ?? null;
        if (term.kind === 'isnull') {
            return (value === null) === term.isNull;
        }

        if (value === null) {
            return null;
        }

        switch (term.kind) {
            case 'like': {
                const rx = this.patterns.get(term.pattern) ?? likeRx(term.pattern);
                this.patterns.set(term.pattern, rx);
                return rx.test(String(value).toLowerCase()) !== term.negated;
            }

            case 'in': {
                const stored = typedStored(attr, value);
                const found = term.values.some((literal) => order(stored, typedLiteral(attr, literal)) === 0);
                return found !== term.negated;
            }

            default: return compare(term.op, typedStored(attr, value), typedLiteral(attr, term.value));
        }
    }

    private hop(scope: Scope, name: string): Hop {

        const child = scope.object.children.get(name);
        if (child) {
            return { structure: undefined, object: child.object, on: Object.entries(child.join) };
        }

        const relation = scope.structure?.root === scope.object ? scope.structure.def.relations[name] : undefined;
        if (!relation) {
            throw new Error(`The reference does not know ${name} from ${scope.object.name}.`);
        }

        const target = this.registry.get(relation.structure)!;
        return { structure: target, object: target.root, on: Object.entries(relation.join) };
    }

    // The rows of the hop's table whose inner columns equal the outer row's (a null equals nothing).
    private related(hop: Hop, outer: Row): Row[] {

        const outerValues = hop.on.map(([column]) => outer[column] ?? null);
        if (outerValues.includes(null)) {
            return [];
        }

        const inner = hop.on.map(([, column]) => column);
        const id = `${hop.object.table}(${inner.join(',')})`;
        let index = this.indexes.get(id);
        if (!index) {
            index = new Map();
            for (const row of this.rows(hop.object)) {
                const values = inner.map((column) => row[column] ?? null);
                if (!values.includes(null)) {
                    const key = JSON.stringify(values);
                    const list = index.get(key) ?? [];
                    list.push(row);
                    index.set(key, list);
                }
            }

            this.indexes.set(id, index);
        }

        return index.get(JSON.stringify(outerValues)) ?? [];
    }
}
