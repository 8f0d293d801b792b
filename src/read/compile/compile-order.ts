import type { Knex } from 'knex';

import type { DatabaseKind } from '../../db/knex';
import { computedExpression, isText, valuePlaceholder } from './sql-types';
import type { OrderColumn } from '../plan/ordering';


// The ORDER BY of planned order columns (../plan/ordering.ts says why it is spelled out this way), and the
// keyset condition of a stable page.

// What a column orders by: a stored column (bound as an identifier) or a computed attribute's expression, text
// by code point on PostgreSQL (COLLATE "C", as SQLite's BINARY).
const ordered = (kind: DatabaseKind, alias: string, { attr, sql }: OrderColumn): { text: string; bindings: string[] } => {

    const collate = kind === 'postgresql' && isText(attr) ? ' collate "C"' : '';
    return sql ? { text: `${computedExpression(kind, attr, sql, alias)}${collate}`, bindings: [] } : { text: `??${collate}`, bindings: [`${alias}.${attr.name}`] };
};

export const applyOrder = (query: Knex.QueryBuilder, kind: DatabaseKind, alias: string, columns: readonly OrderColumn[]): Knex.QueryBuilder => {

    for (const column of columns) {
        const { text, bindings } = ordered(kind, alias, column);
        query.orderByRaw(`${text} ${column.direction}${column.nullable ? ` nulls ${column.direction === 'asc' ? 'last' : 'first'}` : ''}`, bindings);
    }

    return query;
};

// The computed values an ordering reads with each row (under their keys), for the next page's cursor.
export const selectOrderValues = (query: Knex.QueryBuilder, kind: DatabaseKind, alias: string, columns: readonly OrderColumn[]): Knex.QueryBuilder => {

    for (const { attr, sql, key } of columns) {
        if (sql) {
            query.select(query.client.raw(`${computedExpression(kind, attr, sql, alias)} as ??`, [key]));
        }
    }

    return query;
};

// Keyset paging: the rows that come after `values` (the ordered columns of the last row served) in the order
// above: for some i, the first i-1 columns equal theirs and column i is past it.
export const applyAfter = (query: Knex.QueryBuilder, kind: DatabaseKind, alias: string, columns: readonly OrderColumn[], values: readonly unknown[]): Knex.QueryBuilder => {

    // The value itself, not COLLATE "C": is null reads the same under any collation.
    const bare = (column: OrderColumn) => (column.sql ? { text: computedExpression(kind, column.attr, column.sql, alias), bindings: [] } : { text: '??', bindings: [`${alias}.${column.attr.name}`] });

    const equal = (builder: Knex.QueryBuilder, column: OrderColumn, value: unknown) => {

        const { text, bindings } = ordered(kind, alias, column);
        if (value === null) {
            const isNull = bare(column);
            return builder.whereRaw(`${isNull.text} is null`, isNull.bindings);
        }

        return builder.whereRaw(`${text} = ${valuePlaceholder(kind, column.attr, value)}`, [...bindings, value as Knex.Value]);
    };

    const past = (builder: Knex.QueryBuilder, column: OrderColumn, value: unknown) => {

        const { direction, nullable, attr } = column;
        const isNull = bare(column);
        if (value === null) {
            // Nulls come last ascending (nothing is past them) and first descending (every value is).
            return direction === 'asc' ? builder.whereRaw('1 = 0') : builder.whereRaw(`${isNull.text} is not null`, isNull.bindings);
        }

        const op = direction === 'asc' ? '>' : '<';
        const { text, bindings } = ordered(kind, alias, column);
        return builder.where((inner) => {

            inner.whereRaw(`${text} ${op} ${valuePlaceholder(kind, attr, value)}`, [...bindings, value as Knex.Value]);
            if (direction === 'asc' && nullable) {
                inner.orWhereRaw(`${isNull.text} is null`, isNull.bindings);
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
