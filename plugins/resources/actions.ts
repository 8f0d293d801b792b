import type * as Hapi from '@hapi/hapi';

import { maximoError, runAction, type ActionOutcome, type ResourceRequest } from '../../src';


// The answer of an action (CONTRACT §5): the record after it where `properties` asks for it, else the action's
// result as JSON, else (undefined or null: nothing) 204 No Content. A result that is no object (a string, a number)
// is JSON too: hapi would send a string as text/html.
export const actionAnswer = (h: Hapi.ResponseToolkit, outcome: ActionOutcome): Hapi.ResponseObject => {

    if (outcome.record) {
        return h.response(outcome.record).code(200);
    }

    const { result } = outcome;
    if (result === undefined || result === null) {
        return h.response().code(204);
    }

    return typeof result === 'object' ? h.response(result).code(200) : h.response(JSON.stringify(result)).type('application/json').code(200);
};

// The methods an action comes by: GET, POST, or POST with x-method-override: PATCH (both clients send both). A
// PUT, a MERGE or a SYNC would mean a write the action does not make, so they are refused rather than ignored.
const refuseOtherWrites = (request: Hapi.Request, req: ResourceRequest): void => {

    const override = req.write.override;
    const other = request.method === 'put' ? 'PUT' : request.app.mergeOverride ? 'MERGE' : override && !['POST', 'PATCH'].includes(override) ? override : undefined;
    if (other) {
        throw maximoError('badRequest', `The action ${req.read.action} runs on a GET, a POST, or a POST with x-method-override: PATCH; ${other} is not carried out with an action, and nothing was done.`);
    }
};

// `?action=NAME` on a record or a collection, with the request's JSON body (none on a GET) as the payload.
export const actionOf = async (request: Hapi.Request, h: Hapi.ResponseToolkit, req: ResourceRequest, body: unknown): Promise<Hapi.ResponseObject> => {

    refuseOtherWrites(request, req);
    // An action may write: from another site's page it was refused before the handler (src/http/cross-site.ts).

    // hapi reads no body of a GET: one sent would be the payload silently left out.
    const length = request.headers['content-length'];
    if (request.method === 'get' && ((length !== undefined && length !== '0') || request.headers['transfer-encoding'] !== undefined)) {
        throw maximoError('badRequest', `A GET with ?action=${req.read.action} runs the action without a payload, and this one carries a body: send the payload with POST (and x-method-override: PATCH).`);
    }

    return actionAnswer(h, await runAction(req, req.read.action!, body));
};
