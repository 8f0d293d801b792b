import { ownerRule } from '../../auth/access';
import { rowstampColumn, storedColumns } from '../../db/migrate';
import { insertIfAbsent, insertReturning, insertReturningWith, selectOne, updateReturning, updateReturningWith } from '../../db/statements';
import { maximoError } from '../../errors/maximo-error';
import type { BusinessObject } from '../../structures/registry';
import { toDb } from '../../structures/types';
import { assignAutokeys } from '../plan/autokey';
import type { WriteScope } from '../context';
import { deleteRecord } from './delete';
import { keyColumns } from './returning';
import { deleteTree } from './delete-tree';
import { batchable, ChildBatch } from './batch';
import { joinValues, keyOf, type Row } from '../../read/execute/find';
import type { ChildPlan, Plan } from '../plan/plan';
import { slicer } from '../../slices';
import { addStatusHistory, statusHistoryRow, statusMemo } from '../plan/status';
import { heldCondition, refuseHeld, refuseWhileHeld } from '../../workflows/held';


// Executes a checked plan (plan.ts) inside the write's transaction.

// Rowstamps grow with every write of a row and stay above any earlier value, even across a delete and
// re-create, so an old ETag never matches a newer record.
const nextRowstamp = (current?: Row) => Math.max(Number(current?.[rowstampColumn] ?? 0) + 1, Date.now() * 1000);

// Audit attributes a structure may declare; the server keeps them.
const stamp = (scope: WriteScope, object: BusinessObject, values: Row, current?: Row) => {

    values[rowstampColumn] = nextRowstamp(current);
    const changedate = object.attributes.get('changedate');
    if (changedate?.persistent && changedate.readonly) {
        values.changedate = toDb(changedate, scope.ctx.now);
    }

    const changeby = object.attributes.get('changeby');
    if (changeby?.persistent && changeby.readonly) {
        values.changeby = scope.ctx.userid;
    }
};

const isRoot = (scope: WriteScope, object: BusinessObject) => object === scope.structure.root;

// A sync's insert found its key taken: on PostgreSQL, where transactions run side by side, another write created
// the record after the sync found none (the insert waited for it to commit). Nothing of the insert was written,
// and the transaction goes on: the sync updates that record instead (operations.ts syncIn), as Maximo does.
export class CreatedMeanwhile extends Error { }

// Whether a plugin's handler takes a non-persistent attribute the planned row carries (src/write/attribute-writes.ts).
const handled = (scope: WriteScope, plan: Plan): boolean => {

    const runner = scope.ctx.attributeWrites;
    return runner !== undefined && plan.op !== 'delete' && Object.keys(plan.transient).some((attribute) => runner.claims(plan.object, attribute));
};

const handledWithin = (scope: WriteScope, plan: Plan): boolean => handled(scope, plan) || (plan.op !== 'delete' && plan.children.some((child) => child.plans.some((each) => handledWithin(scope, each))));

// The handlers of the row's claimed attributes, once the row and its children are applied: what they write is
// part of the write, and what they throw rolls it back.
const runHandlers = async (scope: WriteScope, plan: Extract<Plan, { op: 'insert' | 'update' }>, row: Row, record: Row) => {

    if (handled(scope, plan)) {
        await scope.ctx.attributeWrites!.run(scope, { object: plan.object, operation: plan.op === 'insert' ? 'create' : 'update', row, record, transient: plan.transient });
    }
};

// `record`: the row of the record (the root) the children are written under, which the handlers are given.
const applyChildren = async (scope: WriteScope, children: readonly ChildPlan[], parent: Row, whole: boolean, record: Row) => {

    for (const { child, plans } of children) {
        // Thousands of rows are written in slices of the event loop's time, as a bulk's items are (src/slices.ts):
        // SQLite's statements run on the event loop. Readers see none of them before the write commits (they
        // read the last committed state: src/db/knex.ts createReaderKnex). Most are written a few hundred to a
        // statement (batch.ts).
        const fixed = joinValues(child, parent);
        const batch = new ChildBatch(scope.db, child.object, fixed);
        const pause = slicer();
        for (const plan of plans) {
            await pause();
            // A row a handler is given is written on its own: the handler reads it, and it answers its row.
            if (!batchable(plan, fixed) || handled(scope, plan)) {
                await batch.flush(pause);
                await applyRow(scope, plan, fixed, whole, record);
            }
            else if (plan.op === 'insert') {
                const values: Row = { ...plan.values, ...fixed };
                stamp(scope, plan.object, values);
                await batch.insert(values);
            }
            else if (plan.op === 'update') {
                const values: Row = { ...plan.values };
                stamp(scope, plan.object, values, plan.current);
                await batch.update(plan.current, values);
            }
            else {
                await batch.delete(plan.current);
            }
        }

        await batch.flush(pause);
    }
};

