import type { Knex } from 'knex';

import { rowstampColumn, storedColumns } from '../../db/migrate';
import { oncePer } from '../../db/remember';
import { batchRows, batchSizes, deleteRows, insertRows, updateRows, type RowUpdate } from '../../db/statements';
import { maximoError } from '../../errors/maximo-error';
import type { BusinessObject } from '../../structures/registry';
import { typeTable, type ColumnFamily } from '../../structures/types';
import type { Row } from '../../read/execute/find';
import type { Db } from '../../db/db';
import type { Pause } from '../../slices';
import type { ChildPlan, Plan } from '../plan/plan';


// A parent's child rows written a few hundred to a statement (issue 34): one statement per row took a round trip
// each on PostgreSQL (a merge of 32,000 tasks took minutes there) and the drivers' and Osprey's work per statement
// on both databases. Only rows whose statement depends on no other row of the write are batched: an insert with
// nothing to number and nothing below it, an update with nothing below it, a delete of a row that has no children.
// Any other plan is applied on its own (apply.ts), after the batched rows before it are written, so that it sees
// them as it did when each was written in turn (a generated number skips the numbers typed in before it). Among
// batched rows the order does not matter: each names another row, and no update changes a key.

const leaf = (children: readonly ChildPlan[]) => children.every((child) => child.plans.length === 0);

const autokeys = oncePer((object: BusinessObject): readonly string[] => object.columns.filter((attr) => attr.autokey).map((attr) => attr.name));

// Whether a generated value of the row is still to be numbered (autokey.ts), which reads the rows written before it.
const numbered = (object: BusinessObject, values: Row, fixed: Row) => autokeys(object).some((name) => ((name in fixed ? fixed[name] : values[name]) ?? null) === null);

export const batchable = (plan: Plan, fixed: Row): boolean => {

    switch (plan.op) {
        case 'insert': return leaf(plan.children) && !numbered(plan.object, plan.values, fixed);
        case 'update': return leaf(plan.children);
        default: return plan.object.children.size === 0;
    }
};

// The type a value is cast to in an update's VALUES list on PostgreSQL (statements.ts updateRows); an assignment
// then stores it in the column's own type (a length, a scale, a narrower integer).
const castTypes: Record<ColumnFamily, string> = { string: 'text', integer: 'bigint', decimal: 'numeric', date: 'date', datetime: 'timestamptz', boolean: 'boolean', text: 'text' };

const castType = (object: BusinessObject, column: string) => (column === rowstampColumn ? 'bigint' : castTypes[typeTable[object.attributes.get(column)!.type].family]);

// The stored columns a row sets, in the table's order: rows that set the same ones share a statement.
const setColumns = (object: BusinessObject, values: Row) => storedColumns(object).filter((column) => values[column] !== undefined);

interface Inserts {
    readonly columns: readonly string[];
    readonly rows: (readonly Knex.Value[])[];
}

interface Updates {
    readonly columns: readonly string[];
    readonly types: readonly string[];
    readonly rows: RowUpdate[];
}

// The rows of one parent's child collection waiting to be written. `fixed`: the parent's join values, which every
// statement also names, so that it reaches no other parent's rows.
export class ChildBatch {

    readonly #db: Db;
    readonly #object: BusinessObject;
    readonly #fixed: Row;
    readonly #inserts = new Map<string, Inserts>();
    readonly #updates = new Map<string, Updates>();
    #deletes: Knex.Value[] = [];

    constructor(db: Db, object: BusinessObject, fixed: Row) {

        this.#db = db;
        this.#object = object;
        this.#fixed = fixed;
    }

    // A new row, its values complete (join values, rowstamp).
    async insert(values: Row): Promise<void> {

        const columns = setColumns(this.#object, values);
        const shape = columns.join(',');
        let group = this.#inserts.get(shape);
        if (!group) {
            group = { columns, rows: [] };
            this.#inserts.set(shape, group);
        }

        group.rows.push(columns.map((column) => values[column] as Knex.Value));
        if (group.rows.length === batchRows(columns.length)) {
            await this.#insert(group, group.rows.length);
        }
    }

    // A stored row's new values (its rowstamp among them), written only while its rowstamp is still `current`'s.
    async update(current: Row, values: Row): Promise<void> {

        const object = this.#object;
        const columns = setColumns(object, values);
        const shape = columns.join(',');
        let group = this.#updates.get(shape);
        if (!group) {
            group = { columns, types: [object.uniqueColumn, rowstampColumn, ...columns].map((column) => castType(object, column)), rows: [] };
            this.#updates.set(shape, group);
        }

        group.rows.push({ id: current[object.uniqueColumn] as Knex.Value, rowstamp: current[rowstampColumn] as Knex.Value, values: columns.map((column) => values[column] as Knex.Value) });
        if (group.rows.length === batchRows(group.types.length)) {
            await this.#update(group, group.rows.length);
        }
    }

    async delete(current: Row): Promise<void> {

        this.#deletes.push(current[this.#object.uniqueColumn] as Knex.Value);
        if (this.#deletes.length === batchRows(1)) {
            await this.#delete(this.#deletes.length);
        }
    }

    // Writes every row waiting, the event loop given a turn between statements when its slice is used up.
    async flush(pause: Pause): Promise<void> {

        for (const group of this.#inserts.values()) {
            for (const size of batchSizes(group.rows.length, group.columns.length)) {
                await pause();
                await this.#insert(group, size);
            }
        }

        for (const group of this.#updates.values()) {
            for (const size of batchSizes(group.rows.length, group.types.length)) {
                await pause();
                await this.#update(group, size);
            }
        }

        for (const size of batchSizes(this.#deletes.length, 1)) {
            await pause();
            await this.#delete(size);
        }

        this.#inserts.clear();
        this.#updates.clear();
    }

    // Each writes the first `size` rows of its group, and forgets them.
    async #insert(group: Inserts, size: number): Promise<void> {

        await insertRows(this.#db, this.#object.table, group.columns, group.rows.splice(0, size));
    }

    async #update(group: Updates, size: number): Promise<void> {

        const object = this.#object;
        const rows = group.rows.splice(0, size);
        const updated = await updateRows(this.#db, object.table, object.uniqueColumn, group.columns, group.types, rows, this.#returning);
        this.#checkParent(updated);
        if (updated.length !== rows.length) {
            // A concurrent writer changed a row since it was read (its rowstamp), as applyUpdate tells.
            throw maximoError('stale', `The ${object.name} record has been updated by another user. Read it again and retry.`);
        }
    }

    async #delete(size: number): Promise<void> {

        this.#checkParent(await deleteRows(this.#db, this.#object.table, this.#object.uniqueColumn, this.#deletes.splice(0, size), this.#returning));
    }

    // The statements find rows by unique id alone (statements.ts updateRows): each row must still be this parent's,
    // as it was when it was read in this transaction (a write through the API never changes a join column). If
    // not, the error rolls back the whole write.
    get #returning(): readonly string[] {

        return [this.#object.uniqueColumn, ...Object.keys(this.#fixed)];
    }

    #checkParent(rows: readonly Row[]): void {

        const fixed = this.#fixed;
        for (const row of rows) {
            if (Object.keys(fixed).some((column) => String(row[column]) !== String(fixed[column]))) {
                throw new Error(`The ${this.#object.name} row ${String(row[this.#object.uniqueColumn])} was moved to another parent while a write of its parent's rows ran.`);
            }
        }
    }
}
