import type * as Hapi from '@hapi/hapi';

import type { GroupColumn } from '../../src/query/ast';
import { parseGroupBy } from '../../src/query/group';
import { parseOrderBy } from '../../src/query/order';
import { QueryError } from '../../src/query/query-error';
import type { Row } from '../../src/records/find';
import type { Attribute, Structure } from '../../src/structures/registry';
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

    for (const term of parseOrderBy(text(request.query.gbsortby) ?? '', 'gbsortby')) {
        const name = term.path.join('.');
        if (!outputs.has(name)) {
            throw new QueryError('gbsortby', term.position, `${name} is not one of the gbcols outputs (${[...outputs].join(', ')})`);
        }

        query.orderBy(name, term.direction);
    }

    const base = collectionHref(request, structure);
    return (await query as Row[]).map((row) => {

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
