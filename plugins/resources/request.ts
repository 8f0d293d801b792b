import type * as Hapi from '@hapi/hapi';

import { flag, flagOf } from '../../src/http/flags';
import { header } from '../../src/http/headers';
import { homeHref } from '../../src/http/hrefs';
import { parseSelect } from '../../src/query/select';
import { ownerRule } from '../../src/auth/access';
import type { UserProfile } from '../../src/auth/users';
import { allowedActions } from '../../src/records/allowed-actions';
import { hooksOf } from '../../src/records/hooks';
import type { WriteContext } from '../../src/records/context';
import type { Row } from '../../src/records/find';
import { memberId } from '../../src/records/serialize';
import type { WriteSettings } from '../../src/records/write';
import { maximoError } from '../../src/errors/maximo-error';
import { planSelect, type SelectPlan, type SelectSettings } from '../../src/records/select-plan';
import type { SerializeOptions } from '../../src/records/serialize';
import type { Attribute, BusinessObject, Structure } from '../../src/structures/registry';


// Reading a request's resource-related parameters, the same way for every route of this plugin.

export { flag };

export const collectionHref = (request: Hapi.Request, structure: Structure): string => `${homeHref(request, request.server.app.osprey.options.contextRoot)}/os/${structure.id}`;

// A query parameter as one string: the last of a repeated one.
export const text = (value: unknown): string | undefined => (Array.isArray(value) ? String(value[value.length - 1]) : value === undefined ? undefined : String(value));

// How names of a select resolve on this object for this request (the jsonschemas route resolves them so too).
export const selectSettings = (request: Hapi.Request, object: BusinessObject, parameter: string, settings: Partial<SelectSettings> = {}): SelectSettings => {

    const { registry, options } = request.server.app.osprey;
    const structure = registry.byObject(object.name);
    const ui = options.uiBase === undefined ? undefined : `${options.uiBase}/${options.contextRoot}/ui/`;
    // Secret attributes may be named where the object's hooks reveal them (an API key's value); others never render.
    return { parameter, registry, structure: structure?.root === object ? structure : undefined, secrets: hooksOf(object).selectSecrets === true, ui, ...settings };
};

// The select of a read: oslc.select, else oslc.properties; undefined when neither is sent.
export const readSelect = (request: Hapi.Request, object: BusinessObject, settings: Partial<SelectSettings> = {}): SelectPlan => {

    const select = text(request.query['oslc.select']);
    const parameter = select !== undefined ? 'oslc.select' : 'oslc.properties';
    const source = select ?? text(request.query['oslc.properties']);
    return planSelect(object, source?.trim() ? parseSelect(source, parameter) : undefined, selectSettings(request, object, parameter, settings));
};

// The properties a write answers with (header or query parameter, or `source` where a bulk item names its own);
// undefined: answer without a body.
export const writeSelect = (request: Hapi.Request, object: BusinessObject, settings: Partial<SelectSettings> = {}, source = header(request, 'properties') ?? text(request.query.properties)): SelectPlan | undefined => {

    return source?.trim() ? planSelect(object, parseSelect(source, 'properties'), selectSettings(request, object, 'properties', settings)) : undefined;
};

// A secret renders as the object's reveal hook says (an API key's value: to its owner and to administrators);
// every other secret stays hidden.
const reveal = (request: Hapi.Request) => {

    const user = request.auth.credentials.user as UserProfile;
    return (object: BusinessObject, attr: Attribute, row: Row) => hooksOf(object).reveal?.(attr, row, user, request.server.app.osprey);
};

export const serializeOptions = (request: Hapi.Request): SerializeOptions => {

    return {
        reveal: reveal(request),
        home: homeHref(request, request.server.app.osprey.options.contextRoot),
        dropNulls: flagOf(request.query._dropnulls) !== false,
        collectionRefs: !flag(request.query.ignorecollectionref),
        rowstamps: !flag(request.query.ignorers),
        internalValues: flag(request.query.internalvalues),
        domains: request.server.app.osprey.registry.domains(),
        allowedActions: allowedActions(request.server.app.osprey.registry, request.auth.credentials.user as UserProfile)
    };
};

export const writeContext = (request: Hapi.Request): WriteContext => {

    return {
        registry: request.server.app.osprey.registry,
        userid: request.auth.credentials.user!.userid,
        now: new Date(),
        batchErrors: flag(header(request, 'batcherror')),
        allowEvents: !['0', 'false'].includes(header(request, 'x-allow-events') ?? ''),
        transactionId: header(request, 'transactionid')
    };
};

export const isMerge = (request: Hapi.Request): boolean => (header(request, 'patchtype') ?? '').toUpperCase() === 'MERGE' || request.app.mergeOverride === true;

export interface Outcome {
    readonly row?: Row;
    readonly record?: Row;
}

export const settingsOf = (request: Hapi.Request, structure: Structure): WriteSettings => {

    const osprey = request.server.app.osprey;
    return { knex: osprey.knex, ctx: writeContext(request), structure, retentionMs: osprey.options.transactionRetentionHours * 3600_000 };
};

export const bodyOf = (request: Hapi.Request): Row => {

    const body = request.payload ?? {};
    if (typeof body !== 'object' || Array.isArray(body) || Buffer.isBuffer(body)) {
        throw maximoError('badRequest', 'The body must be a JSON object with the attributes of the record.');
    }

    return body as Row;
};

export const created = (request: Hapi.Request, h: Hapi.ResponseToolkit, structure: Structure, outcome: Outcome) => {

    const location = `${collectionHref(request, structure)}/${memberId(structure.root, outcome.row!)}`;
    return h.response(outcome.record).code(201).header('Location', location);
};

export const updated = (h: Hapi.ResponseToolkit, outcome: Outcome) => (outcome.record ? h.response(outcome.record).code(200) : h.response().code(204));

// access.owner: who is not an administrator creates records in their own name only.
export const ownedBody = (request: Hapi.Request, structure: Structure, body: Row): Row => {

    const owner = ownerRule(request, structure);
    if (!owner) {
        return body;
    }

    const given = body[owner.attribute];
    if (given !== undefined && given !== null && String(given).toUpperCase() !== owner.userid) {
        throw maximoError('forbidden', `User ${owner.userid} cannot create ${structure.name} records for ${String(given)}.`);
    }

    return { ...body, [owner.attribute]: owner.userid };
};