// A new record's status history row, where it is added by the record's insert itself: on PostgreSQL, in a
// transaction, when the row's values name its status and every column the history row joins by (a column the
// database fills, such as a generated id, is not known before the insert). A create of a numbered record holds
// its counter's row lock until it commits (autokey.ts), so a round trip less is a shorter wait for the next one.
const historyWithInsert = (scope: WriteScope, object: BusinessObject, values: Row, memo: unknown) => {

    const { structure, db } = scope;
    if (!isRoot(scope, object) || db.kind !== 'postgresql' || db.autocommit === true || !structure.def.statuses || values[structure.def.statusAttribute] === undefined) {
        return undefined;
    }

    const child = structure.def.statusHistory ? object.children.get(structure.def.statusHistory) : undefined;
    return child && Object.keys(child.join).every((column) => values[column] !== undefined) ? statusHistoryRow(scope, values, memo) : undefined;
};

// `whole`: the row is answered as a record, all its columns; else only the columns the write itself reads.
const applyInsert = async (scope: WriteScope, plan: Extract<Plan, { op: 'insert' }>, fixed: Row, whole: boolean, record?: Row): Promise<Row> => {

    const { db } = scope;
    const { object } = plan;
    const values: Row = { ...plan.values, ...fixed };
    const newKey = await assignAutokeys(db, object, values);
    if (isRoot(scope, object) && !newKey && !plan.ifAbsent && await selectOne(db, object.table, keyOf(object, values), { columns: [object.uniqueColumn] })) {
        const keys = object.primaryKey.map((key) => `${key.toUpperCase()}=${String(values[key])}`).join(', ');
        throw maximoError('duplicateRecord', `A ${object.name} with ${keys} already exists.`);
    }

    stamp(scope, object, values);
    // The row as stored (defaults, generated id, the database's own types): whole, the answer renders it as it
    // is; else the columns the rest of the write reads (returning.ts).
    const columns = whole ? storedColumns(object) : keyColumns(scope.structure, object);
    const added = plan.ifAbsent ? undefined : historyWithInsert(scope, object, values, statusMemo(plan.transient));
    const row = plan.ifAbsent ? await insertIfAbsent(db, object.table, values, columns) : added ? await insertReturningWith(db, object.table, values, columns, added) : await insertReturning(db, object.table, values, columns);
    if (!row) {
        throw new CreatedMeanwhile();
    }

    if (!added && isRoot(scope, object) && scope.structure.def.statuses && Object.hasOwn(row, scope.structure.def.statusAttribute)) {
        await addStatusHistory(scope, row, statusMemo(plan.transient));
    }

    await applyChildren(scope, plan.children, row, whole, record ?? row);
    await runHandlers(scope, plan, row, record ?? row);
    return row;
};

// What a workflow waiting on a record refuses of an update (src/workflows/held.ts).
const holdRefuses = 'its status does not change';

