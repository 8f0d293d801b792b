import { ownedBody, ownedChange, ownedRecord } from '../auth/access';
import { storedColumns } from '../db/migrate';
import { selectOne } from '../db/statements';
import { maximoError } from '../errors/maximo-error';
import { keyOf } from '../read/execute/find';
import { memberRow } from '../read/execute/member';
import type { SelectPlan } from '../read/plan/select-plan';
import { memberId } from '../read/serialize/serialize';
import type { ResourceRequest } from '../request';
import type { Row, Structure } from '../structures/registry';
import { renderWritten } from './answer';
import { applyPlan, CreatedMeanwhile } from './apply/apply';
import { applyDocuments } from './apply/documents';
import type { WriteScope } from './context';
import { keyValues } from './plan/input';
import { planInsert, planUpdate, type Plan } from './plan/plan';
import type { WriteKind } from './rights';
import { throwErrors } from './transaction';
import { committed, type CommittedWrite } from './after-commit';
import { changesOf } from './changes';


// Create, update/merge, sync and delete of one record inside a write scope (one transaction), so that a single
// write (records.ts) and each item of a bulk (bulk.ts) write the same way. Rights were checked before the
// transaction opened (rights.ts); what is checked here depends on the data: the owner rule, If-Match, the
// record being there.

/** What one record's write did: the row as stored (the deleted one for a delete; a created one whole only with
 * properties, else its keys, ids, rowstamp, status and children's join values: apply/returning.ts) and, with
 * properties, the record rendered as they select it. */
export interface Written {
    readonly row: Row;
    readonly record?: Row;
    /** A sync (or a bulk AddChange) created the record. */
    readonly isNew: boolean;
}

// If-Match carries the ETag a client read; a different current rowstamp means someone wrote since.
const checkIfMatch = (req: ResourceRequest, structure: Structure, current: Row) => {

    const expected = req.write.ifMatch?.replace(/^W\//, '').replace(/"/g, '').trim();
    if (expected && expected !== '*' && expected !== String(current.rowstamp)) {
        throw maximoError('preconditionFailed', `The ${structure.root.name} record has changed since ETag ${expected}. Read it again and retry.`);
    }
};

// Tells the after-commit subscribers of the scope's transaction about a written row.
// `plan`: what the write planned, which says what it changed (changes.ts).
export const noteWritten = (scope: WriteScope, kind: WriteKind, operation: 'create' | 'update' | 'delete', row: Row, plan?: Plan): void => {

    const root = scope.structure.root;
    scope.written.push(committed<CommittedWrite>(scope.structure, { kind, operation, id: memberId(root, row), key: keyOf(root, row), ...plan ? changesOf(plan) : {} }));
};

// Applies a checked plan and renders the written record with the requested properties, in the transaction.
const finish = async (req: ResourceRequest, scope: WriteScope, kind: WriteKind, plan: Plan, select: SelectPlan | undefined): Promise<Written> => {

    throwErrors(scope);
    const applied = await applyPlan(scope, plan, {}, select !== undefined);
    const operation = plan.op === 'insert' ? 'create' : plan.op;
    // A delete answers no row: the one it deleted, as it was, names it.
    const row = plan.op === 'delete' ? plan.current : applied!;
    // The record's inline documents, on its row as written (a new record's unique id), before its answer reads them.
    if (plan.op !== 'delete' && plan.documents?.length) {
        await applyDocuments(scope, plan.object, row, plan.documents);
    }

    noteWritten(scope, kind, operation, row, plan);
    const isNew = operation === 'create';
    return !applied || !select ? { row, isNew } : { row, record: await renderWritten(req, scope.db, select, row), isNew };
};

export const createIn = async (req: ResourceRequest, scope: WriteScope, body: Row, select: SelectPlan | undefined, kind: WriteKind = 'create'): Promise<Written> => {

    const { structure } = scope;
    const plan = await planInsert(scope, structure.root, ownedBody(req.user, structure, body));
    return await finish(req, scope, kind, kind === 'sync' ? { ...plan, ifAbsent: true } : plan, select);
};

// An update (or a merge) of the record with this id; `_action: "Delete"` in the body deletes it. `locked`: the
// record's row as this user may see it, already read and locked in this transaction with nothing written since
// (an action's record: src/actions/engine-writes.ts), so it is not read a second time.
export const updateIn = async (req: ResourceRequest, scope: WriteScope, id: string, body: Row, merge: boolean, select: SelectPlan | undefined, locked?: Row): Promise<Written> => {

    const { structure } = scope;
    // A single-statement write locks nothing: its update names the rowstamp read here (src/db/single-statement.ts).
    const current = locked ?? await memberRow(scope.db, req.user, structure, id, { lock: scope.db.autocommit !== true });
    checkIfMatch(req, structure, current);
    ownedChange(req.user, structure, body);
    return await finish(req, scope, merge ? 'merge' : 'update', await planUpdate(scope, structure.root, current, body, merge), select);
};

export const deleteIn = async (req: ResourceRequest, scope: WriteScope, id: string): Promise<Written> => {

    const { structure } = scope;
    const current = await memberRow(scope.db, req.user, structure, id, { lock: true });
    checkIfMatch(req, structure, current);
    return await finish(req, scope, 'delete', { op: 'delete', object: structure.root, current }, undefined);
};

// SYNC: update the record the body's keys name, or create it when there is none.
export const syncIn = async (req: ResourceRequest, scope: WriteScope, body: Row, merge: boolean, select: SelectPlan | undefined): Promise<Written> => {

    const root = scope.structure.root;
    const keys = keyValues(root, body);
    const read = async () => (keys ? await selectOne(scope.db, root.table, keys, { columns: storedColumns(root), lock: scope.db.kind === 'postgresql' }) : undefined);
    let current = await read();
    if (!current) {
        try {
            return await createIn(req, scope, body, select, 'sync');
        }
        catch (error) {
            if (!(error instanceof CreatedMeanwhile)) {
                throw error;
            }
        }

        // Another write created the record since it was read (PostgreSQL: CreatedMeanwhile): read again, it is
        // committed now, and updated below. A key taken by a record that is gone again is refused as a create's.
        current = await read();
        if (!current) {
            throw maximoError('duplicateRecord', `A ${root.name} with these key values already exists.`);
        }
    }

    // access.owner: another user's record is not theirs to change; their own is not theirs to give away.
    ownedRecord(req.user, scope.structure, current);
    ownedChange(req.user, scope.structure, body);
    return await finish(req, scope, 'sync', await planUpdate(scope, root, current, body, merge), select);
};
