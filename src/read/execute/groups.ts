import type { Knex } from 'knex';

import type { ResourceRequest } from '../../request';
import type { Computed } from '../../structures/computed';
import type { DatabaseKind } from '../../db/knex';
import type { Attribute, BusinessObject, Structure } from '../../structures/registry';
import { toJson, typeTable } from '../../structures/types';
import type { GroupColumn, Path, Where } from '../parse/ast';
import { parseGroupBy } from '../parse/group';
import { parseOrderBy } from '../parse/order';
import { QueryError } from '../parse/query-error';
import { parseWhere } from '../parse/where';
import { beyond, checkWhereCost, costLimits } from '../plan/cost';
import { applyWhere } from '../compile/compile-where';
import { computedExpression } from '../compile/sql-types';
import { leastColumn, quote, rangeColumn, rangedRows, rangesOf, valueColumn, type Range } from '../compile/group-ranges';
import { filtered } from './filter';
import { declaredAttribute, namedAttribute } from '../plan/attribute-names';
import { orderable } from '../plan/ordering';
import type { Row } from './find';


// distinct=attr and gbcols=… (with gbfilter, gbsortby, gbrange): answers computed by the database over the
// filtered rows (CONTRACT §3).

// A distinct or group-by answer is at most OSPREY_MAX_ANSWER_ROWS values or groups, as a page of records is: the
// database is asked for one more, so an answer beyond the limit is refused without ever being in memory. It is
// not paged (IBM's guide pages neither), so the client narrows it: a where, gbfilter, fewer columns.
const withinAnswerRows = async (req: ResourceRequest, query: Knex.QueryBuilder, parameter: string, what: string): Promise<Row[]> => {

    const limits = costLimits(req.osprey.options);
    const rows = await query.limit(limits.answerRows + 1) as Row[];
    if (rows.length > limits.answerRows) {
        throw new QueryError(parameter, 1, `the answer would hold more than ${limits.answerRows} ${what}; ${beyond(limits, 'answerRows')}: narrow it with oslc.where${parameter === 'gbcols' ? ', gbfilter or fewer columns' : ''}`);
    }

    return rows;
};

// A grouped or distinct attribute and what the database reads of it: its column, or a computed attribute's SQL
// (src/structures/computed.ts); one computed without SQL, or not at all, is refused naming it.
interface Grouped {
    readonly attr: Attribute;
    readonly sql: Computed['sql'];
}

const attributeOf = (structure: Structure, name: string, parameter: string, position: number): Grouped => {

    const attr = namedAttribute(structure.root, name, { parameter, position });
    if (!attr) {
        throw new QueryError(parameter, position, `${name} is not an attribute of ${structure.root.name}`);
    }

    return { attr, sql: orderable(structure.root, attr, parameter, position) };
};

// What a select, a group or an aggregate names: the column of the table aliased `alias`, or the expression.
const target = (knex: Knex, kind: DatabaseKind, alias: string, { attr, sql }: Grouped): Knex.Raw => (sql ? knex.raw(computedExpression(kind, attr, sql, alias)) : knex.raw('??', [`${alias}.${attr.name}`]));

// GET …/os/{os}?distinct=attr: the distinct non-null values, in order.
export const distinctValues = async (req: ResourceRequest, name: string): Promise<unknown[]> => {

    const { structure, osprey: { db: { knex }, kind } } = req;
    const grouped = attributeOf(structure, name.trim().toLowerCase(), 'distinct', 1);
    const value = target(knex, kind, 'q0', grouped);
    const rows = await withinAnswerRows(req, filtered(req, structure).distinct(knex.raw('? as v', [value])).whereRaw('? is not null', [value]).orderBy('v'), 'distinct', 'distinct values');
    return rows.map((row) => toJson(grouped.attr, row.v));
};

const outputName = (column: GroupColumn) => (column.kind === 'column' ? column.path.join('.') : column.attribute ? `${column.aggregate}_${column.attribute}` : 'count');

