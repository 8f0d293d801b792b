import { parseOrderBy } from '../parse/order';
import { QueryError } from '../parse/query-error';
import type { Attribute, BusinessObject } from '../../structures/registry';
import { notStored } from '../../structures/computed';
import { declaredAttribute, namedAttribute } from './attribute-names';


// oslc.orderBy planned: names resolved to columns here, compiled to SQL in ../compile/compile-order.ts, the same way on both databases (README, "Query semantics"):
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
        const attr = term.path.length === 1 ? namedAttribute(object, term.path[0]!, { parameter, position: term.position }) : undefined;
        if (attr && !attr.persistent) {
            throw new QueryError(parameter, term.position, notStored(object, attr));
        }

        if (!attr) {
            throw new QueryError(parameter, term.position, `${term.path.join('.')} is not an attribute of ${object.name}`);
        }

        columns.push({ attr, direction: term.direction, nullable: attr.name !== object.uniqueColumn });
    }

    columns.push({ attr: declaredAttribute(object, object.uniqueColumn)!, direction: 'asc', nullable: false });
    return columns;
};
