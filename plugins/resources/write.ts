import type * as Hapi from '@hapi/hapi';

import { requireRight } from '../../src/auth/access';
import { maximoError } from '../../src/errors/maximo-error';
import { header } from '../../src/http/headers';
import { structureOf } from '../../src/http/structure';
import { hooksOf } from '../../src/structures/hooks';
import { runWrite } from '../../src/write/transaction';
import { bulk } from './bulk';
import { beforeChange, createIn, deleteIn, syncIn, updateIn } from './operations';
import { bodyOf, created, isMerge, settingsOf, updated, writeSelect } from './request';
import { userOf } from '../../src/http/caller';


// The routes' handlers of single-record writes (CONTRACT §4), each one transaction.

// POST {home}/os/{os}: create, or SYNC or BULK with x-method-override.
export const postCollection: Hapi.Lifecycle.Method = async (request, h) => {

    const structure = structureOf(request);
    const override = (header(request, 'x-method-override') ?? '').toUpperCase();
    if (override === 'BULK') {
        return await bulk(request, structure);
    }

    if (override === 'SYNC') {
        beforeChange(structure);
        const select = writeSelect(request, structure.root);
        const body = bodyOf(request);
        const outcome = await runWrite(settingsOf(request, structure), (scope) => syncIn(request, scope, body, isMerge(request), select));
        return outcome.isNew ? created(request, h, structure, outcome) : updated(h, outcome);
    }

    if (override && override !== 'POST') {
        throw maximoError('badRequest', `x-method-override ${override} is not supported on a collection; send none to create, or SYNC or BULK.`);
    }

    // A structure whose object makes its records itself (an API key): its create hook, not the generic create.
    const create = hooksOf(structure.root).create;
    if (create) {
        return await create(request, h, structure);
    }

    const select = writeSelect(request, structure.root);
    const body = bodyOf(request);
    return created(request, h, structure, await runWrite(settingsOf(request, structure), (scope) => createIn(request, scope, body, select)));
};

// PATCH/PUT {home}/os/{os}/{id} (or POST with x-method-override: PATCH): update, or merge with patchtype MERGE.
export const patchMember: Hapi.Lifecycle.Method = async (request, h) => {

    const structure = structureOf(request);
    requireRight(userOf(request), structure, 'update');
    beforeChange(structure);
    const select = writeSelect(request, structure.root);
    const body = bodyOf(request);
    const id = String(request.params.id);
    return updated(h, await runWrite(settingsOf(request, structure), (scope) => updateIn(request, scope, id, body, isMerge(request), select)));
};

export const deleteMember: Hapi.Lifecycle.Method = async (request, h) => {

    const structure = structureOf(request);
    requireRight(userOf(request), structure, 'delete');
    const id = String(request.params.id);
    await runWrite(settingsOf(request, structure), (scope) => deleteIn(request, scope, id));
    return h.response().code(204);
};

// A POST on a member needs x-method-override (PATCH, MERGE or DELETE are routed before they get here).
export const postMember: Hapi.Lifecycle.Method = () => {

    throw maximoError('badRequest', 'A POST to a record needs the header x-method-override: PATCH (update), MERGE or DELETE.');
};