// The group outputs as the attributes of an object, for gbfilter: the group columns keep their types; an
// aggregate is a number named as in the answer (count, sum_estdur).
const groupObject = (structure: Structure, columns: readonly GroupColumn[], keys: readonly Attribute[]): BusinessObject => {

    // In the derived table every group column is a column, a computed attribute's value too.
    const attributes = new Map<string, Attribute>(keys.map((attr) => [attr.name, { ...attr, persistent: true }]));
    for (const column of columns) {
        if (column.kind === 'aggregate') {
            const name = outputName(column);
            attributes.set(name, { ...declaredAttribute(structure.root, structure.root.uniqueColumn)!, name, type: 'decimal', persistent: true, secret: false });
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

// The parameters that choose the rows a group-by groups (./filter.ts), carried into each group's
// collectionref so that it lists the group's rows and no others.
const rowFilters = (name: string) => ['savedQuery', 'savedquery', 'oslc.searchTerms', 'searchAttributes', 'tlrange', 'tlattribute'].includes(name) || name.startsWith('sqp:');

// A group's collectionref query: the request's filters, and its oslc.where AND-ed with the group's terms. Under
// opmode or (every and of oslc.where becomes or) the group's terms cannot be AND-ed in the same parameter, so the
// groups carry no collectionref rather than one that lists other rows.
const groupRef = (req: ResourceRequest) => {

    const { read } = req;
    const or = read.opmodeor || read.opmode?.trim().toLowerCase() === 'or';
    const kept = Object.entries(read.parameters).filter(([name]) => rowFilters(name));
    const where = read.where?.trim();
    return (terms: readonly string[]): string | undefined => {

        if (or) {
            return undefined;
        }

        const all = [...where ? [terms.length ? `(${where})` : where] : [], ...terms];
        const params = new URLSearchParams([...all.length ? [['oslc.where', all.join(' and ')]] : [], ...kept]).toString().replace(/\+/g, '%20');
        return params ? `?${params}` : '';
    };
};

// A group's term for its value. `=` gives a quoted text three other meanings (src/read/parse/where.ts comparison):
// "*" tests for null, "[a,b]" is a list, and any "%" makes a pattern, so a group whose value is one of those
// would link to other rows (a group "50% off" to "50 off" too). `in [...]` reads its values as they are.
const valueTerm = (name: string, value: unknown): string => {

    const special = typeof value === 'string' && (value === '*' || value.includes('%') || (value.startsWith('[') && value.endsWith(']')));
    return special ? `${name} in [${quote(value)}]` : `${name}=${quote(value)}`;
};

// GET …/os/{os}?gbcols=a,b,count.*,sum.x[&gbsortby=-count][&gbrange=a={[x:y]}]: one entry per group, with a query
// href for it. With gbrange, the rows whose value of a group column falls in one of its ranges make one group,
// whose value is the range; the other values group as usual.
export const groups = async (req: ResourceRequest, gbcols: string, base: string): Promise<Row[]> => {

    const { osprey, structure } = req;
    const columns = parseGroupBy(gbcols).map((column) => {

        const name = outputName(column);
        const attribute = column.kind === 'column' ? name : column.attribute;
        const grouped = attribute === undefined ? undefined : attributeOf(structure, attribute, 'gbcols', column.position);
        const attr = grouped?.attr;
        // Sums, averages and extremes are of numbers (as in oslc.select): of text or dates they answer nonsense on
        // SQLite and fail on PostgreSQL, and a group's aggregate answers a number.
        if (attr && column.kind === 'aggregate' && column.aggregate !== 'count' && !['integer', 'decimal'].includes(typeTable[attr.type].family)) {
            throw new QueryError('gbcols', column.position, `${column.aggregate}.${attr.name} needs a number, and ${structure.root.name}.${attr.name.toUpperCase()} is of type ${attr.type}`);
        }

        return { column, name, attr, grouped };
    });
    const keys = columns.filter(({ column }) => column.kind === 'column').map(({ attr }) => attr!);
    const { knex } = osprey.db;
    const outputs = new Set(columns.map(({ name }) => name));
    const gbrange = req.read.gbrange;
    const ranges = gbrange?.trim() ? rangesOf(osprey.kind, keys, gbrange) : new Map<string, Range[]>();
    // A range groups the values of a column of the rows (../compile/group-ranges.ts), not of an expression.
    const computedRange = columns.find(({ name, grouped }) => ranges.has(name) && grouped?.sql);
    if (computedRange) {
        throw new QueryError('gbrange', 1, `${structure.root.name}.${computedRange.name} is computed, so it groups by its value but not in ranges (gbrange)`);
    }

    const alias = ranges.size ? 's' : 'q0';
    const query = ranges.size ? rangedRows(osprey.db.knex, filtered(req, structure), ranges) : filtered(req, structure);
    for (const { column, name, attr, grouped } of columns) {
        if (column.kind === 'aggregate') {
            if (grouped?.sql) {
                query.select(knex.raw(`${column.aggregate}(?) as ??`, [target(knex, osprey.kind, alias, grouped), name]));
            }
            else {
                (query[column.aggregate] as (spec: Record<string, string>) => unknown)({ [name]: attr ? `${alias}.${attr.name}` : '*' });
            }
        }
        else if (ranges.has(name)) {
            // PostgreSQL has no min() of booleans; false < true as 0 < 1.
            const least = typeTable[attr!.type].family === 'boolean' ? osprey.db.knex.raw('min(cast(?? as integer)) as ??', [`s.${name}`, leastColumn(name)]) : osprey.db.knex.raw('min(??) as ??', [`s.${name}`, leastColumn(name)]);
            query.select(`s.${rangeColumn(name)}`, `s.${valueColumn(name)} as ${name}`, least).groupBy(`s.${rangeColumn(name)}`, `s.${valueColumn(name)}`);
        }
        else if (grouped?.sql) {
            const value = target(knex, osprey.kind, alias, grouped);
            query.select(knex.raw('? as ??', [value, name])).groupBy(value);
        }
        else {
            query.select(`${alias}.${name}`).groupBy(`${alias}.${name}`);
        }
    }

    // The groups are a derived table, so gbfilter is an oslc.where over its outputs (SQL's HAVING).
    const answer = knex.select('*').from(query.as('g'));
    const gbfilter = outputSpelling(req.read.gbfilter);
    if (gbfilter?.trim()) {
        const object = groupObject(structure, columns.map(({ column }) => column), keys);
        const where = aggregateNames(parseWhere(gbfilter, 'gbfilter'));
        checkWhereCost(where, costLimits(osprey.options), 'gbfilter');
        const ranged = pathsOf(where).find((path) => ranges.has(path.names[0]!));
        if (ranged) {
            throw new QueryError('gbfilter', ranged.position, `${ranged.names[0]} is grouped in ranges (gbrange), so a group has no one value of it to compare`);
        }

        applyWhere(answer, { registry: osprey.registry, kind: osprey.kind, parameter: 'gbfilter', params: {}, structure: undefined, object, alias: 'g', aliases: { next: 0 }, reach: undefined }, where);
    }

    const gbsortby = outputSpelling(req.read.gbsortby);
    const sorted = new Set<string>();
    for (const term of gbsortby?.trim() ? parseOrderBy(gbsortby, 'gbsortby') : []) {
        const name = term.path.join('.');
        if (!outputs.has(name)) {
            throw new QueryError('gbsortby', term.position, `${name} is not one of the gbcols outputs (${[...outputs].join(', ')})`);
        }

        // A second term on the same output orders nothing the first has not (`+status,-status`), as in oslc.orderBy.
        if (sorted.has(name)) {
            throw new QueryError('gbsortby', term.position, `${name} is named twice; sort by each output once`);
        }

        // A null sorts after every value on both databases, as in oslc.orderBy (src/read/plan/ordering.ts).
        answer.orderByRaw(`?? ${term.direction} nulls ${term.direction === 'asc' ? 'last' : 'first'}`, [`g.${ranges.has(name) ? leastColumn(name) : name}`]);
        sorted.add(name);
    }

    // Then by the grouped values, ascending: where gbsortby leaves the order open, both databases answer the groups
    // in one order (each chose its own: a hash on PostgreSQL).
    for (const { column, name } of columns) {
        if (column.kind !== 'aggregate' && !sorted.has(name)) {
            answer.orderByRaw('?? asc nulls last', [`g.${ranges.has(name) ? leastColumn(name) : name}`]);
        }
    }

    const refOf = groupRef(req);
    return (await withinAnswerRows(req, answer, 'gbcols', 'groups')).map((row) => {

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
            terms.push(range ? range.where : group[name] === null ? `${name}!="*"` : valueTerm(name, group[name]));
        }

        const ref = refOf(terms);
        if (ref !== undefined) {
            group.collectionref = `${base}${ref}`;
        }

        return group;
    });
};
