import type { Knex } from 'knex';

import type { DatabaseKind } from '../../db/knex';
import { orderedColumn, valuePlaceholder } from './sql-types';
import type { OrderColumn } from '../plan/ordering';


// The ORDER BY of planned order columns (../plan/ordering.ts says why it is spelled out this way), and the
// keyset condition of a stable page.

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
