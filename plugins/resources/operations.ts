import type * as Hapi from '@hapi/hapi';

import { requireRight } from '../../src/auth/access';
import { storedColumns } from '../../src/db/migrate';
import { selectOne } from '../../src/db/statements';
import { maximoError } from '../../src/errors/maximo-error';
import { header } from '../../src/http/headers';
import { applyPlan } from '../../src/write/apply/apply';
import { hooksOf } from '../../src/structures/hooks';
import type { WriteScope } from '../../src/write/context';
import type { Row } from '../../src/read/execute/find';
import { keyValues } from '../../src/write/plan/input';
import { planInsert, planUpdate, type Plan } from '../../src/write/plan/plan';
import type { SelectPlan } from '../../src/read/plan/select-plan';
import { memberId, serializeRows } from '../../src/read/serialize/serialize';
import { throwErrors } from '../../src/write/transaction';
import type { Structure } from '../../src/structures/registry';
import { memberRow } from './member-row';
import { collectionHref, ownedBody, serializeOptions, type Outcome } from './request';
import { userOf } from '../../src/http/caller';


// Create, update/merge, sync and delete of one record inside a write scope (one transaction), so that a single
// request (write.ts) and each item of a bulk (bulk.ts) write the same way.

// If-Match carries the ETag a client read; a different current rowstamp means someone wrote since.
const checkIfMatch = (request: Hapi.Request, structure: Structure, current: Row) => {

    const expected = header(request, 'if-match')?.replace(/^W\//, '').replace(/"/g, '').trim();
    if (expected && expected !== '*' && expected !== String(current.rowstamp)) {
        throw maximoError('preconditionFailed', `The ${structure.root.name} record has changed since ETag ${expected}. Read it again and retry.`);
    }
};

// Applies a checked plan and renders the written record with the requested properties, in the transaction.
const finish = async (request: Hapi.Request, scope: WriteScope, plan: Plan, select: SelectPlan | undefined): Promise<Outcome> => {

    throwErrors(scope);
    if (plan.op === 'delete') {
        requireRight(userOf(request), scope.structure, 'delete');
    }

    const row = await applyPlan(scope, plan);
    const root = scope.structure.root;
    if (!row || !select) {
        return { row };
    }

    const [record] = await serializeRows(scope.db, select, [row], [`${collectionHref(request, scope.structure)}/${memberId(root, row)}`], serializeOptions(request));
    return { row, record };
};

export const createIn = async (request: Hapi.Request, scope: WriteScope, body: Row, select: SelectPlan | undefined): Promise<Outcome> => {

    const { structure } = scope;
    requireRight(userOf(request), structure, 'insert');
    return await finish(request, scope, await planInsert(scope, structure.root, ownedBody(request, structure, body)), select);
};

// An update (or a merge) of the record with this id; `_action: "Delete"` in the body deletes it.
export const updateIn = async (request: Hapi.Request, scope: WriteScope, id: string, body: Row, merge: boolean, select: SelectPlan | undefined): Promise<Outcome> => {

    const { structure } = scope;
    requireRight(userOf(request), structure, 'update');
    const current = await memberRow(request, structure, { id, lock: true, db: scope.db });
    checkIfMatch(request, structure, current);
    return await finish(request, scope, await planUpdate(scope, structure.root, current, body, merge), select);
};

export const deleteIn = async (request: Hapi.Request, scope: WriteScope, id: string): Promise<void> => {

    const { structure } = scope;
    requireRight(userOf(request), structure, 'delete');
    const current = await memberRow(request, structure, { id, lock: true, db: scope.db });
    checkIfMatch(request, structure, current);
    await finish(request, scope, { op: 'delete', object: structure.root, current }, undefined);
};

// SYNC: update the record the body's keys name, or create it when there is none.
export const syncIn = async (request: Hapi.Request, scope: WriteScope, body: Row, merge: boolean, select: SelectPlan | undefined): Promise<Outcome & { isNew: boolean }> => {

    const { structure } = scope;
    const root = structure.root;
    const keys = keyValues(root, body);
    const current = keys ? await selectOne(scope.db, root.table, keys, { columns: storedColumns(root), lock: scope.db.kind === 'postgresql' }) : undefined;
    if (!current) {
        return { ...await createIn(request, scope, body, select), isNew: true };
    }

    requireRight(userOf(request), structure, 'update');
    return { ...await finish(request, scope, await planUpdate(scope, root, current, body, merge), select), isNew: false };
};

// The beforeChange hook of the structure's object may refuse an update, merge, sync or bulk (an API key is never edited).
export const beforeChange = (structure: Structure): void => {

    hooksOf(structure.root).beforeChange?.(structure);
};
