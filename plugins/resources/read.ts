import type * as Hapi from '@hapi/hapi';

import { pdfContentSecurityPolicy, readChildren, readCollection, readLookup, readMember } from '../../src';
import { actionOf } from './actions';
import { flag, resourceRequest } from './request';


// The read routes' handlers: the request becomes the request value (./request.ts) and the read pipeline
// (src/read) answers it; what is left here is HTTP's — the ETag of a record, a report's content type.

export const getCollection: Hapi.Lifecycle.Method = async (request, h) => {

    // A collection action other than the built-in reports runs with no payload.
    const action = request.query.action;
    if (typeof action === 'string' && !['listreports', 'genreport'].includes(action.toLowerCase())) {
        return await actionOf(request, h, resourceRequest(request, false), undefined);
    }

    // count=1 answers {"totalCount": n}, with no page links; its URL is read only to check a stable cursor beside it.
    const answer = await readCollection(resourceRequest(request, !flag(request.query.count) || request.query.stableId !== undefined || request.query.stableid !== undefined));
    if ('report' in answer) {
        const { stream, type, disposition } = answer.report;
        // A PDF is shown by the browser's own viewer, which the policy of every other answer may stop.
        const answerOf = h.response(stream).type(type).header('content-disposition', disposition);
        return type.startsWith('application/pdf') ? answerOf.header('content-security-policy', pdfContentSecurityPolicy) : answerOf;
    }

    return answer.json as Hapi.Lifecycle.ReturnValue;
};

export const getMember: Hapi.Lifecycle.Method = async (request, h) => {

    if (request.query.action !== undefined) {
        return await actionOf(request, h, resourceRequest(request, false), undefined);
    }

    const { record, rowstamp } = await readMember(resourceRequest(request, false));
    return h.response(record).etag(rowstamp);
};

export const getChildren: Hapi.Lifecycle.Method = async (request) => await readChildren(resourceRequest(request));

export const getLookup: Hapi.Lifecycle.Method = async (request) => await readLookup(resourceRequest(request));
