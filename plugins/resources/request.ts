import type * as Hapi from '@hapi/hapi';

import { flag, flagOf } from '../../src/http/flags';
import { header } from '../../src/http/headers';
import { homeHref } from '../../src/http/hrefs';
import { parseSelect } from '../../src/read/parse/select';
import { ownerRule } from '../../src/auth/access';
import type { UserProfile } from '../../src/auth/users';
import { allowedActions } from '../../src/read/serialize/allowed-actions';
import { hooksOf } from '../../src/structures/hooks';
import type { WriteContext } from '../../src/write/context';
import type { Row } from '../../src/read/execute/find';
import { memberId } from '../../src/read/serialize/serialize';
import type { WriteSettings } from '../../src/write/transaction';
import { maximoError } from '../../src/errors/maximo-error';
import { planSelect, type SelectPlan, type SelectSettings } from '../../src/read/plan/select-plan';
import type { SerializeOptions } from '../../src/read/serialize/serialize';
import type { Attribute, BusinessObject, Structure } from '../../src/structures/registry';
import type { ReadQuery } from '../../src/read/request';
import type { RenderFlags, ResourceRequest } from '../../src/request';
import { structureOf } from '../../src/http/structure';
import type { WriteOptions } from '../../src/write/request';
import { userOf } from '../../src/http/caller';


// The one reader of a record route's request (issue 17): the hapi request becomes a ResourceRequest
// (src/request.ts), the value the read and write pipelines take. Which parameters a route may carry is the
// parameter gate's to say (src/http/parameters.ts), before the handler runs; this reads what got through.

export { flag };

export const collectionHref = (request: Hapi.Request, structure: Structure): string => `${homeHref(request, request.server.app.osprey.options.contextRoot)}/os/${structure.id}`;

// A query parameter as one string: the last of a repeated one.
export const text = (value: unknown): string | undefined => (Array.isArray(value) ? String(value[value.length - 1]) : value === undefined ? undefined : String(value));

const readQuery = (query: Record<string, unknown>): ReadQuery => {

    const select = text(query['oslc.select']);
    const properties = text(query['oslc.properties']);
    const parameters = Object.fromEntries(Object.keys(query).map((name) => [name, text(query[name])!]));
    return {
        select: select !== undefined ? { text: select, parameter: 'oslc.select' } : properties !== undefined ? { text: properties, parameter: 'oslc.properties' } : undefined,
        where: text(query['oslc.where']),
        orderBy: text(query['oslc.orderBy']),
        opmodeor: flag(query.opmodeor),
        opmode: text(query.opmode),
        searchTerms: text(query['oslc.searchTerms']),
        searchAttributes: text(query.searchAttributes),
        savedQuery: text(query.savedQuery ?? query.savedquery),
        tlrange: text(query.tlrange),
        tlattribute: text(query.tlattribute),
        pageSize: query['oslc.pageSize'] as number | undefined,
        pageno: (query.pageno as number | undefined) ?? 1,
        stablePaging: flag(query.stablepaging),
        stableId: text(query.stableId ?? query.stableid),
        count: flag(query.count),
        collectionCount: flag(query.collectioncount),
        addSchema: flag(query.addschema),
        distinct: text(query.distinct),
        gbcols: text(query.gbcols),
        gbrange: text(query.gbrange),
        gbfilter: text(query.gbfilter),
        gbsortby: text(query.gbsortby),
        action: text(query.action),
        reportName: text(query.reportname),
        reportFormat: text(query.reportformat),
        attachment: flag(query.attachment),
        setupData: text(query.setupdata),
        parameters
    };
};

const writeOptions = (request: Hapi.Request): WriteOptions => {

    const override = (header(request, 'x-method-override') ?? '').toUpperCase();
    return {
        override,
        merge: (header(request, 'patchtype') ?? '').toUpperCase() === 'MERGE' || request.app.mergeOverride === true,
        properties: header(request, 'properties') ?? text(request.query.properties),
        batchErrors: flag(header(request, 'batcherror')),
        allowEvents: !['0', 'false'].includes(header(request, 'x-allow-events') ?? ''),
        transactionId: header(request, 'transactionid'),
        ifMatch: header(request, 'if-match'),
        allOrNothing: flag(header(request, 'allornothing') ?? text(request.query.allornothing)),
        body: request.payload ?? undefined
    };
};

const renderFlags = (query: Record<string, unknown>): RenderFlags => ({
    dropNulls: flagOf(query._dropnulls) !== false,
    collectionRefs: !flag(query.ignorecollectionref),
    rowstamps: !flag(query.ignorers),
    internalValues: flag(query.internalvalues)
});

// The request's URL as page links carry it on: credentials sent as query parameters never travel on.
const linkUrl = (request: Hapi.Request): URL => {

    const url = new URL(request.url.href);
    for (const name of ['apikey', '_lid', '_lpwd']) {
        url.searchParams.delete(name);
    }

    return url;
};

export const resourceRequest = (request: Hapi.Request): ResourceRequest => {

    const osprey = request.server.app.osprey;
    const params = request.params as Record<string, string | undefined>;
    const query = request.query as Record<string, unknown>;
    return {
        osprey,
        user: userOf(request),
        structure: structureOf(request),
        id: params.id,
        child: params.child,
        childId: params.childid,
        attribute: params.attr,
        home: homeHref(request, osprey.options.contextRoot),
        url: linkUrl(request),
        render: renderFlags(query),
        read: readQuery(query),
        write: writeOptions(request)
    };
};

// How names of a select resolve on this object for this request (the jsonschemas route resolves them so too).
export const selectSettings = (request: Hapi.Request, object: BusinessObject, parameter: string, settings: Partial<SelectSettings> = {}): SelectSettings => {

    const { registry, options } = request.server.app.osprey;
    const structure = registry.byObject(object.name);
    const ui = options.uiBase === undefined ? undefined : `${options.uiBase}/${options.contextRoot}/ui/`;
    // Secret attributes may be named where the object's hooks reveal them (an API key's value); others never render.
    return { parameter, registry, structure: structure?.root === object ? structure : undefined, secrets: hooksOf(object).selectSecrets === true, ui, ...settings };
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

    const owner = ownerRule(userOf(request), structure);
    if (!owner) {
        return body;
    }

    const given = body[owner.attribute];
    if (given !== undefined && given !== null && String(given).toUpperCase() !== owner.userid) {
        throw maximoError('forbidden', `User ${owner.userid} cannot create ${structure.name} records for ${String(given)}.`);
    }

    return { ...body, [owner.attribute]: owner.userid };
};
