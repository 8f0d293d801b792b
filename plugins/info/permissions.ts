import type * as Hapi from '@hapi/hapi';

import { isAllowed, maximoError, structureOf, type Right, type Structure, type UserProfile } from '../../src';


// {home}/permission/…: what the caller may do, from the rights the structures' YAML grants (access:). An
// application is a structure's `app`; its signature options are Maximo's names for those rights. The questions
// Osprey has nothing to answer with (sites, organizations, general ledger, collections) are 501s of
// src/http/unserved.ts.

const user = (request: Hapi.Request) => request.auth.credentials.user as UserProfile;

const served = (request: Hapi.Request): Structure[] => request.server.app.osprey.registry.list().filter((structure) => structure.def.app !== undefined);

// Maximo's signature options for the rights Osprey grants; an action is named as allowedactions names it (the
// YAML's `wsmethod:changeStatus` is changeStatus).
const options: readonly [Exclude<Right, 'actions'>, string][] = [['read', 'READ'], ['insert', 'INSERT'], ['update', 'SAVE'], ['delete', 'DELETE']];

const optionsOf = (caller: UserProfile, structure: Structure): string[] => [
    ...options.filter(([right]) => isAllowed(caller, structure, right)).map(([, option]) => option),
    ...(isAllowed(caller, structure, 'actions') ? structure.def.actions.map((action) => action.name.slice(action.name.indexOf(':') + 1)) : [])
];

// GET permission/listallowedapps: the applications of the structures the caller may read.
export const allowedApps = (request: Hapi.Request): string[] => {

    const caller = user(request);
    return [...new Set(served(request).filter((structure) => isAllowed(caller, structure, 'read')).map((structure) => structure.def.app!))].sort();
};

// GET permission/allowedappoptions[?app=APP]: each application's signature options the caller holds.
export const allowedAppOptions = (request: Hapi.Request): Record<string, string[]> => {

    const caller = user(request);
    const app = request.query.app === undefined ? undefined : String(request.query.app).toUpperCase();
    const structures = served(request).filter((structure) => app === undefined || structure.def.app!.toUpperCase() === app);
    if (app !== undefined && !structures.length) {
        throw maximoError('notFound', `No object structure serves the application ${app}.`);
    }

    const answer: Record<string, string[]> = {};
    for (const structure of structures) {
        const name = structure.def.app!;
        answer[name] = [...new Set([...answer[name] ?? [], ...optionsOf(caller, structure)])];
    }

    return answer;
};

// GET permission/checkosauthorized/{os}: whether the caller holds any right on the structure.
export const osAuthorized = (request: Hapi.Request): boolean => {

    const structure = structureOf(request);
    const caller = user(request);
    return (['read', 'insert', 'update', 'delete', 'actions'] as const).some((right) => isAllowed(caller, structure, right));
};

// GET permission/checkosauthorized names no structure (the npm client's checkOsAuthorized sends none): there is
// nothing to answer true or false about.
export const osAuthorizedUnnamed = (): never => {

    throw maximoError('badRequest', 'checkosauthorized answers for one object structure: name it, as permission/checkosauthorized/{os}.');
};
