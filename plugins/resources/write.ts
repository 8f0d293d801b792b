import type * as Hapi from '@hapi/hapi';

import { bulkAction, bulkWrite, createRecord, errorAnswer, maximoError, removeRecord, syncRecord, updateRecord, type BulkActionResult, type BulkResult, type Row, type WriteOutcome } from '../../src';
import { actionOf } from './actions';
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

// A bulk action's item: `_responsemeta` with its status, and `_responsedata` with the record (properties), else the
// action's result, else nothing (204); an error as a bulk write's.
const actionItemAnswer = (request: Hapi.Request, result: BulkActionResult): Row => {

    if (!result.ok) {
        return itemAnswer(request, result);
    }

    const data = result.outcome.record ?? result.outcome.result;
    const meta: Row = { status: data === undefined ? '204' : '200', ...(result.bulkid !== undefined ? { _bulkid: result.bulkid } : {}) };
    return data === undefined ? { _responsemeta: meta } : { _responsemeta: meta, _responsedata: data };
};

// POST {home}/os/{os}: create, or SYNC or BULK with x-method-override. A bulk answers 200 whatever its items did.
export const postCollection: Hapi.Lifecycle.Method = async (request, h) => {

    const req = resourceRequest(request, false);
    const override = req.write.override;
    if (req.read.action !== undefined && override !== 'BULK') {
        return await actionOf(request, h, req, req.write.body);
    }

    if (override === 'BULK' && req.read.action !== undefined) {
        return (await bulkAction(req)).map((result) => actionItemAnswer(request, result));
    }

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
// With ?action= it runs the action, the body its payload: an action is never run as a plain update.
export const patchMember: Hapi.Lifecycle.Method = async (request, h) => {

    const req = resourceRequest(request, false);
    return req.read.action !== undefined ? await actionOf(request, h, req, req.write.body) : updated(h, await updateRecord(req));
};

export const deleteMember: Hapi.Lifecycle.Method = async (request, h) => {

    await removeRecord(resourceRequest(request, false));
    return h.response().code(204);
};

// A POST on a member runs ?action=, else needs x-method-override (PATCH, MERGE or DELETE are routed before they
// get here).
export const postMember: Hapi.Lifecycle.Method = async (request, h) => {

    const req = resourceRequest(request, false);
    if (req.read.action !== undefined) {
        return await actionOf(request, h, req, req.write.body);
    }

    throw maximoError('badRequest', 'A POST to a record needs the header x-method-override: PATCH (update), MERGE or DELETE.');
};
