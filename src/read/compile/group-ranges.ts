import type { Knex } from 'knex';

import type { DatabaseKind } from '../../db/knex';
import { oncePer } from '../../db/remember';
import type { Attribute } from '../../structures/registry';
import { toJson, typeTable, type JsonValue } from '../../structures/types';
import { parseGroupRange, type GroupRange, type RangeValue } from '../parse/group-range';
import { QueryError } from '../parse/query-error';
import { bindValue } from './compile-where';
import { orderedColumn, valuePlaceholder } from './sql-types';


// gbrange's ranges compiled: which range of a group column a row falls in, as SQL (a CASE over the ranges).

export const quote = (value: unknown): string => (typeof value === 'string' ? `"${value.replace(/(["\\])/g, '\\$1')}"` : String(value));

// gbrange (src/read/parse/group-range.ts): one range of a group column, as SQL over the column (aliased q0), its
// value in the answer (the set's values, or the interval's ends) and its terms in the group's collectionref.
export interface Range {
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

// What a write of the attribute accepts (its type, length and scale: src/structures/types.ts): a range's value
// outside it names no value the column can hold (1.5 for an integer, 1.005 at scale 2, a code longer than the
// column), so the range is refused rather than run. Made once per attribute.
const inputOf = oncePer((attr: Attribute) => typeTable[attr.type].input(attr));

const rangeOf = (kind: DatabaseKind, attr: Attribute, range: GroupRange): Range => {

    const typed = ({ text: value, position }: RangeValue) => {

        const bound = bindValue({ parameter: 'gbrange' }, attr, value, position) as number | string;
        const refused = inputOf(attr).validate(bound).error;
        if (refused) {
            throw new QueryError('gbrange', position, `${attr.name} cannot hold ${value}: ${refused.message.replace(/^"value" /, '')}`);
        }

        return bound;
    };

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
export const rangesOf = (kind: DatabaseKind, keys: readonly Attribute[], gbrange: string): Map<string, Range[]> => {

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
export const rangeColumn = (name: string) => `osprey_range_${name}`;
export const valueColumn = (name: string) => `osprey_value_${name}`;
export const leastColumn = (name: string) => `osprey_least_${name}`;

export const rangedRows = (knex: Knex, rows: Knex.QueryBuilder, ranges: ReadonlyMap<string, readonly Range[]>): Knex.QueryBuilder => {

    const columns: Knex.Raw[] = [];
    for (const [name, list] of ranges) {
        const which = `case ${list.map((range, i) => `when ${range.sql} then ${i}`).join(' ')} end`;
        const bindings = list.flatMap((range) => range.bindings);
        columns.push(knex.raw(`${which} as ??`, [...bindings, rangeColumn(name)]), knex.raw(`case when ${which} is null then ?? end as ??`, [...bindings, `q0.${name}`, valueColumn(name)]));
    }

    return knex.from(rows.select('q0.*', ...columns).as('s'));
};
