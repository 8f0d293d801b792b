import * as fc from 'fast-check';

import type { Literal, Where } from '../../src/read/parse/ast';
import type { Attribute, BusinessObject, Registry } from '../../src/structures/registry';
import { typeTable } from '../../src/structures/types';
import type { Reference } from './reference';


// Random oslc.where clauses over the demo structures, as ASTs and as the text a client sends. Values are drawn
// mostly from the rows actually stored (so results are neither always empty nor always everything), plus some
// that are absent, differently cased, shifted or written in another time zone.

// The attributes and hops each scope draws from: every type family, attributes with and without nulls.
const curated: Record<string, { attributes: string[]; children: Record<string, string[]>; relations: string[] }> = {
    MXAPIWODETAIL: {
        attributes: ['wonum', 'siteid', 'status', 'worktype', 'description', 'wopriority', 'estdur', 'reportdate', 'schedstart', 'actstart', 'assetnum', 'location'],
        children: {
            woactivity: ['taskid', 'status', 'estdur', 'description', 'schedstart'],
            wplabor: ['craft', 'laborcode', 'regularhrs', 'quantity'],
            wostatus: ['status', 'changedate', 'memo']
        },
        relations: ['asset', 'location', 'ownerperson']
    },
    MXAPIASSET: {
        attributes: ['assetnum', 'siteid', 'status', 'description', 'priority', 'purchaseprice', 'installdate', 'isrunning', 'location', 'parent', 'assettype'],
        children: { assetmeter: ['metername', 'lastreading', 'lastreadingdate', 'active'] },
        relations: ['location', 'parentasset', 'openwo']
    },
    MXAPILOCATION: {
        attributes: ['location', 'siteid', 'status', 'type', 'description', 'parent'],
        children: {},
        relations: ['assets', 'parentlocation']
    },
    MXAPIPERSON: {
        attributes: ['personid', 'status', 'lastname', 'locationsite'],
        children: {},
        relations: []
    }
};

export type InTerm = Extract<Where, { kind: 'in' }> & { bracket?: boolean };    // bracket: written as ="[a,b]" / !="[a,b]"

export interface WhereCase {
    readonly os: string;
    readonly where: Where;
    readonly opmodeor: boolean;
    readonly text: string;
}

// ---- Printing

const quote = (text: string) => `"${text.replace(/[\\"]/g, '\\$&')}"`;

const printLiteral = (literal: Literal): string => {

    switch (literal.kind) {
        case 'string': return quote(literal.value);
        case 'number': return String(literal.value);
        case 'boolean': return String(literal.value);
        case 'param': return `:${literal.name}`;
    }
};

// "[a,b]" reads back as these strings only when each is non-empty, has no comma and no surrounding space.
const bracketable = (values: Literal[]) => values.every((value) => value.kind === 'string' && value.value !== '' && !value.value.includes(',') && value.value.trim() === value.value);

// With = or !=, a string that is "*", holds a "%" or looks like "[…]" means something else than a comparison.
export const special = (literal: Literal) => literal.kind === 'string' && (literal.value === '*' || literal.value.includes('%') || (literal.value.length >= 2 && literal.value.startsWith('[') && literal.value.endsWith(']')));

export const printWhere = (where: Where): string => {

    const grouped = (term: Where) => (term.kind === 'and' || term.kind === 'or' ? `(${printWhere(term)})` : printWhere(term));
    switch (where.kind) {
        case 'and': return where.terms.map(grouped).join(' and ');
        case 'or': return where.terms.map(printWhere).join(' or ');
        case 'not': return `not ${grouped(where.term)}`;
        case 'exists': return `${where.path.names.join('.')}{${printWhere(where.where)}}`;
        default: break;
    }

    const path = where.path.names.join('.');
    switch (where.kind) {
        case 'compare': return `${path}${where.op}${printLiteral(where.value)}`;
        case 'like': return `${path}${where.negated ? '!=' : '='}${quote(where.pattern)}`;
        case 'isnull': return `${path}${where.isNull ? '!=' : '='}"*"`;
        case 'in': {
            if ((where as InTerm).bracket && bracketable(where.values)) {
                return `${path}${where.negated ? '!=' : '='}${quote(`[${where.values.map((value) => (value as { value: string }).value).join(',')}]`)}`;
            }

            return `${path} ${where.negated ? 'not in' : 'in'} [${where.values.map(printLiteral).join(',')}]`;
        }
    }
};

