import type * as Hapi from '@hapi/hapi';
import type { Knex } from 'knex';

import type { DatabaseKind } from '../../src/db/knex';
import { flag } from '../../src/http/flags';
import type { GroupColumn, Path, Where } from '../../src/read/parse/ast';
import { applyWhere, bindValue } from '../../src/read/compile/compile-where';
import { parseGroupBy } from '../../src/read/parse/group';
import { parseGroupRange, type GroupRange, type RangeValue } from '../../src/read/parse/group-range';
import { parseOrderBy } from '../../src/read/parse/order';
import { QueryError } from '../../src/read/parse/query-error';
import { orderedColumn, valuePlaceholder } from '../../src/read/compile/sql-types';
import { parseWhere } from '../../src/read/parse/where';
import { notStored } from '../../src/structures/computed';
import type { Row } from '../../src/read/execute/find';
import type { Attribute, BusinessObject, Structure } from '../../src/structures/registry';
import { toJson, typeTable, type JsonValue } from '../../src/structures/types';
import { filtered } from './filter';
import { collectionHref, text } from './request';


// distinct=attr and gbcols=… (with gbfilter, gbsortby, gbrange): answers computed by the database over the
// filtered rows (CONTRACT §3).

const attributeOf = (structure: Structure, name: string, parameter: string, position: number): Attribute => {

    const attr = structure.root.attributes.get(name);
    if (attr && !attr.persistent) {
        throw new QueryError(parameter, position, notStored(structure.root, attr));
    }

    if (!attr || attr.secret) {
        throw new QueryError(parameter, position, `${name} is not an attribute of ${structure.root.name}`);
    }

    return attr;
};

// GET …/os/{os}?distinct=attr: the distinct non-null values, in order.
export const distinctValues = async (request: Hapi.Request, structure: Structure, name: string): Promise<unknown[]> => {

    const attr = attributeOf(structure, name.trim().toLowerCase(), 'distinct', 1);
    const rows = await filtered(request, structure).distinct(`q0.${attr.name} as v`).whereNotNull(`q0.${attr.name}`).orderBy('v') as Row[];
    return rows.map((row) => toJson(attr, row.v));
};

const outputName = (column: GroupColumn) => (column.kind === 'column' ? column.path.join('.') : column.attribute ? `${column.aggregate}_${column.attribute}` : 'count');

const quote = (value: unknown) => (typeof value === 'string' ? `"${value.replace(/(["\\])/g, '\\$1')}"` : String(value));

// The group outputs as the attributes of an object, for gbfilter: the group columns keep their types; an
// aggregate is a number named as in the answer (count, sum_estdur).
const groupObject = (structure: Structure, columns: readonly GroupColumn[], keys: readonly Attribute[]): BusinessObject => {

    const attributes = new Map<string, Attribute>(keys.map((attr) => [attr.name, attr]));
    for (const column of columns) {
        if (column.kind === 'aggregate') {
            const name = outputName(column);
            attributes.set(name, { ...structure.root.attributes.get(structure.root.uniqueColumn)!, name, type: 'decimal', persistent: true, secret: false });
        }
    }

    return { ...structure.root, name: 'the groups', attributes, children: new Map() };
};

// `sum.estdur>10` (the gbcols spelling) reads as `sum_estdur>10`.
const aggregateNames = (where: Where): Where => {

    switch (where.kind) {
        case 'and':
        case 'or': return { ...where, terms: where.terms.map(aggregateNames) };
        case 'not': return { ...where, term: aggregateNames(where.term) };
        default: {
            const names = where.path.names;
            const renamed = names.length === 2 && ['sum', 'avg', 'min', 'max', 'count'].includes(names[0]!) ? [`${names[0]}_${names[1]}`] : names;
            return { ...where, path: { ...where.path, names: renamed } } as Where;
        }
    }
};

