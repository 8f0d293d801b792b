import type * as Hapi from '@hapi/hapi';

import { homeHref, homeRoutes, isAllowed, maximoError, parseSelect, planSelect, structureOf, userOf, type BusinessObject } from '../../src';
import { apiHome, apimetaEntry, errorMessage, license, member, products, structureList, systemInfo, whoami } from './documents';
import { jsonSchema, mboSchema, selectionSchema, selectSettings } from '../../src';
import { memberMetric, mmi } from './metrics';
import { allowedAppOptions, allowedApps, osAuthorized, osAuthorizedUnnamed } from './permissions';


// The information documents (CONTRACT §9), under both homes.
// Whether `object` or one of its children (at any depth) is the business object `name`.
const holds = (object: BusinessObject, name: string): boolean => object.name === name || [...object.children.values()].some((child) => holds(child.object, name));

export const info: Hapi.Plugin<unknown> = {
    name: 'info',
    // The app (src/app.ts): server.app.osprey (options, registry, members) and the login strategy.
    dependencies: ['osprey'],
    register: (server) => {

        const osprey = server.app.osprey;
        server.route(homeRoutes(osprey.options.contextRoot, [
            { method: 'GET', path: '', options: { id: 'info.home', handler: apiHome } },
            { method: 'GET', path: '/systeminfo', options: { id: 'info.systeminfo', handler: systemInfo } },
            { method: 'GET', path: '/whoami', options: { id: 'info.whoami', handler: (request) => whoami(request) } },
            { method: 'GET', path: '/products', options: { id: 'info.products', handler: products } },
            { method: 'GET', path: '/license', options: { id: 'info.license', handler: license } },
            {
                method: 'GET', path: '/members', options: {
                    id: 'info.members',
                    handler: async (request) => {

                        const list = await osprey.members.list();
                        return { href: `${homeHref(request, osprey.options.contextRoot)}/members`, member: list.map((item) => member(request, item, osprey.members.id)) };
                    }
                }
            },
            {
                method: 'GET', path: '/members/{id}', options: {
                    id: 'info.member',
                    handler: async (request) => {

                        const id = request.params.id === 'thisserver' ? osprey.members.id : request.params.id;
                        const found = (await osprey.members.list()).find((item) => item.id === id);
                        if (!found) {
                            throw maximoError('notFound', `The server member ${request.params.id} is not live.`);
                        }

                        return member(request, found, osprey.members.id);
                    }
                }
            },
            { method: 'GET', path: '/members/{id}/{metric*}', options: { id: 'info.memberMetric', handler: memberMetric } },
            { method: 'GET', path: '/mmi', options: { id: 'info.mmi', handler: mmi } },
            { method: 'GET', path: '/permission/listallowedapps', options: { id: 'info.allowedApps', handler: allowedApps } },
            { method: 'GET', path: '/permission/allowedappoptions', options: { id: 'info.allowedAppOptions', handler: allowedAppOptions } },
            { method: 'GET', path: '/permission/checkosauthorized/{os}', options: { id: 'info.osAuthorized', handler: osAuthorized } },
            { method: 'GET', path: '/permission/checkosauthorized', options: { id: 'info.osAuthorizedUnnamed', handler: osAuthorizedUnnamed } },
            { method: 'GET', path: '/os', options: { id: 'info.structures', handler: structureList } },
            { method: 'GET', path: '/error/messages/{code}', options: { id: 'info.errorMessage', handler: errorMessage } },
            { method: 'GET', path: '/apimeta', options: { id: 'info.apimeta', handler: (request) => osprey.registry.list().map((structure) => apimetaEntry(request, structure)) } },
            { method: 'GET', path: '/apimeta/{os}', options: { id: 'info.apimetaOne', handler: (request) => apimetaEntry(request, structureOf(request)) } },
            {
                // A business object by name, whichever structure declares it (MBO names are case-insensitive).
                method: 'GET', path: '/jsonmboschemas/{mbo}', options: {
                    id: 'info.mboSchema',
                    handler: (request) => {

                        const name = String(request.params.mbo).toUpperCase();
                        const object = osprey.registry.objects().find((candidate) => candidate.name === name);
                        if (!object) {
                            throw maximoError('notFound', `The business object ${name} is not one of the object structures' objects.`);
                        }

                        // Only of an object the user may read through one of its structures.
                        const user = userOf(request);
                        if (!osprey.registry.list().some((structure) => isAllowed(user, structure, 'read') && holds(structure.root, name))) {
                            throw maximoError('forbidden', `User ${user.userid} is not authorized to read ${name} records through any object structure.`);
                        }

                        return mboSchema(object, osprey.registry.domains(), `${homeHref(request, osprey.options.contextRoot)}/jsonmboschemas/${name.toLowerCase()}`);
                    }
                }
            },
            {
                method: 'GET', path: '/jsonschemas/{os}', options: {
                    id: 'info.jsonschema',
                    handler: (request) => {

                        const structure = structureOf(request);
                        // A schema is the user's only of a structure they may read, as its oas document is.
                        const user = userOf(request);
                        if (!isAllowed(user, structure, 'read')) {
                            throw maximoError('forbidden', `User ${user.userid} is not authorized to read ${structure.name} records.`);
                        }

                        const href = `${homeHref(request, osprey.options.contextRoot)}/jsonschemas/${structure.id}`;
                        const select = request.query['oslc.select'] as string | undefined;
                        if (!select?.trim()) {
                            return jsonSchema(structure, osprey.registry.domains(), href);
                        }

                        // oslc.select keeps the part of the structure it names, as a record selected so renders it,
                        // and follows relations as the user's record GET would (issue 18): one into a structure
                        // the user may not read is the same 403 naming it, so a schema describes nothing the
                        // user could not read.
                        const reach = { user };
                        const plan = planSelect(structure.root, parseSelect(select), selectSettings(request.server.app.osprey, structure.root, 'oslc.select', { reach }));
                        return selectionSchema(structure, structure.root, plan, { domains: osprey.registry.domains(), records: true, rowstamps: true, internalValues: false, collectionRefs: true }, { href });
                    }
                }
            }
        ]));
    }
};