export const whereCase = (os: string, where: Where, opmodeor: boolean): WhereCase => {

    const text = printWhere(where);
    return {
        os, where, opmodeor, text,
        [fc.toStringMethod]: () => `${os}?oslc.where=${text}${opmodeor ? '&opmodeor=1' : ''}`
    } as WhereCase;
};

// One step simpler clauses, for minimizing a failure further than fast-check's shrinking of arrays goes: a
// term of an and/or alone or left out, the operand of a not, a simpler child scope, one value fewer in a list.
export const simpler = (where: Where): Where[] => {

    switch (where.kind) {
        case 'and':
        case 'or': {
            const { kind, terms } = where;
            const fewer = terms.length > 2 ? terms.map((_, i): Where => ({ kind, terms: terms.filter((__, j) => j !== i) })) : [];
            const inner = terms.flatMap((term, i) => simpler(term).map((simple): Where => ({ kind, terms: terms.map((other, j) => (j === i ? simple : other)) })));
            return [...terms, ...fewer, ...inner];
        }

        case 'not': return [where.term, ...simpler(where.term).map((term): Where => ({ kind: 'not', term }))];
        case 'exists': return simpler(where.where).map((inner): Where => ({ ...where, where: inner }));
        case 'in': return where.values.length > 1 ? where.values.map((_, i): Where => ({ ...where, values: where.values.filter((__, j) => j !== i) })) : [];
        default: return [];
    }
};

// ---- Values

const two = (value: number) => String(value).padStart(2, '0');

// An instant written at a given offset (minutes east of UTC), with or without milliseconds.
const zoned = (ms: number, offset: number, millis: boolean) => {

    const local = new Date(ms + offset * 60_000).toISOString().slice(0, millis ? 23 : 19);
    const sign = offset < 0 ? '-' : '+';
    return `${local}${sign}${two(Math.floor(Math.abs(offset) / 60))}:${two(Math.abs(offset) % 60)}`;
};

type InstantStyle = 'offset' | 'z' | 'bare' | 'date' | 'west' | 'east' | 'millis';

const formatInstant = (ms: number, style: InstantStyle): string => {

    const iso = new Date(ms).toISOString();
    switch (style) {
        case 'offset': return zoned(ms, 0, false);
        case 'z': return `${iso.slice(0, 19)}Z`;
        case 'bare': return iso.slice(0, 19);
        case 'date': return iso.slice(0, 10);
        case 'west': return zoned(ms, -300, false);
        case 'east': return zoned(ms, 330, false);
        case 'millis': return iso;
    }
};

const string = (value: string): Literal => ({ kind: 'string', value });
const number = (value: number): Literal => ({ kind: 'number', value });

const mixedCase = (text: string) => [...text].map((char, i) => (i % 2 ? char.toLowerCase() : char.toUpperCase())).join('');

const ops = fc.constantFrom<Extract<Where, { kind: 'compare' }>['op']>('=', '!=', '<', '<=', '>', '>=');
const day = 86_400_000;

interface Scope {
    readonly id: string;
    readonly object: BusinessObject;
    readonly attributes: Attribute[];
    readonly structure: string | undefined;
    readonly children: Record<string, string[]>;
    readonly relations: string[];
}

type TermWithPath = Extract<Where, { path: unknown }>;

export class WhereGenerator {

    private readonly registry: Registry;
    private readonly reference: Reference;
    private readonly scopes = new Map<string, Scope>();
    private readonly memo = new Map<string, fc.Arbitrary<Where>>();

    constructor(registry: Registry, reference: Reference) {

        this.registry = registry;
        this.reference = reference;
    }

    // A where over a structure's root, nested at most `depth` levels (and/or/not/child scopes).
    where(structureName: string, depth: number): fc.Arbitrary<Where> {

        return this.whereIn(this.structureScope(structureName), depth);
    }

    cases(structureNames: string[], depth: number): fc.Arbitrary<WhereCase> {

        const wheres = structureNames.map((os) => this.where(os, depth).map((where) => [os, where] as const));
        return fc.tuple(fc.oneof(...wheres), fc.nat(4)).map(([[os, where], mode]) => whereCase(os, where, mode === 4));
    }

    private structureScope(name: string): Scope {

        const id = name;
        const known = this.scopes.get(id);
        if (known) {
            return known;
        }

        const structure = this.registry.get(name)!;
        const spec = curated[name]!;
        const scope: Scope = { id, object: structure.root, attributes: this.attributes(structure.root, spec.attributes), structure: name, children: spec.children, relations: spec.relations };
        this.scopes.set(id, scope);
        return scope;
    }