// gbrange (src/read/parse/group-range.ts): one range of a group column, as SQL over the column (aliased q0), its
// value in the answer (the set's values, or the interval's ends) and its terms in the group's collectionref.
interface Range {
    readonly sql: string;
    readonly bindings: readonly Knex.Value[];
    readonly value: JsonValue[];
    readonly where: string;
    /** What it holds: a set's values, or an interval. */
    readonly values?: readonly unknown[];
    readonly low?: { readonly value: number | string; readonly included: boolean };
    readonly high?: { readonly value: number | string; readonly included: boolean };
}

type Interval = Required<Pick<Range, 'low' | 'high'>>;

const inside = (value: unknown, { low, high }: Interval) => {

    const v = value as number | string;
    return (low.included ? v >= low.value : v > low.value) && (high.included ? v <= high.value : v < high.value);
};

const overlap = (a: Range, b: Range): boolean => {

    if (a.values || b.values) {
        return a.values ? a.values.some((value) => (b.values ? b.values.includes(value) : inside(value, b as Interval))) : overlap(b, a);
    }

    const [x, y] = [a as Interval, b as Interval];
    const start = x.low.value > y.low.value || (x.low.value === y.low.value && !x.low.included) ? x.low : y.low;
    const end = x.high.value < y.high.value || (x.high.value === y.high.value && !x.high.included) ? x.high : y.high;
    return start.value < end.value || (start.value === end.value && start.included && end.included);
};

const rangeOf = (kind: DatabaseKind, attr: Attribute, range: GroupRange): Range => {

    const typed = ({ text: value, position }: RangeValue) => bindValue({ parameter: 'gbrange' }, attr, value, position) as number | string;
    const column = `q0.${attr.name}`;
    if (range.kind === 'set') {
        const values = [...new Set(range.values.map(typed))];
        const list = values.map((value) => valuePlaceholder(kind, attr, value)).join(', ');
        return { sql: `?? in (${list})`, bindings: [column, ...values], value: values.map((value) => toJson(attr, value)), where: `${attr.name} in [${values.map(quote).join(',')}]`, values };
    }

    if (!['integer', 'decimal', 'date', 'datetime'].includes(typeTable[attr.type].family)) {
        throw new QueryError('gbrange', range.position, `${attr.name} is neither a number nor a date: group its values in sets such as {[A:B]}`);
    }

    const low = { value: typed(range.low), included: range.lowIncluded };
    const high = { value: typed(range.high), included: range.highIncluded };
    if (low.value > high.value || (low.value === high.value && !(low.included && high.included))) {
        throw new QueryError('gbrange', range.position, `the range ${range.lowIncluded ? '[' : '('}${range.low.text}..${range.high.text}${range.highIncluded ? ']' : ')'} holds no value`);
    }

    const target = orderedColumn(kind, attr);
    const [from, to] = [low.included ? '>=' : '>', high.included ? '<=' : '<'];
    return {
        sql: `${target} ${from} ${valuePlaceholder(kind, attr, low.value)} and ${target} ${to} ${valuePlaceholder(kind, attr, high.value)}`,
        bindings: [column, low.value, column, high.value],
        value: [toJson(attr, low.value), toJson(attr, high.value)],
        where: `${attr.name}${from}${quote(low.value)} and ${attr.name}${to}${quote(high.value)}`,
        low,
        high
    };
};

// Each clause's ranges by group column. A value may fall in one range of a column only.
const rangesOf = (kind: DatabaseKind, keys: readonly Attribute[], gbrange: string): Map<string, Range[]> => {

    const ranges = new Map<string, Range[]>();
    for (const clause of parseGroupRange(gbrange)) {
        const attr = keys.find((key) => key.name === clause.name);
        if (!attr) {
            throw new QueryError('gbrange', clause.position, `${clause.name} is not one of the gbcols columns${keys.length ? ` (${keys.map((key) => key.name).join(', ')})` : ''}`);
        }

        if (ranges.has(attr.name)) {
            throw new QueryError('gbrange', clause.position, `${attr.name} has a second clause; list all its ranges in one {…}`);
        }

        const list: Range[] = [];
        for (const range of clause.ranges) {
            const resolved = rangeOf(kind, attr, range);
            if (list.some((other) => overlap(other, resolved))) {
                throw new QueryError('gbrange', range.position, `this range of ${attr.name} overlaps an earlier one: a value can fall in one range only`);
            }

            list.push(resolved);
        }

        ranges.set(attr.name, list);
    }

    return ranges;
};

