import type * as Hapi from '@hapi/hapi';

import { header, homeRoutes } from '../../src';
import { getChildren, getCollection, getLookup, getMember } from './read';
import { jsonPayload } from './request';
import { deleteMember, patchMember, postCollection, postMember } from './write';


// Maximo clients that cannot send PATCH or DELETE POST with x-method-override; route them as the method they
// mean. MERGE is a PATCH that keeps children. SYNC and BULK stay POSTs to the collection.
const methodOverride: Hapi.Lifecycle.Method = (request, h) => {

    const override = (header(request, 'x-method-override') ?? '').toUpperCase();
    // A collection action comes as a POST with x-method-override: PATCH (the npm client's globalAction): it stays
    // the POST to the collection that runs it.
    const collectionAction = override === 'PATCH' && request.query.action !== undefined && /\/os\/[^/]+\/?$/i.test(request.path);
    if (request.method === 'post' && ['PATCH', 'PUT', 'DELETE', 'MERGE'].includes(override) && !collectionAction) {
        request.app.mergeOverride = override === 'MERGE';
        request.setMethod(override === 'MERGE' ? 'PATCH' : override.toLowerCase() as 'patch' | 'put' | 'delete');
    }

    return h.continue;
};

// Records: reads, queries and single-record writes of every object structure.
export const resources: Hapi.Plugin<unknown> = {
    name: 'resources',
    dependencies: ['osprey'],
    register: (server) => {

        const osprey = server.app.osprey;
        server.ext('onRequest', methodOverride);

        // The routes of records and collections; each request's parameters are read once, in request.ts.
        server.route(homeRoutes(osprey.options.contextRoot, [
            { method: 'GET', path: '/os/{os}', options: { id: 'resources.query', handler: getCollection } },
            { method: 'GET', path: '/os/{os}/{id}/getlist~{attr}', options: { id: 'resources.lookup', handler: getLookup } },
            { method: 'GET', path: '/os/{os}/{id}/{child}/{childid}/getlist~{attr}', options: { id: 'resources.childLookup', handler: getLookup } },
            { method: 'POST', path: '/os/{os}', options: { id: 'resources.create', handler: postCollection, payload: jsonPayload } },
            { method: 'GET', path: '/os/{os}/{id}', options: { id: 'resources.read', handler: getMember } },
            { method: 'PATCH', path: '/os/{os}/{id}', options: { id: 'resources.update', handler: patchMember, payload: jsonPayload } },
            { method: 'PUT', path: '/os/{os}/{id}', options: { id: 'resources.replace', handler: patchMember, payload: jsonPayload } },
            { method: 'DELETE', path: '/os/{os}/{id}', options: { id: 'resources.delete', handler: deleteMember, payload: jsonPayload } },
            { method: 'POST', path: '/os/{os}/{id}', options: { id: 'resources.post', handler: postMember, payload: jsonPayload } },
            { method: 'GET', path: '/os/{os}/{id}/{child}', options: { id: 'resources.children', handler: getChildren } },
            { method: 'GET', path: '/os/{os}/{id}/{child}/{childid}', options: { id: 'resources.child', handler: getChildren } }
        ]));
    }
};