    private childScope(parent: Scope, name: string): Scope {

        const id = `${parent.id}.${name}`;
        const known = this.scopes.get(id);
        if (known) {
            return known;
        }

        const object = parent.object.children.get(name)!.object;
        const scope: Scope = { id, object, attributes: this.attributes(object, parent.children[name]!), structure: undefined, children: {}, relations: [] };
        this.scopes.set(id, scope);
        return scope;
    }

    private attributes(object: BusinessObject, names: string[]): Attribute[] {

        return names.map((name) => {

            const attr = object.attributes.get(name);
            if (!attr) {
                throw new Error(`${object.name} has no attribute ${name}`);
            }

            return attr;
        });
    }

    // Where a name leads from a scope: its child objects, and the relations of a structure's root.
    private hops(scope: Scope): { name: string; scope: Scope }[] {

        const children = Object.keys(scope.children).map((name) => ({ name, scope: this.childScope(scope, name) }));
        const relations = scope.relations.map((name) => {

            const target = this.registry.get(scope.structure!)!.def.relations[name]!.structure;
            return { name, scope: this.structureScope(this.registry.get(target)!.name) };
        });

        return [...children, ...relations];
    }

    // Each (scope, depth) is built once; the graph of scopes is cyclic, the depths bound it.
    private memoized(key: string, build: () => fc.Arbitrary<Where>): fc.Arbitrary<Where> {

        const known = this.memo.get(key);
        if (known) {
            return known;
        }

        const arbitrary = build();
        this.memo.set(key, arbitrary);
        return arbitrary;
    }

    private whereIn(scope: Scope, depth: number): fc.Arbitrary<Where> {

        return this.memoized(`where ${scope.id} ${depth}`, () => {

            const leaf = this.leaf(scope, 2);
            if (depth <= 0) {
                return leaf;
            }

            const inner = this.whereIn(scope, depth - 1);
            const terms = fc.array(inner, { minLength: 1, maxLength: 3 });        // one term prints as itself: shrinking can drop the others
            const exists = this.existsPaths(scope).map(({ names, target, weight }) => ({
                weight,
                arbitrary: this.whereIn(target, depth - 1).map((where): Where => ({ kind: 'exists', path: { names, position: 1 }, where }))
            }));
            return fc.oneof(
                { withCrossShrink: true },
                { weight: 6, arbitrary: leaf },
                { weight: 3, arbitrary: terms.map((list): Where => ({ kind: 'and', terms: list })) },
                { weight: 3, arbitrary: terms.map((list): Where => ({ kind: 'or', terms: list })) },
                { weight: 2, arbitrary: inner.map((term): Where => ({ kind: 'not', term })) },
                ...(exists.length ? [{ weight: 2, arbitrary: fc.oneof(...exists) }] : [])
            );
        });
    }

    // child{…} and relation{…} one hop away, and two hops away through a relation: asset.location{…}.
    private existsPaths(scope: Scope): { names: string[]; target: Scope; weight: number }[] {

        const paths: { names: string[]; target: Scope; weight: number }[] = [];
        for (const hop of this.hops(scope)) {
            paths.push({ names: [hop.name], target: hop.scope, weight: 3 });
            if (hop.scope.structure && scope.relations.includes(hop.name)) {
                for (const second of this.hops(hop.scope)) {
                    paths.push({ names: [hop.name, second.name], target: second.scope, weight: 1 });
                }
            }
        }

        return paths;
    }

    // One condition on an attribute of the scope, or of a scope up to `hops` names away (asset.location.status).
    private leaf(scope: Scope, hops: number): fc.Arbitrary<Where> {

        return this.memoized(`leaf ${scope.id} ${hops}`, () => {

            const own = fc.oneof(...scope.attributes.map((attr) => this.term(scope, attr)));
            const further = hops > 0 ? this.hops(scope).map((hop) => this.leaf(hop.scope, hops - 1).map((term): Where => {

                const inner = term as TermWithPath;
                return { ...inner, path: { names: [hop.name, ...inner.path.names], position: 1 } };
            })) : [];
            return further.length ? fc.oneof({ weight: 3 * further.length, arbitrary: own }, ...further.map((arbitrary) => ({ weight: 1, arbitrary }))) : own;
        });
    }

