import { rowstampColumn, storedColumns } from '../../db/migrate';
import type { BusinessObject } from '../../structures/registry';
import type { SelectPlan } from './select-plan';


// The stored columns a read names for its rows to render as a plan selects them, so that a page or a linked
// read does not turn columns the answer never shows into JavaScript values (issue 19). better-sqlite3 makes a
// value of every column of every row: the page of 100 work orders of the benchmark's children scenario took
// about 1,000 µs with all 33 columns and 230 µs with the 6 its select of two attributes, an asset and tasks
// needs (timed inside the server); node-pg parses each column's text likewise.
//
// Undefined means every stored column: a row that a hook reads (a computed attribute's value, a secret's
// reveal, the actions a record allows) may need any of its columns, and a plan of every attribute needs them
// all anyway.
export const renderColumns = (object: BusinessObject, plan: SelectPlan | undefined, more: readonly string[] = []): readonly string[] | undefined => {

    if (plan && (plan.all || plan.allowedActions || plan.attributes.some(({ attr, computed }) => computed || attr.secret))) {
        return undefined;
    }

    // What every rendered row carries: its id (href; a child's identity is its join columns and primary key), its
    // rowstamp, and the unique id `_weblink` is made of.
    const wanted = new Set<string>([...object.identity, object.uniqueColumn, rowstampColumn, ...more]);
    for (const { attr } of plan?.attributes ?? []) {
        wanted.add(attr.name);
    }

    // The row's side of each link and aggregate: its linked rows are matched to it by these values.
    for (const { link } of [...plan?.links ?? [], ...plan?.aggregates ?? []]) {
        Object.keys(link.join).forEach((attr) => wanted.add(attr));
    }

    // Named in the order of the table's columns, so that one set of columns is one statement's text.
    return storedColumns(object).filter((column) => wanted.has(column));
};