// Output columns of the ranged rows: the index of the row's range (null outside them) and the column's value
// outside them (null inside), and per group the smallest value it holds (what gbsortby sorts a ranged column by).
const rangeColumn = (name: string) => `osprey_range_${name}`;
const valueColumn = (name: string) => `osprey_value_${name}`;
const leastColumn = (name: string) => `osprey_least_${name}`;

const rangedRows = (knex: Knex, rows: Knex.QueryBuilder, ranges: ReadonlyMap<string, readonly Range[]>): Knex.QueryBuilder => {

    const columns: Knex.Raw[] = [];
    for (const [name, list] of ranges) {
        const which = `case ${list.map((range, i) => `when ${range.sql} then ${i}`).join(' ')} end`;
        const bindings = list.flatMap((range) => range.bindings);
        columns.push(knex.raw(`${which} as ??`, [...bindings, rangeColumn(name)]), knex.raw(`case when ${which} is null then ?? end as ??`, [...bindings, `q0.${name}`, valueColumn(name)]));
    }

    return knex.from(rows.select('q0.*', ...columns).as('s'));
};

// The paths a where names.
const pathsOf = (where: Where): Path[] => {

    switch (where.kind) {
        case 'and':
        case 'or': return where.terms.flatMap(pathsOf);
        case 'not': return pathsOf(where.term);
        default: return [where.path];
    }
};

// gbfilter and gbsortby name an aggregate as gbcols does (count.*, sum.estdur: the only forms IBM's Java client
// can send); outside quoted values they read as the output names (count, sum_estdur). Same length, so a
// position in an error still points into the text as sent.
const outputSpelling = (source: string | undefined): string | undefined => {

    const outside = (part: string) => part.replace(/\bcount\.\*/gi, 'count  ').replace(/\b(sum|avg|min|max|count)\.(?=[a-z_])/gi, '$1_');
    return source?.replace(/"(?:[^"\\]|\\.)*"|[^"]+/g, (part) => (part.startsWith('"') ? part : outside(part)));
};

// The parameters that choose the rows a group-by groups (plugins/resources/filter.ts), carried into each group's
// collectionref so that it lists the group's rows and no others.
const rowFilters = (name: string) => ['savedQuery', 'savedquery', 'oslc.searchTerms', 'searchAttributes', 'tlrange', 'tlattribute'].includes(name) || name.startsWith('sqp:');

// A group's collectionref query: the request's filters, and its oslc.where AND-ed with the group's terms. Under
// opmode or (every and of oslc.where becomes or) the group's terms cannot be AND-ed in the same parameter, so the
// groups carry no collectionref rather than one that lists other rows.
const groupRef = (request: Hapi.Request) => {

    const query = request.query as Record<string, unknown>;
    const or = flag(query.opmodeor) || text(query.opmode)?.trim().toLowerCase() === 'or';
    const kept = Object.entries(query).filter(([name, value]) => rowFilters(name) && typeof value === 'string') as [string, string][];
    const where = text(query['oslc.where'])?.trim();
    return (terms: readonly string[]): string | undefined => {

        if (or) {
            return undefined;
        }

        const all = [...where ? [terms.length ? `(${where})` : where] : [], ...terms];
        const params = new URLSearchParams([...all.length ? [['oslc.where', all.join(' and ')]] : [], ...kept]).toString().replace(/\+/g, '%20');
        return params ? `?${params}` : '';
    };
};