    private values(object: BusinessObject, attr: Attribute) {

        const seen = new Set(this.reference.rows(object).map((row) => row[attr.name]).filter((value) => value !== null && value !== undefined));
        return [...seen];
    }

    private literals(scope: Scope, attr: Attribute): fc.Arbitrary<Literal> {

        const present = this.values(scope.object, attr);
        const pick = <T>(list: T[], fallback: T[]) => fc.constantFrom(...(list.length ? list : fallback));
        switch (typeTable[attr.type].family) {
            case 'string':
            case 'text': {
                const texts = pick(present as string[], ['ABC']);
                const shaped = fc.tuple(texts, fc.constantFrom('lower', 'mixed', 'prefix', 'longer')).map(([text, shape]) => {

                    switch (shape) {
                        case 'lower': return text.toLowerCase();
                        case 'mixed': return mixedCase(text);
                        case 'prefix': return text.slice(0, Math.ceil(text.length / 2));
                        default: return `${text}X`;
                    }
                });
                const numeric = (present as string[]).filter((text) => /^[1-9]\d{0,8}$/.test(text)).map(Number);
                const odd = (present as string[]).filter((text) => /[^\x20-\x7e]|[%_\\"]/.test(text));      // rare in the data, so drawn on purpose
                return fc.oneof(
                    { weight: 6, arbitrary: texts.map(string) },
                    ...(odd.length ? [{ weight: 1, arbitrary: fc.constantFrom(...odd).map(string) }] : []),
                    { weight: 3, arbitrary: shaped.map(string) },
                    { weight: 1, arbitrary: fc.constantFrom('', 'ZZZ', 'nope', ' ', 'A', 'é', '[x]', '%', '*').map(string) },
                    ...(numeric.length ? [{ weight: 1, arbitrary: fc.constantFrom(...numeric).map(number) }] : [])
                );
            }

            case 'integer':
            case 'decimal': {
                const numbers = pick(present as number[], [1]);
                const near = fc.tuple(numbers, fc.constantFrom(0, 1, -1, 0.5, -0.5)).map(([value, delta]) => value + delta);
                const value = fc.oneof({ weight: 6, arbitrary: numbers }, { weight: 3, arbitrary: near }, { weight: 1, arbitrary: fc.constantFrom(0, -1, 1000, 0.25, 1e12) });
                return fc.tuple(value, fc.nat(5)).map(([n, form]) => (form === 0 ? string(String(n)) : number(n)));
            }

            case 'boolean': {
                return fc.constantFrom<Literal>({ kind: 'boolean', value: true }, { kind: 'boolean', value: false }, number(1), number(0), string('Y'), string('N'), string('1'), string('0'), string('true'), string('false'));
            }

            case 'date': {
                const instants = pick((present as string[]).map((text) => Date.parse(text)), [Date.UTC(2025, 0, 1)]);
                return fc.tuple(instants, fc.constantFrom(0, 0, day, -day), fc.constantFrom('date', 'z', 'offset', 'west-midnight')).map(([ms, delta, style]) => {

                    // Midnight UTC in every style: a date literal with a time of day is a question this test leaves open.
                    return string(style === 'west-midnight' ? zoned(ms + delta, -240, false) : formatInstant(ms + delta, style as InstantStyle));
                });
            }

            default: {
                const instants = pick((present as string[]).map((text) => Date.parse(text)), [Date.UTC(2025, 0, 1)]);
                const shifted = fc.tuple(instants, fc.constantFrom(0, 0, 0, 1000, -1000, 500, -500, day, -day));
                const style = fc.constantFrom<InstantStyle>('offset', 'offset', 'z', 'bare', 'date', 'west', 'east', 'millis');
                const absent = fc.constantFrom('1999-12-31', '2100-01-01T00:00:00Z', '2026-01-05T08:00:00');
                return fc.oneof(
                    { weight: 9, arbitrary: fc.tuple(shifted, style).map(([[ms, delta], how]) => string(formatInstant(ms + delta, how))) },
                    { weight: 1, arbitrary: absent.map(string) }
                );
            }
        }
    }

    private patterns(scope: Scope, attr: Attribute): fc.Arbitrary<string> {

        const present = this.values(scope.object, attr) as string[];
        const odd = present.filter((text) => /[^\x20-\x7e]|[%_\\"]/.test(text));
        const texts = fc.oneof({ weight: 6, arbitrary: fc.constantFrom(...(present.length ? present : ['ABC'])) }, ...(odd.length ? [{ weight: 1, arbitrary: fc.constantFrom(...odd) }] : []));
        const cut = fc.tuple(texts, fc.nat(), fc.nat()).map(([text, a, b]) => {

            const i = a % (text.length + 1);
            const j = b % (text.length + 1);
            return { text, i: Math.min(i, j), j: Math.max(i, j) };
        });
        const shapes = fc.tuple(cut, fc.constantFrom('contains', 'prefix', 'suffix', 'inner', 'underscore', 'lower', 'upper')).map(([{ text, i, j }, shape]) => {

            switch (shape) {
                case 'contains': return `%${text.slice(i, j)}%`;
                case 'prefix': return `${text.slice(0, j)}%`;
                case 'suffix': return `%${text.slice(i)}`;
                case 'inner': return `${text.slice(0, i)}%${text.slice(j)}`;
                case 'underscore': return `${text.slice(0, i)}_${text.slice(i + 1)}%`;        // `_` is no wildcard: this rarely matches
                case 'lower': return `%${text.slice(i, j).toLowerCase()}%`;
                default: return `${text.slice(0, j).toUpperCase()}%`;
            }
        });
        return fc.oneof({ weight: 8, arbitrary: shapes }, { weight: 1, arbitrary: fc.constantFrom('%', '%%', '%_%', '%\\%', '%-%', '%"%', '%é%', '%a%b%') });
    }

    private like(scope: Scope, attr: Attribute): fc.Arbitrary<Where> {

        const path = { names: [attr.name], position: 1 };
        return fc.tuple(this.patterns(scope, attr), fc.boolean()).map(([pattern, negated]): Where => ({ kind: 'like', path, negated, pattern }));
    }

    // An OR of terms that test the same thing, which the compiler makes one test (src/read/compile/compile-where.ts):
    // LIKEs of one attribute, or terms through one child or relation (its attributes, further hops, a scoped where);
    // now and then with another term of the structure's beside them, now and then negated.
    alternatives(structureName: string): fc.Arbitrary<Where> {

        const scope = this.structureScope(structureName);
        const sameAttribute = scope.attributes.filter((attr) => ['string', 'text'].includes(typeTable[attr.type].family))
            .map((attr) => fc.array(this.like(scope, attr), { minLength: 2, maxLength: 5 }));
        const sameHop = this.hops(scope).map((hop) => {

            const through = this.leaf(hop.scope, 1).map((term): Where => {

                const inner = term as TermWithPath;
                return { ...inner, path: { names: [hop.name, ...inner.path.names], position: 1 } };
            });
            const scoped = this.whereIn(hop.scope, 1).map((where): Where => ({ kind: 'exists', path: { names: [hop.name], position: 1 }, where }));
            return fc.array(fc.oneof({ weight: 3, arbitrary: through }, { weight: 1, arbitrary: scoped }), { minLength: 2, maxLength: 5 });
        });
        const other = fc.option(this.leaf(scope, 1), { freq: 3 });
        // Negated now and then: NOT of the one test must stay unknown where the OR of the terms was (a null value).
        return fc.tuple(fc.oneof(...sameAttribute, ...sameHop), other, fc.nat(3)).map(([terms, beside, negate]): Where => {

            const or: Where = { kind: 'or', terms: beside ? [...terms, beside] : terms };
            return negate === 0 ? { kind: 'not', term: or } : or;
        });
    }

    private term(scope: Scope, attr: Attribute): fc.Arbitrary<Where> {

        const path = { names: [attr.name], position: 1 };
        const literal = this.literals(scope, attr);
        const compare = fc.tuple(ops, literal)
            .filter(([op, value]) => !((op === '=' || op === '!=') && special(value)))
            .map(([op, value]): Where => ({ kind: 'compare', path, op, value }));
        const isnull = fc.boolean().map((isNull): Where => ({ kind: 'isnull', path, isNull }));
        const list = fc.tuple(fc.array(literal, { minLength: 1, maxLength: 3 }), fc.boolean(), fc.boolean())
            .map(([values, negated, bracket]): Where => ({ kind: 'in', path, negated, values, bracket }) as InTerm);
        const text = ['string', 'text'].includes(typeTable[attr.type].family);
        const like = this.like(scope, attr);
        return fc.oneof(
            { weight: 5, arbitrary: compare },
            { weight: 1, arbitrary: isnull },
            { weight: 2, arbitrary: list },
            ...(text ? [{ weight: 3, arbitrary: like }] : [])
        );
    }
}
