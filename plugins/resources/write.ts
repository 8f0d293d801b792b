import type * as Hapi from '@hapi/hapi';

import { apiKeyObject } from '../../src/auth/api-keys';
import { requireRight } from '../../src/auth/access';
import { storedColumns } from '../../src/db/migrate';
import { selectOne } from '../../src/db/statements';
import { maximoError } from '../../src/errors/maximo-error';
import { header } from '../../src/http/headers';
import { structureOf } from '../../src/http/structure';
import { applyPlan } from '../../src/records/apply';
import type { WriteScope } from '../../src/records/context';
import { deleteRecord } from '../../src/records/delete';
import type { Row } from '../../src/records/find';
import { keyValues } from '../../src/records/input';
import { planInsert, planUpdate, type Plan } from '../../src/records/plan';
import type { SelectPlan } from '../../src/records/select-plan';
import { memberId, serializeRows } from '../../src/records/serialize';
import { runWrite, throwErrors } from '../../src/records/write';
import type { Structure } from '../../src/structures/registry';
import { createKey } from './api-keys';
import { memberRow } from './read';
import { bodyOf, collectionHref, created, isMerge, ownedBody, serializeOptions, settingsOf, updated, writeSelect, type Outcome } from './request';


// Create, update/merge, sync and delete of one record (CONTRACT §4). Each runs in one transaction.

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
        requireRight(request, scope.structure, 'delete');
    }

    const row = await applyPlan(scope, plan);
    const root = scope.structure.root;
    if (!row || !select) {
        return { row };
    }

    const [record] = await serializeRows(scope.db, select, [row], [`${collectionHref(request, scope.structure)}/${memberId(root, row)}`], serializeOptions(request));
    return { row, record };
};

const create = async (request: Hapi.Request, h: Hapi.ResponseToolkit, structure: Structure) => {

    requireRight(request, structure, 'insert');
    const select = writeSelect(request, structure.root);
    const body = ownedBody(request, structure, bodyOf(request));
    const outcome = await runWrite(settingsOf(request, structure), async (scope) => {

        return await finish(request, scope, await planInsert(scope, structure.root, body), select);
    });

    return created(request, h, structure, outcome);
};

// SYNC: update the record the body's keys name, or create it when there is none.
const sync = async (request: Hapi.Request, h: Hapi.ResponseToolkit, structure: Structure) => {

    const root = structure.root;
    const select = writeSelect(request, root);
    const body = bodyOf(request);
    const keys = keyValues(root, body);
    let isNew = false;
    const outcome = await runWrite(settingsOf(request, structure), async (scope) => {

        const current = keys ? await selectOne(scope.db, root.table, keys, { columns: storedColumns(root), lock: scope.db.kind === 'postgresql' }) : undefined;
        isNew = !current;
        requireRight(request, structure, current ? 'update' : 'insert');
        const plan = current ? await planUpdate(scope, root, current, body, isMerge(request)) : await planInsert(scope, root, body);
        return await finish(request, scope, plan, select);
    });

    return isNew ? created(request, h, structure, outcome) : updated(h, outcome);
};

// A key is made, used and revoked, never edited: its value and expiry are what was handed out.
const refuseKeyChange = (structure: Structure) => {

    if (structure.root.name === apiKeyObject) {
        throw maximoError('badRequest', `${structure.name} records cannot be changed: create a new key and revoke the old one.`);
    }
};

// POST {home}/os/{os}: create, or SYNC with x-method-override.
export const postCollection: Hapi.Lifecycle.Method = async (request, h) => {

    const structure = structureOf(request);
    const override = (header(request, 'x-method-override') ?? '').toUpperCase();
    if (override === 'SYNC') {
        refuseKeyChange(structure);
        return await sync(request, h, structure);
    }

    if (override && override !== 'POST') {
        throw maximoError('badRequest', `x-method-override ${override} is not supported on a collection; send none to create, or SYNC.`);
    }

    return structure.root.name === apiKeyObject ? await createKey(request, h, structure) : await create(request, h, structure);
};

// PATCH/PUT {home}/os/{os}/{id} (or POST with x-method-override: PATCH): update, or merge with patchtype MERGE.
export const patchMember: Hapi.Lifecycle.Method = async (request, h) => {

    const structure = structureOf(request);
    requireRight(request, structure, 'update');
    refuseKeyChange(structure);
    const select = writeSelect(request, structure.root);
    const body = bodyOf(request);
    const outcome = await runWrite(settingsOf(request, structure), async (scope) => {

        const current = await memberRow(request, structure, { lock: true, db: scope.db });
        checkIfMatch(request, structure, current);
        return await finish(request, scope, await planUpdate(scope, structure.root, current, body, isMerge(request)), select);
    });

    return updated(h, outcome);
};

export const deleteMember: Hapi.Lifecycle.Method = async (request, h) => {

    const structure = structureOf(request);
    requireRight(request, structure, 'delete');
    await runWrite(settingsOf(request, structure), async (scope) => {

        const current = await memberRow(request, structure, { lock: true, db: scope.db });
        checkIfMatch(request, structure, current);
        await deleteRecord(scope, current);
    });

    return h.response().code(204);
};

// A POST on a member needs x-method-override (PATCH, MERGE or DELETE are routed before they get here).
export const postMember: Hapi.Lifecycle.Method = () => {

    throw maximoError('badRequest', 'A POST to a record needs the header x-method-override: PATCH (update), MERGE or DELETE.');
};
