import type * as Hapi from '@hapi/hapi';

import { flag, flagOf, header, homeHref, linkHref, maximoError, structureOf, userOf, type ReadQuery, type RenderFlags, type ResourceRequest, type Structure, type WriteOptions } from '../../src';


// The one reader of a record route's request (issue 17): the hapi request becomes a ResourceRequest
// (src/request.ts), the value the read and write pipelines take. Which parameters a route may carry is the
// parameter gate's to say (src/http/parameters.ts), before the handler runs; this reads what got through.

export { flag };

// The payload settings of a route whose body is JSON: hapi hands the body over decompressed and unparsed, and the
// parameter gate reads it strictly (src/http/json-body.ts), and refuses at start a JSON route without them.
export const jsonPayload = { parse: 'gunzip', output: 'data' } as const satisfies Hapi.RouteOptionsPayload;

export const collectionHref = (request: Hapi.Request, structure: Structure): string => `${homeHref(request, request.server.app.osprey.options.contextRoot)}/os/${structure.id}`;

// A query parameter as one string: the last of a repeated one.
export const text = (value: unknown): string | undefined => (Array.isArray(value) ? String(value[value.length - 1]) : value === undefined ? undefined : String(value));

// oslc.pageSize and pageno: whole numbers of 1 or more, once. (Read here rather than by a Joi schema on the
// routes: validating the query through the route took 3.3 % of a count=1's CPU.)
const positive = (query: Record<string, unknown>, name: string): number | undefined => {

    const value = query[name];
    if (value === undefined) {
        return undefined;
    }

    if (typeof value !== 'string' || !/^\s*\d{1,9}\s*$/.test(value) || Number(value) < 1) {
        throw maximoError('badRequest', `${name} must be a whole number of 1 or more, given once; ${JSON.stringify(value)} is not.`);
    }

    return Number(value);
};

const readQuery = (query: Record<string, unknown>): ReadQuery => {

    const select = text(query['oslc.select']);
    const properties = text(query['oslc.properties']);
    // Without a prototype, as hapi's query is: a name read from it is one the client sent, or nothing.
    const parameters: Record<string, string> = Object.create(null);
    for (const name of Object.keys(query)) {
        parameters[name] = text(query[name])!;
    }

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
        pageSize: positive(query, 'oslc.pageSize'),
        pageno: positive(query, 'pageno') ?? 1,
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

// A request without a query string (a record by its id, most writes) reads and renders as these, made once:
// building them from an empty query cost a few microseconds on every such request.
const noQuery = Object.freeze({});
const plainRead = Object.freeze({ ...readQuery(noQuery), parameters: Object.freeze({}) });

// The properties header, or the query parameter: what a write's answer (or a GET's record) carries.
const propertiesOf = (request: Hapi.Request): string | undefined => header(request, 'properties') ?? text(request.query.properties);

// Also read by the API-token routes (plugins/apikeys), which write keys outside a record route.
export const writeOptions = (request: Hapi.Request): WriteOptions => {

    const override = (header(request, 'x-method-override') ?? '').toUpperCase();
    return {
        override,
        merge: (header(request, 'patchtype') ?? '').toUpperCase() === 'MERGE' || request.app.mergeOverride === true,
        properties: propertiesOf(request),
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
    internalValues: flag(query.internalvalues),
    inlineDocuments: flag(query.inlinedoc)
});

const plainRender = Object.freeze(renderFlags(noQuery));

const empty = (query: Record<string, unknown>) => {

    for (const _ in query) {
        return false;
    }

    return true;
};

const writing = new Set(['post', 'patch', 'put', 'delete']);

// A GET writes nothing: its write options say so without reading the nine headers a write reads.
const readOnly = (request: Hapi.Request): WriteOptions => ({ override: '', merge: false, properties: propertiesOf(request), batchErrors: false, allowEvents: true, allOrNothing: false, body: undefined });

// The request value (src/request.ts). A class, so that its lazily made parts are getters of one prototype
// rather than new accessors on every request.
class RequestValue implements ResourceRequest {

    readonly osprey: ResourceRequest['osprey'];
    readonly user: ResourceRequest['user'];
    readonly apiKey: boolean;
    readonly structure: Structure;
    readonly id: string | undefined;
    readonly child: string | undefined;
    readonly childId: string | undefined;
    readonly attribute: string | undefined;
    readonly home: string;
    readonly render: RenderFlags;
    readonly read: ReadQuery;
    readonly write: WriteOptions;
    // The request's URL as text (hapi's own, so a plugin's setUrl holds), only where the route's answer may carry
    // page links: hapi parses the whole URL again for request.url (on a PostgreSQL update, 16 of its 700 µs of CPU),
    // and a record read, a count or a write never needs it. Only text
    // is kept: when the value held the hapi request instead, to ask for the URL later, the server's memory under
    // load of member GETs grew from 130 to 215 MB, and they slowed.
    readonly #href: string | undefined;
    #link: string | undefined;
    #url: URL | undefined;

    constructor(request: Hapi.Request, links: boolean) {

        const osprey = request.server.app.osprey;
        const params = request.params as Record<string, string | undefined>;
        const query = request.query as Record<string, unknown>;
        const plain = empty(query);
        this.osprey = osprey;
        this.user = userOf(request);
        this.apiKey = request.auth.credentials.method === 'apikey';
        this.structure = structureOf(request);
        this.id = params.id;
        this.child = params.child;
        this.childId = params.childid;
        this.attribute = params.attr;
        this.home = homeHref(request, osprey.options.contextRoot);
        this.render = plain ? plainRender : renderFlags(query);
        this.read = plain ? plainRead : readQuery(query);
        // Read from the headers now, and only on a write.
        // A GET that runs an action reads what a write reads (If-Match, transactionid, x-allow-events).
        this.write = writing.has(request.method) || request.query.action !== undefined ? writeOptions(request) : readOnly(request);
        this.#href = links ? request.url.href : undefined;
    }

    get linkHref(): string {

        if (this.#href === undefined) {
            throw new Error('The request value of a record read, a count or a write has no URL for page links.');
        }

        return (this.#link ??= linkHref(this.#href));
    }

    get url(): URL {

        return (this.#url ??= new URL(this.linkHref));
    }
}

// `links: false` where the answer has no page links: one record (a member GET), a count, a write's answer.
export const resourceRequest = (request: Hapi.Request, links = true): ResourceRequest => new RequestValue(request, links);
