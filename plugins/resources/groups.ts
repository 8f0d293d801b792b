import type * as Hapi from '@hapi/hapi';

import type { GroupColumn, Where } from '../../src/query/ast';
import { applyWhere } from '../../src/query/compile-where';
import { parseGroupBy } from '../../src/query/group';
import { parseOrderBy } from '../../src/query/order';
import { QueryError } from '../../src/query/query-error';
import { parseWhere } from '../../src/query/where';
import type { Row } from '../../src/records/find';
import type { Attribute, BusinessObject, Structure } from '../../src/structures/registry';
import { toJson } from '../../src/structures/types';
import { filtered } from './filter';
import { collectionHref, text } from './request';


// distinct=attr and gbcols=…: answers computed by the database over the filtered rows (CONTRACT §3).

const attributeOf = (structure: Structure, name: string, parameter: string, position: number): Attribute => {

    const attr = structure.root.attributes.get(name);
    if (!attr?.persistent || attr.secret) {
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

// GET …/os/{os}?gbcols=a,b,count.*,sum.x[&gbsortby=-count]: one entry per group, with a query href for it.
export const groups = async (request: Hapi.Request, structure: Structure, gbcols: string): Promise<Row[]> => {

    const columns = parseGroupBy(gbcols);
    const query = filtered(request, structure);
    const keys: Attribute[] = [];
    const outputs = new Set<string>();
    for (const column of columns) {
        outputs.add(outputName(column));
        if (column.kind === 'column') {
            const attr = attributeOf(structure, column.path.join('.'), 'gbcols', column.position);
            keys.push(attr);
            query.select(`q0.${attr.name}`).groupBy(`q0.${attr.name}`);
            continue;
        }

        const attr = column.attribute ? attributeOf(structure, column.attribute, 'gbcols', column.position) : undefined;
        (query[column.aggregate] as (spec: Record<string, string>) => unknown)({ [outputName(column)]: attr ? `q0.${attr.name}` : '*' });
    }

    // The groups are a derived table, so gbfilter is an oslc.where over its outputs (SQL's HAVING).
    const osprey = request.server.app.osprey;
    const grouped = osprey.knex.select('*').from(query.as('g'));
    const gbfilter = text(request.query.gbfilter);
    if (gbfilter?.trim()) {
        const object = groupObject(structure, columns, keys);
        applyWhere(grouped, { registry: osprey.registry, kind: osprey.kind, parameter: 'gbfilter', params: {}, structure: undefined, object, alias: 'g', aliases: { next: 0 } }, aggregateNames(parseWhere(gbfilter, 'gbfilter')));
    }

    const gbsortby = text(request.query.gbsortby);
    for (const term of gbsortby?.trim() ? parseOrderBy(gbsortby, 'gbsortby') : []) {
        const name = term.path.join('.');
        if (!outputs.has(name)) {
            throw new QueryError('gbsortby', term.position, `${name} is not one of the gbcols outputs (${[...outputs].join(', ')})`);
        }

        grouped.orderBy(`g.${name}`, term.direction);
    }

    const base = collectionHref(request, structure);
    return (await grouped as Row[]).map((row) => {

        const group: Row = {};
        for (const column of columns) {
            const name = outputName(column);
            group[name] = row[name] === null || row[name] === undefined ? null : column.kind === 'column' ? toJson(keys.find((attr) => attr.name === name)!, row[name]) : Number(row[name]);
        }

        const where = keys.map((attr) => (group[attr.name] === null ? `${attr.name}!="*"` : `${attr.name}=${quote(group[attr.name])}`)).join(' and ');
        group.collectionref = `${base}${where ? `?oslc.where=${encodeURIComponent(where)}` : ''}`;
        return group;
    });
};