const applyUpdate = async (scope: WriteScope, plan: Extract<Plan, { op: 'update' }>, whole: boolean, record?: Row): Promise<Row> => {

    const { object, current } = plan;
    const values: Row = { ...plan.values };
    stamp(scope, object, values, current);
    // The rowstamp read at plan time must still be current: a concurrent writer makes this update miss. It returns
    // the columns it sets, as the database stored them (its types). The record's row is answered: where the update
    // is all that changes it (db/rewrites.ts), the rest of it is the row read under the write's lock; where a
    // trigger may change more, it is read again (a RETURNING shows no change an AFTER trigger makes). A child's
    // row only gives its own children their join values, which no update changes.
    // The record's update is the write's last statement when no status history and no child follows it and no
    // re-read (src/db/single-statement.ts runs such a write as this one statement).
    const key = keyOf(object, current);
    const statusAttribute = scope.structure.def.statusAttribute;
    const history = isRoot(scope, object) && scope.structure.def.statuses !== undefined && Object.hasOwn(plan.values, statusAttribute);
    const exact = scope.db.storesAsWritten(object.table);
    const last = isRoot(scope, object) && exact && !history && plan.children.length === 0 && !plan.documents?.length;
    // Where records are kept to their owners, the record's update also names its owner: a write that read it
    // without a lock (single-statement.ts) changes it only while it is still the writer's.
    const owner = isRoot(scope, object) ? ownerRule(scope.ctx.user, scope.structure) : undefined;
    const where = { ...key, [rowstampColumn]: current[rowstampColumn], ...(owner ? { [owner.attribute]: owner.userid } : {}) };
    // A status change on PostgreSQL, in a transaction, on a table stored as written: the update, its history row and
    // the workflow hold's check are one statement (updateReturningWith), one round trip where they took three.
    // The check reads after the record's lock was taken, as its own statement did; a record found held rolls all of
    // it back. Elsewhere the check is its own read, before the update.
    const together = exact && isRoot(scope, object) && scope.db.kind === 'postgresql' && scope.db.autocommit !== true;
    if (plan.unlessHeld && !together) {
        await refuseWhileHeld(scope.db, scope.ctx.registry, scope.structure, current, holdRefuses);
    }

    const added = together && history ? statusHistoryRow(scope, { ...current, ...values }, statusMemo(plan.transient)) : undefined;
    const held = together && plan.unlessHeld ? heldCondition(scope.ctx.registry, scope.structure, current) : undefined;
    const updated = added || held ? await updateReturningWith(scope.db, object.table, values, where, { insert: added, held }) : await updateReturning(scope.db, object.table, values, where, 'set', { last });
    if (updated.length !== 1) {
        throw maximoError('stale', `The ${object.name} record has been updated by another user. Read it again and retry.`);
    }

    if (held) {
        const { osprey_held: isHeld, ...set } = updated[0]!;
        if (isHeld) {
            await refuseHeld(scope.db, scope.ctx.registry, scope.structure, current, holdRefuses);
        }

        updated[0] = set;
    }

    const row = !isRoot(scope, object) || exact ? { ...current, ...updated[0] } : await selectOne(scope.db, object.table, key, { columns: storedColumns(object) });
    if (!row) {
        throw maximoError('stale', `The ${object.name} record was changed by the database as it was updated (a trigger); read it again.`);
    }

    if (history && !added) {
        await addStatusHistory(scope, row, statusMemo(plan.transient));
    }

    await applyChildren(scope, plan.children, row, whole, record ?? row);
    await runHandlers(scope, plan, row, record ?? row);
    return row;
};

// One row of the plan (and what is below it); `record`: the root's row, for a child's.
const applyRow = async (scope: WriteScope, plan: Plan, fixed: Row, whole: boolean, record?: Row): Promise<Row | undefined> => {

    switch (plan.op) {
        case 'insert': return await applyInsert(scope, plan, fixed, whole, record);
        case 'update': return await applyUpdate(scope, plan, whole, record);
        default: await (isRoot(scope, plan.object) ? deleteRecord(scope, plan.current) : deleteTree(scope, plan.object, plan.current));
    }
};

// `whole`: the written record is answered (properties), rendered from all of its row's columns; else a new
// row returns only what the write reads of it (returning.ts).
// A handler may write the record itself (through the engine, as the meters example does): the row answered is then
// read again, so that its rowstamp (the answer's ETag) and what it renders are the record's as the write leaves it.
export const applyPlan = async (scope: WriteScope, plan: Plan, fixed: Row = {}, whole = true): Promise<Row | undefined> => {

    const reread = handledWithin(scope, plan);
    const row = await applyRow(scope, plan, fixed, whole);
    if (!row || !reread) {
        return row;
    }

    const columns = whole ? storedColumns(plan.object) : keyColumns(scope.structure, plan.object);
    return await selectOne(scope.db, plan.object.table, keyOf(plan.object, row), { columns }) ?? row;
};
