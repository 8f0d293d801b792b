import type * as Hapi from '@hapi/hapi';

import { bulkWrite, createRecord, errorAnswer, maximoError, removeRecord, syncRecord, updateRecord, type BulkResult, type Row, type WriteOutcome } from '../../src';
import { resourceRequest } from './request';


// The routes' handlers of writes (CONTRACT §4): each reads its request into the request value once, hands it to
// the write engine (src/write/records.ts, src/write/bulk.ts), and turns the engine's outcome into HTTP.

const created = (h: Hapi.ResponseToolkit, outcome: WriteOutcome) => h.response(outcome.record).code(201).header('Location', outcome.location);

const updated = (h: Hapi.ResponseToolkit, outcome: WriteOutcome) => (outcome.record ? h.response(outcome.record).code(200) : h.response().code(204));

// A bulk item's answer in Maximo's form: `_responsemeta` (status, Location of a created record, the item's
// _bulkid) and `_responsedata` (the record with properties, or the error's Maximo body).
const itemAnswer = (request: Hapi.Request, result: BulkResult): Row => {

    if (!result.ok) {
        const { error: boom, body } = errorAnswer(request, result.error);
        const meta: Row = { status: String(boom.output.statusCode), ...(result.bulkid !== undefined ? { _bulkid: result.bulkid } : {}) };
        return { _responsemeta: meta, _responsedata: body };
    }

    const meta: Row = { status: String(result.status) };
    if (result.status === 201) {
        meta.Location = result.outcome!.location;
    }

    if (result.bulkid !== undefined) {
        meta._bulkid = result.bulkid;
    }

    const record = result.outcome?.record;
    return record ? { _responsemeta: meta, _responsedata: record } : { _responsemeta: meta };
};

// POST {home}/os/{os}: create, or SYNC or BULK with x-method-override. A bulk answers 200 whatever its items did.
export const postCollection: Hapi.Lifecycle.Method = async (request, h) => {

    const req = resourceRequest(request, false);
    const override = req.write.override;
    if (override === 'BULK') {
        return (await bulkWrite(req)).map((result) => itemAnswer(request, result));
    }

    if (override === 'SYNC') {
        const outcome = await syncRecord(req);
        return outcome.isNew ? created(h, outcome) : updated(h, outcome);
    }

    if (override && override !== 'POST') {
        throw maximoError('badRequest', `x-method-override ${override} is not supported on a collection; send none to create, or SYNC or BULK.`);
    }

    return created(h, await createRecord(req));
};

// PATCH/PUT {home}/os/{os}/{id} (or POST with x-method-override: PATCH): update, or merge with patchtype MERGE.
export const patchMember: Hapi.Lifecycle.Method = async (request, h) => updated(h, await updateRecord(resourceRequest(request, false)));

export const deleteMember: Hapi.Lifecycle.Method = async (request, h) => {

    await removeRecord(resourceRequest(request, false));
    return h.response().code(204);
};

// A POST on a member needs x-method-override (PATCH, MERGE or DELETE are routed before they get here).
export const postMember: Hapi.Lifecycle.Method = () => {

    throw maximoError('badRequest', 'A POST to a record needs the header x-method-override: PATCH (update), MERGE or DELETE.');
};