// GET …/os/{os}?gbcols=a,b,count.*,sum.x[&gbsortby=-count][&gbrange=a={[x:y]}]: one entry per group, with a query
// href for it. With gbrange, the rows whose value of a group column falls in one of its ranges make one group,
// whose value is the range; the other values group as usual.
export const groups = async (request: Hapi.Request, structure: Structure, gbcols: string): Promise<Row[]> => {

    const osprey = request.server.app.osprey;
    const columns = parseGroupBy(gbcols).map((column) => {

        const name = outputName(column);
        const attribute = column.kind === 'column' ? name : column.attribute;
        return { column, name, attr: attribute === undefined ? undefined : attributeOf(structure, attribute, 'gbcols', column.position) };
    });
    const keys = columns.filter(({ column }) => column.kind === 'column').map(({ attr }) => attr!);
    const outputs = new Set(columns.map(({ name }) => name));
    const gbrange = text(request.query.gbrange);
    const ranges = gbrange?.trim() ? rangesOf(osprey.kind, keys, gbrange) : new Map<string, Range[]>();
    const alias = ranges.size ? 's' : 'q0';
    const query = ranges.size ? rangedRows(osprey.knex, filtered(request, structure), ranges) : filtered(request, structure);
    for (const { column, name, attr } of columns) {
        if (column.kind === 'aggregate') {
            (query[column.aggregate] as (spec: Record<string, string>) => unknown)({ [name]: attr ? `${alias}.${attr.name}` : '*' });
        }
        else if (ranges.has(name)) {
            // PostgreSQL has no min() of booleans; false < true as 0 < 1.
            const least = typeTable[attr!.type].family === 'boolean' ? osprey.knex.raw('min(cast(?? as integer)) as ??', [`s.${name}`, leastColumn(name)]) : osprey.knex.raw('min(??) as ??', [`s.${name}`, leastColumn(name)]);
            query.select(`s.${rangeColumn(name)}`, `s.${valueColumn(name)} as ${name}`, least).groupBy(`s.${rangeColumn(name)}`, `s.${valueColumn(name)}`);
        }
        else {
            query.select(`${alias}.${name}`).groupBy(`${alias}.${name}`);
        }
    }

    // The groups are a derived table, so gbfilter is an oslc.where over its outputs (SQL's HAVING).
    const grouped = osprey.knex.select('*').from(query.as('g'));
    const gbfilter = outputSpelling(text(request.query.gbfilter));
    if (gbfilter?.trim()) {
        const object = groupObject(structure, columns.map(({ column }) => column), keys);
        const where = aggregateNames(parseWhere(gbfilter, 'gbfilter'));
        const ranged = pathsOf(where).find((path) => ranges.has(path.names[0]!));
        if (ranged) {
            throw new QueryError('gbfilter', ranged.position, `${ranged.names[0]} is grouped in ranges (gbrange), so a group has no one value of it to compare`);
        }

        applyWhere(grouped, { registry: osprey.registry, kind: osprey.kind, parameter: 'gbfilter', params: {}, structure: undefined, object, alias: 'g', aliases: { next: 0 } }, where);
    }

    const gbsortby = outputSpelling(text(request.query.gbsortby));
    for (const term of gbsortby?.trim() ? parseOrderBy(gbsortby, 'gbsortby') : []) {
        const name = term.path.join('.');
        if (!outputs.has(name)) {
            throw new QueryError('gbsortby', term.position, `${name} is not one of the gbcols outputs (${[...outputs].join(', ')})`);
        }

        // A null sorts after every value on both databases, as in oslc.orderBy (src/read/plan/ordering.ts).
        grouped.orderByRaw(`?? ${term.direction} nulls ${term.direction === 'asc' ? 'last' : 'first'}`, [`g.${ranges.has(name) ? leastColumn(name) : name}`]);
    }

    const base = collectionHref(request, structure);
    const refOf = groupRef(request);
    return (await grouped as Row[]).map((row) => {

        const group: Row = {};
        const terms: string[] = [];
        for (const { column, name, attr } of columns) {
            if (column.kind === 'aggregate') {
                group[name] = row[name] === null || row[name] === undefined ? null : Number(row[name]);
                continue;
            }

            const index = row[rangeColumn(name)];
            const range = index === null || index === undefined ? undefined : ranges.get(name)![Number(index)]!;
            group[name] = range ? range.value : toJson(attr!, row[name]);
            terms.push(range ? range.where : group[name] === null ? `${name}!="*"` : `${name}=${quote(group[name])}`);
        }

        const ref = refOf(terms);
        if (ref !== undefined) {
            group.collectionref = `${base}${ref}`;
        }

        return group;
    });
};
