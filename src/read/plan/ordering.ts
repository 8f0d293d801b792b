import { parseOrderBy } from '../parse/order';
import { QueryError } from '../parse/query-error';
import type { Attribute, BusinessObject } from '../../structures/registry';
import { computedOf, notStored, type Computed } from '../../structures/computed';
import { declaredAttribute, namedAttribute } from './attribute-names';


// oslc.orderBy planned: names resolved to columns here, compiled to SQL in ../compile/compile-order.ts, the same way on both databases (README, "Query semantics"):
// - text orders by code point (PostgreSQL with COLLATE "C", SQLite's BINARY), so "B" < "a" < "É" on both;
// - a null is larger than every value: last when ascending, first when descending (PostgreSQL's, Oracle's
//   and DB2's default; SQLite's is the opposite, so the direction is always spelled out);
// - the unique id ends every ordering, so equal values never swap between pages. It is never null, so it
//   orders and pages without null handling, which lets both databases walk its index (a report's keyset pages).
// A computed attribute whose plugin gives its SQL (src/structures/computed.ts) orders by that expression; its
// value is read with the page's rows under `key`, so that the next page (a stable cursor, a report's keyset)
// starts after the value the database ordered by, not after the one the plugin's function renders.

export interface OrderColumn {
    readonly attr: Attribute;
    readonly direction: 'asc' | 'desc';
    readonly nullable: boolean;
    /** Where a row carries the value it was ordered by: the column's name, or the computed expression's alias. */
    readonly key: string;
    /** A computed attribute's SQL expression over the table's alias; a stored attribute orders by its column. */
    readonly sql?: NonNullable<Computed['sql']>;
}

// The alias a computed order value is read under: a name no column can have (columns are identifiers).
export const computedKey = (attr: Attribute): string => `order:${attr.name}`;

// An attribute that orders or groups: a stored one, or a computed one with its SQL; any other is refused naming it.
export const orderable = (object: BusinessObject, attr: Attribute, parameter: string, position: number): Computed['sql'] => {

    if (attr.persistent) {
        return undefined;
    }

    const sql = computedOf(object, attr)?.sql;
    if (!sql) {
        throw new QueryError(parameter, position, notStored(object, attr));
    }

    return sql;
};

// One attribute ordered: by its column, or by its computed SQL read under a key of its own.
export const orderColumn = (object: BusinessObject, attr: Attribute, direction: 'asc' | 'desc', parameter: string, position: number): OrderColumn => {

    const sql = orderable(object, attr, parameter, position);
    return { attr, direction, nullable: attr.name !== object.uniqueColumn, ...(sql ? { key: computedKey(attr), sql } : { key: attr.name }) };
};

export const orderColumns = (object: BusinessObject, text: string | undefined, parameter = 'oslc.orderBy'): OrderColumn[] => {

    const columns: OrderColumn[] = [];
    for (const term of text?.trim() ? parseOrderBy(text, parameter) : []) {
        const attr = term.path.length === 1 ? namedAttribute(object, term.path[0]!, { parameter, position: term.position }) : undefined;
        if (!attr) {
            throw new QueryError(parameter, term.position, `${term.path.join('.')} is not an attribute of ${object.name}`);
        }

        // A second term on the same attribute orders nothing the first has not: `+wonum,-wonum` would be the
        // first direction only, unsaid.
        if (columns.some((column) => column.attr === attr)) {
            throw new QueryError(parameter, term.position, `${attr.name} is named twice; order by each attribute once`);
        }

        columns.push(orderColumn(object, attr, term.direction, parameter, term.position));
    }

    columns.push({ attr: declaredAttribute(object, object.uniqueColumn)!, direction: 'asc', nullable: false, key: object.uniqueColumn });
    return columns;
};

// The stored columns an ordering reads from the table (a computed one's value is selected by compile-order.ts).
export const orderedColumnNames = (columns: readonly OrderColumn[]): string[] => columns.filter(({ sql }) => !sql).map(({ attr }) => attr.name);
