import type { Row } from '../../read/execute/find';


// A parent's stored child rows, found by the values of some of their columns (their key, or the id an href
// names), each compared as String() reads it: one Map per list of columns, made when first asked for. Matching
// each row of a body by scanning every stored row made a merge of n rows n² comparisons (issue 34: 32,000 tasks
// took 33 s on SQLite and minutes on PostgreSQL); a lookup is one step whatever n is.
export class RowIndex {

    readonly #rows: readonly Row[];
    readonly #indexes = new Map<string, Map<string, Row>>();

    constructor(rows: readonly Row[]) {

        this.#rows = rows;
    }

    // The first row whose columns hold the values of `where` (none: no row).
    find(where: Row | undefined): Row | undefined {

        if (where === undefined) {
            return undefined;
        }

        const columns = Object.keys(where);
        return this.#index(columns).get(valuesOf(columns, where));
    }

    #index(columns: readonly string[]): Map<string, Row> {

        const name = JSON.stringify(columns);
        let index = this.#indexes.get(name);
        if (!index) {
            index = new Map();
            for (const row of this.#rows) {
                const values = valuesOf(columns, row);
                if (!index.has(values)) {
                    index.set(values, row);
                }
            }

            this.#indexes.set(name, index);
        }

        return index;
    }
}

// One string per list of values, none the same as another's (a key of one column is its own text).
const valuesOf = (columns: readonly string[], row: Row): string => (columns.length === 1 ? String(row[columns[0]!]) : JSON.stringify(columns.map((column) => String(row[column]))));
