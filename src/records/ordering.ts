import type { Knex } from 'knex';

import type { DatabaseKind } from '../db/knex';
import { parseOrderBy } from '../query/order';
import { QueryError } from '../query/query-error';
import { orderedColumn, valuePlaceholder } from '../query/sql-types';
import type { Attribute, BusinessObject } from '../structures/registry';
import { notStored } from './computed';


// oslc.orderBy compiled the same way on both databases (README, "Query semantics"):
// - text orders by code point (PostgreSQL with COLLATE "C", SQLite's BINARY), so "B" < "a" < "É" on both;
// - a null is larger than every value: last when ascending, first when descending (PostgreSQL's, Oracle's
//   and DB2's default; SQLite's is the opposite, so the direction is always spelled out);
// - the unique id ends every ordering, so equal values never swap between pages. It is never null, so it
//   orders and pages without null handling, which lets both databases walk its index (a report's keyset pages).

export interface OrderColumn {
    readonly attr: Attribute;
    readonly direction: 'asc' | 'desc';
    readonly nullable: boolean;
}

export const orderColumns = (object: BusinessObject, text: string | undefined, parameter = 'oslc.orderBy'): OrderColumn[] => {

    const columns: OrderColumn[] = [];
    for (const term of text?.trim() ? parseOrderBy(text, parameter) : []) {
        const attr = term.path.length === 1 ? object.attributes.get(term.path[0]!) : undefined;
        if (attr && !attr.persistent) {
            throw new QueryError(parameter, term.position, notStored(object, attr));
        }

        if (!attr || attr.secret) {
            throw new QueryError(parameter, term.position, `${term.path.join('.')} is not an attribute of ${object.name}`);
        }

        columns.push({ attr, direction: term.direction, nullable: attr.name !== object.uniqueColumn });
    }

    columns.push({ attr: object.attributes.get(object.uniqueColumn)!, direction: 'asc', nullable: false });
    return columns;
};

export const applyOrder = (query: Knex.QueryBuilder, kind: DatabaseKind, alias: string, columns: readonly OrderColumn[]): Knex.QueryBuilder => {

    for (const { attr, direction, nullable } of columns) {
        query.orderByRaw(`${orderedColumn(kind, attr)} ${direction}${nullable ? ` nulls ${direction === 'asc' ? 'last' : 'first'}` : ''}`, [`${alias}.${attr.name}`]);
    }

    return query;
};

// Keyset paging: the rows that come after `values` (the ordered columns of the last row served) in the order
// above: for some i, the first i-1 columns equal theirs and column i is past it.
export const applyAfter = (query: Knex.QueryBuilder, kind: DatabaseKind, alias: string, columns: readonly OrderColumn[], values: readonly unknown[]): Knex.QueryBuilder => {

    const equal = (builder: Knex.QueryBuilder, { attr }: OrderColumn, value: unknown) => {

        const col = `${alias}.${attr.name}`;
        return value === null ? builder.whereNull(col) : builder.whereRaw(`${orderedColumn(kind, attr)} = ${valuePlaceholder(kind, attr, value)}`, [col, value as Knex.Value]);
    };

    const past = (builder: Knex.QueryBuilder, { attr, direction, nullable }: OrderColumn, value: unknown) => {

        const col = `${alias}.${attr.name}`;
        if (value === null) {
            // Nulls come last ascending (nothing is past them) and first descending (every value is).
            return direction === 'asc' ? builder.whereRaw('1 = 0') : builder.whereNotNull(col);
        }

        const op = direction === 'asc' ? '>' : '<';
        return builder.where((inner) => {

            inner.whereRaw(`${orderedColumn(kind, attr)} ${op} ${valuePlaceholder(kind, attr, value)}`, [col, value as Knex.Value]);
            if (direction === 'asc' && nullable) {
                inner.orWhereNull(col);
            }
        });
    };

    return query.where((outer) => {

        columns.forEach((column, i) => {

            outer.orWhere((branch) => {

                columns.slice(0, i).forEach((earlier, j) => equal(branch, earlier, values[j]));
                past(branch, column, values[i]);
            });
        });
    });
};
