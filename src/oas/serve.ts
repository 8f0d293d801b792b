import type * as Hapi from '@hapi/hapi';

import { actionsOf } from '../actions/resolve';
import { requireRight } from '../auth/access';
import { maximoError } from '../errors/maximo-error';
import { userOf } from '../http/caller';
import { homeOf } from '../http/homes';
import { notProvided, unservedStructure } from '../http/unserved';
import type { Structure } from '../structures/registry';
import { PartCache, listedRoutes, rightsKey } from './cache';
import { oasText, type ListedRoute } from './document';


// {home}/oas (Maximo's: the whole API, os= narrowing it), {home}/oas/api (the same) and {home}/oas/{os} (one
// structure). They need a login, as Maximo's do, and hold only the structures the user may read: what a user
// cannot use is not advertised to them. Made once per home, os= and set of rights (src/oas/cache.ts).

interface Served {
    readonly parts: PartCache;
    readonly routes: Map<string, ListedRoute[]>;
}

const served = new WeakMap<Hapi.Server, Served>();

const servedOf = (server: Hapi.Server): Served => {

    let state = served.get(server);
    if (!state) {
        state = { parts: new PartCache(), routes: new Map() };
        served.set(server, state);
    }

    return state;
};

// The structures os= (or the path) names, each one the user may read.
const named = (request: Hapi.Request, list: string, by = ' (named by os=)'): Set<string> => {

    const { registry } = request.server.app.osprey;
    const names = new Set<string>();
    for (const name of list.split(',').map((part) => part.trim()).filter(Boolean)) {
        const unserved = unservedStructure(name);
        if (unserved) {
            throw notProvided(unserved);
        }

        const structure = registry.get(name);
        if (!structure) {
            throw maximoError('unknownStructure', `The object structure ${name.toUpperCase()}${by} does not exist.`);
        }

        requireRight(userOf(request), structure, 'read');
        names.add(structure.name);
    }

    if (!names.size) {
        throw maximoError('badRequest', 'The query parameter os names no object structure: send os=NAME (or several, comma-separated), or leave it out for all.');
    }

    return names;
};

// The document as JSON text, for the request's home, user and structures (`only`; all the user may read if none).
export const openApiText = (request: Hapi.Request, only?: ReadonlySet<string>): Promise<string> => {

    const { server } = request;
    const osprey = server.app.osprey;
    const home = homeOf(request);
    const user = userOf(request);
    const state = servedOf(server);
    let routes = state.routes.get(home);
    if (!routes) {
        routes = listedRoutes(server, osprey.options.contextRoot, home);
        state.routes.set(home, routes);
    }

    // Actions are registered when plugins register, before the server starts, so the parts made after it hold them.
    const actions = (structure: Structure) => actionsOf(osprey.actions, structure);
    const input = { registry: osprey.registry, routes, contextRoot: osprey.options.contextRoot, home, version: osprey.version, user, actions, ...only ? { only } : {} };
    return oasText(input, (key, make) => state.parts.get(key, make), rightsKey(osprey.registry, user));
};

// GET {home}/oas and {home}/oas/api: the whole API, or the structures os= names.
export const openApiDocument = (request: Hapi.Request): Promise<string> => {

    const os = request.query.os as string | undefined;
    return openApiText(request, os === undefined ? undefined : named(request, os));
};

// GET {home}/oas/{os}: one structure's (the route is refused by the unserved structures' rule before this).
export const openApiStructure = (request: Hapi.Request): Promise<string> => {

    const name = String(request.params.os);
    if (name.toLowerCase() === 'api') {
        return openApiDocument(request);
    }

    if (request.query.os !== undefined) {
        throw maximoError('badRequest', `The query parameter os narrows {home}/oas and {home}/oas/api; {home}/oas/${name} is the document of ${name.toUpperCase()} already.`);
    }

    return openApiText(request, named(request, name, ''));
};

// Any other path below {home}/oas, and any method but GET: refused by name.
export const openApiOther = (request: Hapi.Request): never => {

    const home = `/${request.server.app.osprey.options.contextRoot}/${homeOf(request)}`;
    if (request.method !== 'get') {
        throw maximoError('methodNotAllowed', `The OpenAPI documents are read with GET, not ${request.method.toUpperCase()}.`);
    }

    throw maximoError('routeNotFound', `${request.path} is no OpenAPI document: they are ${home}/oas (os=NAME,… narrows it), ${home}/oas/api and ${home}/oas/{os}; the page that browses them is /${request.server.app.osprey.options.contextRoot}/oas3/api.html.`);
};
