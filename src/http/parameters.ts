import type * as Hapi from '@hapi/hapi';

import { errorAnswer, servedMethods } from '../errors/edge';
import { maximoError } from '../errors/maximo-error';
import { flagOf } from './flags';
import { checkCrossSite } from './cross-site';
import { header } from './headers';
import { jsonPayload, readJsonBody } from './json-body';
import { logs } from '../log/logger';
import { parameterNames } from '../read/parse/params';
import { parseWhere } from '../read/parse/where';
import type { Structure } from '../structures/registry';
import { own } from '../structures/own';
import { unservedRoutes } from './unserved';


// The query parameters and request headers Osprey knows, and where it carries each out. The house rule: a
// parameter, header or action whose meaning the server does not carry out is refused with a 400 that names it,
// never silently ignored. The gate below holds every request to this table before its handler runs, so a
// refused request has done nothing (no write has started).
//
// A request's *use* is its route, and on the two collection routes what it asks: a GET of …/os/{os} is a page,
// a distinct, a group-by or a report action; a POST to it is a create, a sync or a bulk.

export const uses = ['page', 'distinct', 'groups', 'listreports', 'genreport', 'action', 'globalaction', 'member', 'children', 'child', 'lookup', 'create', 'sync', 'bulk', 'update', 'delete', 'info', 'schema', 'permission', 'login', 'formlogin', 'logout', 'apitoken', 'loginlocks', 'health', 'service', 'attachments', 'upload', 'document', 'docdelete', 'oas', 'oaspage'] as const;
export type Use = typeof uses[number];

export const useLabels: Readonly<Record<Use, string>> = {
    page: 'a collection query (GET …/os/{os})',
    distinct: 'a distinct query (GET …/os/{os}?distinct=)',
    groups: 'a group-by query (GET …/os/{os}?gbcols=)',
    listreports: 'the listreports action (GET …/os/{os}?action=listreports)',
    genreport: 'the genreport action (GET …/os/{os}?action=genreport)',
    action: 'a record action (GET or POST …/os/{os}/{id}?action=NAME)',
    globalaction: 'a collection action (GET or POST …/os/{os}?action=NAME)',
    member: 'a record read (GET …/os/{os}/{id})',
    children: 'a child collection (GET …/os/{os}/{id}/{child})',
    child: 'a child row (GET …/os/{os}/{id}/{child}/{childid})',
    lookup: 'a lookup (GET …/getlist~{attr})',
    create: 'a create (POST …/os/{os})',
    sync: 'a sync (POST …/os/{os} with x-method-override: SYNC)',
    bulk: 'a bulk (POST …/os/{os} with x-method-override: BULK)',
    update: 'a record update (PATCH, PUT, or POST with x-method-override, on …/os/{os}/{id})',
    delete: 'a delete (DELETE …/os/{os}/{id})',
    info: 'an information endpoint ({home}, systeminfo, whoami, products, license, members, mmi, apimeta, jsonmboschemas)',
    schema: 'a JSON schema ({home}/jsonschemas/{os})',
    permission: 'a permission question ({home}/permission/…)',
    login: 'a login ({home}/login)',
    formlogin: 'a form login (POST …/j_security_check)',
    logout: 'a logout',
    apitoken: 'an API token request ({home}/apitoken/…)',
    loginlocks: 'the login locks ({home}/loginlocks)',
    health: 'the health check',
    service: 'a service method ({home}/service/{name}?action=wsmethod:{method})',
    attachments: 'a record\'s documents (GET …/os/{os}/{id}/doclinks)',
    upload: 'an upload (POST …/os/{os}/{id}/doclinks)',
    document: 'a document or its meta (GET …/doclinks/{docid}, …/doclinks/meta/{docid})',
    docdelete: 'a document\'s delete (DELETE …/doclinks/{docid})',
    oas: 'an OpenAPI document ({home}/oas, {home}/oas/{os})',
    oaspage: 'the API page ({contextRoot}/oas3/api.html and its files)'
};

const bits = Object.fromEntries(uses.map((use, i) => [use, 1 << i])) as Record<Use, number>;

// The clients whose sources were read for this table, and the methods of theirs that send each name.
export interface SentBy {
    /** @maximomize/maximo-api-client */
    readonly npm?: string;
    /** IBM's Java REST client (com.ibm.maximo.oslc) */
    readonly java?: string;
}

export interface Known {
    readonly name: string;
    readonly meaning: string;
    readonly sentBy: SentBy;
    /** Where its meaning is carried out. */
    readonly supported: readonly Use[];
    /**
     * Accepted where what it shapes is not part of the answer, so the answer already is what it asks, and a real
     * client sends it there: IBM's Java client puts collectioncount=1 on every URI of a resource set.
     */
    readonly inert?: readonly Use[];
    /** Why it is refused where it is not carried out, or what to send instead. */
    readonly refused?: string;
    /** The uses `refused` explains, where it does not explain them all (a write's reason said to a whoami would
     * explain the wrong thing). */
    readonly refusedOn?: readonly Use[];
    /** A value (or a companion it lacks) whose meaning is not carried out: the reason it is refused. */
    readonly check?: (value: string, request: Hapi.Request, query: Record<string, unknown>) => string | undefined;
}

const all = uses;
const filtering: Use[] = ['page', 'distinct', 'groups', 'genreport', 'lookup'];
// A child collection filters like a collection, save saved queries (a structure's, not its child's).
const filteringChildren: Use[] = [...filtering, 'children'];
const paged: Use[] = ['page', 'lookup', 'children'];
const readsRecords: Use[] = ['page', 'member', 'children', 'child', 'lookup'];
const answersRecord: Use[] = ['create', 'sync', 'bulk', 'update', 'action'];
const writes: Use[] = [...answersRecord, 'delete', 'globalaction'];
const authenticated = uses.filter((use) => use !== 'health' && use !== 'logout' && use !== 'formlogin' && use !== 'oaspage');
// A form login takes its credentials from the form (maxauth or Basic beside it must name the same login).
const credentialed = uses.filter((use) => use !== 'formlogin');
const formCredentials = 'a form login carries its credentials in the form (j_username, j_password)';
const hrefs: Use[] = ['page', 'groups', 'listreports', 'member', 'children', 'child', 'lookup', ...answersRecord, 'info', 'schema', 'login', 'formlogin', 'attachments', 'document', 'upload'];

// The npm client sends lean=1 on every request: the common values are compared without making strings.
const isOn = (value: string) => flagOf(value) === true;
const flagValue = (value: string) => flagOf(value) !== undefined;
// A flag parameter or header: a value that is not one (yes, 2) would be read as off, so it is refused.
const isFlag = (name: string) => {

    return (value: string) => (flagValue(value) ? undefined : `${name} is 1 or 0 (true or false), not ${value}`);
};

// A query parameter a header of the same name also says (the header is read): both may be sent only saying the
// same, or one of the two would be dropped without a word.
const sameAsHeader = (name: string, same: (query: string, header: string) => boolean) => {

    return (value: string, request: Hapi.Request): string | undefined => {

        const sent = header(request, name);
        return sent === undefined || same(value, sent) ? undefined : `the ${name} header says ${JSON.stringify(sent)} and this says ${JSON.stringify(value)}; send it once`;
    };
};

// The structure whose saved queries a request's savedQuery names: the {os} of a collection, the lookup's own
// structure on a lookup; undefined where there is none (a domain's values), which the handler refuses itself.
const savedQueryOwner = (request: Hapi.Request): Structure | undefined => {

    const registry = request.server.app.osprey.registry;
    const structure = registry.get(String(request.params.os));
    if (!structure || request.params.attr === undefined) {
        return structure;
    }

    const object = request.params.child === undefined ? structure.root : structure.root.children.get(String(request.params.child).toLowerCase())?.object;
    const attr = object?.attributes.get(String(request.params.attr).toLowerCase());
    const lookup = attr?.lookup ? structure.def.lookups[attr.lookup] : undefined;
    return lookup?.structure ? registry.get(lookup.structure) : undefined;
};

const lastText = (value: unknown): string => String(Array.isArray(value) ? value[value.length - 1] : value ?? '');

// sqp:NAME is a parameter of the saved query the request names, and of no other.
const savedQueryParameter = (name: string, request: Hapi.Request, query: Record<string, unknown>): string | undefined => {

    const saved = query.savedQuery ?? query.savedquery;
    if (saved === undefined) {
        return `${name} is a parameter of a saved query, and the request names none (savedQuery=…)`;
    }

    const owner = savedQueryOwner(request);
    // A name the client sends: looked up among the structure's own saved queries only, never its prototype's.
    const definition = owner ? own(owner.def.savedQueries, lastText(saved)) : undefined;
    const param = name.slice(4);
    if (definition && !Object.hasOwn(definition.params, param)) {
        const declared = Object.keys(definition.params);
        return `the saved query ${lastText(saved)} has no parameter ${param} (${declared.length ? `its parameters: ${declared.map((p) => `sqp:${p}`).join(', ')}` : 'it has none'})`;
    }

    return undefined;
};

// A parameter sent under both of its spellings: which value counts would be a guess.
const bothSpellings = (query: Record<string, unknown>, one: string, other: string): string | undefined => (query[one] === undefined ? undefined : `${one} and ${other} are one parameter; send it once`);

const stablePaging = (query: Record<string, unknown>) => (query.stablepaging !== undefined && isOn(lastText(query.stablepaging)) ? undefined : 'a stable page\'s cursor is read with stablepaging=1 (send the nextPage href as it came)');

// A service method is called by POST whatever the header says; the npm client's actionOnEndpoint sends PATCH
// with its body, the one value accepted there.
const serviceOverride = (value: string, request: Hapi.Request): string | undefined => {

    const service = request.route.settings.id?.startsWith('services.') === true;
    return !service || value.trim().toUpperCase() === 'PATCH' ? undefined : `a service method is called by POST (x-method-override: PATCH, as the npm client sends it), and ${value} is not carried out on it`;
};

export const queryParameters: readonly Known[] = [
    { name: 'oslc.where', meaning: 'filters the records', sentBy: { npm: 'QueryBuilder.where/orWhere/whereIn/whereNotIn/whereLike/whereNull/whereNotNull; findAll, findPaginated, count, findDistinct with a where', java: 'ResourceSet.where' }, supported: [...filtering, 'children'] },
    { name: 'oslc.select', meaning: 'the attributes, children and related values of each record', sentBy: { npm: 'QueryBuilder.select, getById/findById, findAll with a select; SchemaService.getObjectStructureSchema/getSchema (on jsonschemas)', java: 'ResourceSet.select' }, supported: [...readsRecords, 'schema', 'action'], refused: 'a write answers what the properties header names', refusedOn: writes },
    { name: 'oslc.properties', meaning: 'as oslc.select', sentBy: { npm: 'ResourceFetch.properties', java: 'ResourceSet.fetchMember, Resource.load with properties' }, supported: [...readsRecords, 'action'], refused: 'a write answers what the properties header names',
        // Only one of the two is read: with both, the other would be ignored.
        check: (_value, _request, query) => (query['oslc.select'] === undefined ? undefined : 'oslc.properties and oslc.select say the same thing; send one of them')
    },
    { name: 'oslc.orderBy', meaning: 'the order of the records', sentBy: { npm: 'QueryBuilder.orderBy', java: 'ResourceSet.orderBy' }, supported: ['page', 'genreport', 'lookup', 'children'], refused: 'distinct values come in their order, groups in gbsortby\'s', refusedOn: ['distinct', 'groups'] },
    { name: 'oslc.pageSize', meaning: 'records per page', sentBy: { npm: 'QueryBuilder.page/pageSize, findPaginated', java: 'ResourceSet.pageSize' }, supported: [...paged, 'attachments'] },
    { name: 'pageno', meaning: 'the page to answer', sentBy: { npm: 'QueryBuilder.page, OslcPaginatedResult.nextPage/previousPage/goToPage', java: 'ResourceSet.nextPage/previousPage (the hrefs of responseInfo)' }, supported: [...paged, 'attachments'] },
    {
        name: 'oslc.paging', meaning: 'page the collection (true)', sentBy: { npm: 'QueryBuilder.withPaging', java: 'ResourceSet.paging(true)' }, supported: paged,
        check: (value) => (isOn(value) ? undefined : 'collections are always paged (oslc.pageSize, else the structure\'s page size); oslc.paging=false is not carried out')
    },
    { name: 'collectioncount', meaning: 'totalCount and totalPages in responseInfo', sentBy: { npm: 'QueryBuilder.withCount, findPaginated, count', java: 'every URI a ResourceSet builds (fetch, create, sync, bulk, groupBy)' }, supported: [...paged, 'attachments'], inert: ['create', 'sync', 'bulk', 'distinct', 'groups'], check: isFlag('collectioncount') },
    { name: 'count', meaning: 'only the totalCount', sentBy: { java: 'ResourceSet.totalCount(true)' }, supported: paged, check: isFlag('count') },
    { name: 'savedQuery', meaning: 'a saved query of the structure (apimeta lists them)', sentBy: { npm: 'QueryBuilder.savedQuery, findBySavedQuery', java: 'ResourceSet.savedQuery' }, supported: filtering },
    { name: 'savedquery', meaning: 'as savedQuery', sentBy: {}, supported: filtering, check: (_value, _request, query) => bothSpellings(query, 'savedQuery', 'savedquery') },
    { name: 'sqp:', meaning: 'sqp:NAME, a parameter of the saved query', sentBy: { java: 'ResourceSet.savedQuery with parameters (SavedQuery)' }, supported: filtering, check: (_value, request, query) => savedQueryParameter('sqp:', request, query) },
    { name: 'oslc.searchTerms', meaning: 'words to find in the search attributes', sentBy: { npm: 'QueryBuilder.withSearchTerms', java: 'ResourceSet.hasTerms' }, supported: filteringChildren },
    {
        name: 'searchAttributes', meaning: 'the attributes oslc.searchTerms looks in', sentBy: { java: 'ResourceSet.searchAttributes' }, supported: filteringChildren,
        check: (_value, _request, query) => (query['oslc.searchTerms'] === undefined ? 'searchAttributes says where oslc.searchTerms looks, and the request sends no oslc.searchTerms' : undefined)
    },
    { name: 'opmodeor', meaning: 'the terms of oslc.where are or-ed', sentBy: { npm: 'QueryBuilder.useOrLogic' }, supported: filteringChildren, check: isFlag('opmodeor') },
    { name: 'opmode', meaning: 'opmode=or: as opmodeor', sentBy: { npm: 'QueryBuilder.opMode' }, supported: filteringChildren },
    { name: 'tlrange', meaning: 'a timeline range of tlattribute', sentBy: { npm: 'QueryBuilder.whereTimelineRange' }, supported: filteringChildren },
    { name: 'tlattribute', meaning: 'the date attribute of tlrange', sentBy: { npm: 'QueryBuilder.whereTimelineRange' }, supported: filteringChildren },
    { name: 'distinct', meaning: 'the distinct values of an attribute', sentBy: { npm: 'QueryBuilder.distinct, findDistinct' }, supported: ['distinct'] },
    { name: 'gbcols', meaning: 'group-by columns and aggregates', sentBy: { npm: 'QueryBuilder.groupBy', java: 'Aggregation.groupByOn/count/sumOn/…' }, supported: ['groups'] },
    { name: 'gbfilter', meaning: 'a where over the groups (HAVING)', sentBy: { java: 'Aggregation.having' }, supported: ['groups'] },
    { name: 'gbsortby', meaning: 'the order of the groups', sentBy: { npm: 'QueryBuilder.groupBySort', java: 'Aggregation.sortBy' }, supported: ['groups'] },
    { name: 'gbrange', meaning: 'ranges of a group-by column', sentBy: { npm: 'QueryBuilder.groupByRange' }, supported: ['groups'] },
    { name: 'stablepaging', meaning: 'keyset pages that neither repeat nor skip rows', sentBy: { npm: 'QueryBuilder.withStablePaging', java: 'ResourceSet.stablePaging' }, supported: paged, check: isFlag('stablepaging') },
    {
        name: 'stableId', meaning: 'the signed cursor of a stable nextPage', sentBy: { npm: 'following nextPage', java: 'ResourceSet.nextPage' }, supported: paged,
        check: (_value, _request, query) => stablePaging(query)
    },
    { name: 'stableid', meaning: 'as stableId', sentBy: {}, supported: paged, check: (_value, _request, query) => bothSpellings(query, 'stableId', 'stableid') ?? stablePaging(query) },
    { name: '_dropnulls', meaning: '0: render null attributes too', sentBy: { npm: 'QueryBuilder.dropNulls, ResourceFetch.dropNulls' }, supported: [...readsRecords, ...answersRecord], check: isFlag('_dropnulls') },
    { name: 'ignorecollectionref', meaning: 'no *_collectionref links to child collections', sentBy: { npm: 'QueryBuilder/ResourceFetch/ResourceCreate/ResourceUpdate.ignoreCollectionRef' }, supported: [...readsRecords, ...answersRecord], check: isFlag('ignorecollectionref') },
    { name: 'relativeuri', meaning: 'hrefs without scheme and host', sentBy: { npm: 'QueryBuilder/ResourceFetch/ResourceCreate/ResourceUpdate.relativeUri' }, supported: hrefs, refused: 'this answer has no hrefs', check: isFlag('relativeuri') },
    {
        name: 'lean', meaning: '1: JSON without namespace prefixes', sentBy: { npm: 'every request (HttpClient lean mode, the default)', java: 'MaximoConnector.connect with Options.lean (GET {home}?&lean=1)' }, supported: all,
        // IBM's Java client posts its form login to `{home}?&lean=1/j_security_check` (see plugins/auth).
        check: (value, request) => (isOn(request.route.settings.id?.startsWith('auth.formLoginQuery') ? value.replace(/\/j_security_check$/, '') : value) ? undefined : 'Osprey answers only the lean JSON form; the namespaced form (lean=0: rdfs:member, spi:…) is not served')
    },
    { name: '_', meaning: 'a cache buster: asks nothing of the server, which caches no answer', sentBy: {}, supported: all },
    { name: 'apikey', meaning: 'an API key', sentBy: {}, supported: authenticated, refused: 'this route takes no login' },
    { name: '_lid', meaning: 'the user of a login', sentBy: {}, supported: authenticated, refused: 'this route takes no login' },
    { name: '_lpwd', meaning: 'the password of a login', sentBy: {}, supported: authenticated, refused: 'this route takes no login' },
    { name: 'action', meaning: 'an action to run', sentBy: { npm: 'ResourceService.action/webMethod/workflow/globalAction/listReports/generateReport; ResourceFetch/ResourceCreate/ResourceUpdate.action; BaseMaximoService.actionOnEndpoint', java: 'Resource.invokeAction' }, supported: ['listreports', 'genreport', 'action', 'globalaction', 'bulk', 'service'] },
    { name: 'reportname', meaning: 'the report genreport renders', sentBy: { npm: 'ResourceService.generateReport' }, supported: ['genreport'] },
    { name: 'reportformat', meaning: 'pdf, csv or json', sentBy: { npm: 'ResourceService.generateReport' }, supported: ['genreport'] },
    { name: 'attachment', meaning: '1: each record of the report lists its attached documents (IBM\'s guide, report/BIRT.mdx)', sentBy: {}, supported: ['genreport'], check: isFlag('attachment') },
    { name: 'bom', meaning: '1: a CSV report starts with a UTF-8 byte-order mark (0: without; by default as the report\'s YAML says)', sentBy: {}, supported: ['genreport'], check: isFlag('bom') },
    {
        name: 'app', meaning: 'the application whose signature options permission/allowedappoptions lists', sentBy: { npm: 'PermissionService.getAllowedAppOptions' }, supported: ['permission'],
        // The other permission questions take no application.
        check: (_value, request) => (request.route.settings.id?.startsWith('info.allowedAppOptions.') ? undefined : 'it names the application of permission/allowedappoptions, and this question takes none')
    },
    {
        name: 'setupdata', meaning: 'the values of a new record (newmbo) a lookup lists for', sentBy: {}, supported: ['lookup'],
        check: (_value, request) => (request.params.id === 'newmbo' ? undefined : 'setupdata gives the values of a new record, on a newmbo lookup (…/newmbo/getlist~attr)')
    },
    { name: 'properties', meaning: 'the attributes a write answers with (as the header)', sentBy: { npm: 'ResourceService.action/globalAction with return properties' }, supported: answersRecord, refused: 'reads select with oslc.select', refusedOn: readsRecords, check: sameAsHeader('properties', (query, sent) => query.trim() === sent.trim()) },
    {
        name: 'allornothing', meaning: '1: the whole bulk in one transaction (as the header)', sentBy: {}, supported: ['bulk'],
        check: (value, request) => isFlag('allornothing')(value) ?? sameAsHeader('allornothing', (query, sent) => flagOf(query) === flagOf(sent))(value, request)
    },
    {
        name: 'inlinedoc', meaning: '1: a record\'s documents (doclinks) in the record as an array, files with their bytes in base64 (documentdata)', sentBy: { npm: 'QueryBuilder.inlineDoc, ResourceFetch.inlineDoc' }, supported: ['page', 'member'],
        refused: 'documents are inlined in records read by a collection or member GET', check: isFlag('inlinedoc')
    },
    {
        name: 'ignorers', meaning: 'records without _rowstamp (the record\'s and its rows\'); it shapes the answer only: a write still checks the _rowstamps its body sends and If-Match', sentBy: { npm: 'ignoreRowstamp (QueryBuilder, ResourceFetch, ResourceCreate, ResourceUpdate)' },
        supported: [...readsRecords, ...answersRecord], refused: 'a delete answers no record', refusedOn: ['delete'],
        check: isFlag('ignorers')
    },
    { name: 'ignorekeyref', meaning: 'records without href and localref', sentBy: { npm: 'ignoreKeyRef (QueryBuilder, ResourceFetch, ResourceCreate, ResourceUpdate)' }, supported: [], refused: 'hrefs are always rendered' },
    {
        name: 'addschema', meaning: 'the JSON schema of the members as selected, in responseInfo.schema', sentBy: { npm: 'QueryBuilder.addSchema, ResourceFetch.addSchema, SchemaService.getResourceWithSchema' }, supported: paged,
        refused: 'Maximo inlines the schema in a collection\'s responseInfo, which this answer has not; {home}/jsonschemas/{os}?oslc.select=… answers the schema of a selection', check: isFlag('addschema')
    },
    { name: 'geometryformat', meaning: 'another format of geometry data', sentBy: { npm: 'QueryBuilder.geometryFormat, ResourceFetch.geometryFormat' }, supported: [], refused: 'there are no geometry (spatial) attributes' },
    {
        name: 'internalvalues', meaning: 'the internal value of each synonym-domain attribute beside it ({attr}_maxvalue)', sentBy: { npm: 'internalValues (QueryBuilder, ResourceFetch, ResourceCreate, ResourceUpdate)' },
        supported: [...readsRecords, ...answersRecord], refused: 'it adds to records, and this answer has none', check: isFlag('internalvalues')
    },
    { name: 'checkesig', meaning: 'answer BMXAA9766E when an e-signature attribute changes', sentBy: { npm: 'QueryBuilder.checkEsig, ResourceFetch.checkEsig' }, supported: [], refused: 'electronic signatures are not served' },
    { name: 'os', meaning: 'the object structures (comma-separated names) an OpenAPI document holds', sentBy: {}, supported: ['oas'] },
    { name: 'module', meaning: 'the OpenAPI document of a Maximo module\'s structures', sentBy: {}, supported: [], refused: 'structures belong to no modules here; os= names the structures a document holds' },
    { name: 'includeactions', meaning: 'the common actions of every structure in the OpenAPI document', sentBy: {}, supported: [], refused: 'the document holds the actions a structure answers (action=NAME on its routes) always; there are no common ones to add' },
    { name: 'addinternal', meaning: 'the internal APIs in the OpenAPI document', sentBy: {}, supported: [], refused: 'Osprey has no internal APIs: the document holds every route it serves' },
    { name: 'primary', meaning: 'only the primary APIs in the OpenAPI document', sentBy: {}, supported: [], refused: 'Osprey ranks no APIs; os= narrows the document to named structures' },
    { name: '_tenantcode', meaning: 'the tenant of a multi-tenant server', sentBy: { java: 'MaximoConnector.connect and disconnect with Options.mt(true)' }, supported: [], refused: 'Osprey serves one tenant' }
];

export const requestHeaders: readonly Known[] = [
    {
        name: 'x-method-override', meaning: 'the method a POST stands for: PATCH, MERGE, PUT, DELETE on a record; SYNC, BULK on a collection', sentBy: { npm: 'ResourceService.update/merge/sync/executeBulkOperation/action (PATCH, SYNC, BULK); AutoscriptService (EXECUTE, on script routes Osprey does not serve)', java: 'MaximoConnector.update/merge (PATCH), sync/mergeSync (SYNC), bulk (BULK)' },
        supported: [...writes, 'service', 'docdelete'], refused: 'it is read on writes to records and collections',
        check: (value, request) => (request.raw.req.method !== 'POST' ? `x-method-override is read on a POST, and this request is a ${String(request.raw.req.method)}` : serviceOverride(value, request))
    },
    {
        name: 'patchtype', meaning: 'MERGE: keep the children the body leaves out', sentBy: { npm: 'ResourceService.merge/sync, ResourceUpdate.useMergePatch/useUpdatePatch (MERGE, UPDATE)', java: 'MaximoConnector.merge, mergeSync (MERGE)' }, supported: ['update', 'sync'],
        check: (value) => (['MERGE', 'UPDATE'].includes(value.trim().toUpperCase()) ? undefined : `patchtype is MERGE or UPDATE, not ${value}`)
    },
    { name: 'properties', meaning: 'the attributes a write answers with', sentBy: { npm: 'createRecord/updateRecord/mergeRecord, ResourceCreate/ResourceUpdate.returnProperties', java: 'MaximoConnector.create/update/merge/sync/mergeSync with properties' }, supported: answersRecord, refused: 'reads select with oslc.select', refusedOn: readsRecords },
    {
        name: 'transactionid', meaning: 'a write made once, whatever the retries', sentBy: { npm: 'ResourceCreate/ResourceUpdate/ResourceDelete.withTransactionId' }, supported: [...writes, 'apitoken'], refused: 'it makes a write happen once; this request writes nothing',
        // Recorded as sent, and a bulk's items as ID#n: an id must fit the column with that suffix, and `#` is
        // the bulk's, so that no single write's id can be taken for a bulk item's.
        check: (value) => (value.length > 200 ? `it is ${value.length} characters long; the limit is 200` : /[#\u0000-\u001f\u007f]/.test(value) ? 'it holds # or a control character; # separates a bulk\'s id from its item number' : undefined)
    },
    { name: 'x-allow-events', meaning: '0: no events for this write (there are none until actions come)', sentBy: { npm: 'ResourceCreate/ResourceUpdate/ResourceDelete.suppressEvents/allowEvents' }, supported: writes, refused: 'events come with writes' },
    { name: 'batcherror', meaning: '1: every attribute error of the record at once', sentBy: {}, supported: answersRecord, check: isFlag('batcherror') },
    { name: 'allornothing', meaning: '1: the whole bulk in one transaction', sentBy: { npm: 'BulkOperationBuilder.setAllOrNothing' }, supported: ['bulk'], check: isFlag('allornothing') },
    { name: 'if-match', meaning: 'the ETag the record must still have', sentBy: {}, supported: ['update', 'delete', 'action'], refused: 'a bulk item carries its _rowstamp; a sync or a read checks no ETag' },
    { name: 'x-public-uri', meaning: 'the public origin hrefs are built on', sentBy: { npm: 'withPublicUri (ResourceCreate, ResourceUpdate, ResourceDelete)', java: 'every request (Options public URI)' }, supported: all },
    { name: 'x-request-id', meaning: 'the id of the request in the log, echoed back', sentBy: {}, supported: all },
    { name: 'maxauth', meaning: 'user:password, base64', sentBy: { npm: 'user and password logins', java: 'Options.auth("maxauth")' }, supported: all },
    { name: 'authorization', meaning: 'Basic user:password', sentBy: { npm: 'user and password logins, MAS login', java: 'Options.auth("basic")' }, supported: all },
    { name: 'apikey', meaning: 'an API key', sentBy: { npm: 'AuthType.APIKEY' }, supported: credentialed, refused: formCredentials },
    { name: 'cookie', meaning: 'the session of a login', sentBy: { npm: 'the cookie jar after login', java: 'the cookies of connect' }, supported: all },
    { name: 'esigauth', meaning: 'the e-signature password', sentBy: { npm: 'header() (the client documents it)' }, supported: [], refused: 'electronic signatures are not served' },
    { name: 'esigreason', meaning: 'the reason of an e-signature', sentBy: { npm: 'header() (the client documents it)' }, supported: [], refused: 'electronic signatures are not served' },
    { name: 'slug', meaning: 'the file name of a new attachment (percent-encoded UTF-8 for other than ASCII)', sentBy: { java: 'MaximoConnector.createAttachment' }, supported: ['upload'] },
    { name: 'encslug', meaning: 'the file name of a new attachment, base64 of its UTF-8', sentBy: {}, supported: ['upload'] },
    { name: 'x-document-description', meaning: 'the description of a new attachment', sentBy: { java: 'MaximoConnector.createAttachment' }, supported: ['upload'] },
    { name: 'x-document-encdescription', meaning: 'the description of a new attachment, base64 of its UTF-8', sentBy: {}, supported: ['upload'] },
    { name: 'x-document-meta', meaning: 'the URL type and document type of a new attachment (FILE/Attachments)', sentBy: { java: 'MaximoConnector.createAttachment' }, supported: ['upload'] },
    { name: 'content-location', meaning: 'the address of a new URL attachment (x-document-meta: URL/…), sent with no body', sentBy: {}, supported: ['upload'] },
    { name: 'custom-encoding', meaning: 'base64: the body of an upload is the document in base64', sentBy: {}, supported: ['upload'] }
];

interface Entry {
    readonly known: Known;
    readonly supported: number;
    readonly accepted: number;
}

const mask = (list: readonly Use[], start = 0) => list.reduce((bitsSoFar, use) => bitsSoFar | bits[use], start);

const entries = (list: readonly Known[]): Map<string, Entry> => new Map(list.map((known) => [known.name, { known, supported: mask(known.supported), accepted: mask(known.inert ?? [], mask(known.supported)) }]));

const parameterTable = entries(queryParameters);
const headerTable = entries(requestHeaders);
// Names differ from a known one only in case: a hint, looked up on a miss only.
const byLowerCase = new Map(queryParameters.map((known) => [known.name.toLowerCase(), known.name]));
const sqp = parameterTable.get('sqp:')!;

const list = (known: Known) => known.supported.map((use) => useLabels[use]).join('; ');

const refusal = (kind: 'query parameter' | 'header', known: Known, use: Use): string => {

    if (!known.supported.length) {
        return `The ${kind} ${known.name} is not carried out by this server: ${known.refused}.`;
    }

    const why = known.refused && (known.refusedOn === undefined || known.refusedOn.includes(use)) ? `: ${known.refused}` : '';
    return `The ${kind} ${known.name} is not carried out on ${useLabels[use]}${why}. It is carried out on ${list(known)}.`;
};

const refused = (message: string) => maximoError('badRequest', message);

export const actionRefusal = (action: string): string => `The action ${action} is not carried out on this request, and nothing was done: an action runs on a record (GET or POST …/os/{os}/{id}?action=NAME), on a collection (GET or POST …/os/{os}?action=NAME) or on each item of a bulk (POST …/os/{os}?action=NAME with x-method-override: BULK).`;

// A name in no table: the report parameters of genreport, else refused.
const unknownParameter = (name: string, request: Hapi.Request, use: Use, query: Record<string, unknown>): string | undefined => {

    if (name.startsWith('sqp:')) {
        if (!(sqp.supported & bits[use])) {
            return refusal('query parameter', { ...sqp.known, name }, use);
        }

        const problem = savedQueryParameter(name, request, query);
        return problem && `The query parameter ${name} is refused: ${problem}.`;
    }

    if (use === 'genreport' && reportParameters(request, query).includes(name)) {
        return undefined;
    }

    // The arguments of a service method: its schema checks them, by name (src/services/dispatch.ts).
    if (use === 'service') {
        return undefined;
    }

    const known = byLowerCase.get(name.toLowerCase());
    const hint = known ? ` Parameter names are case-sensitive: did you mean ${known}?` : '';
    return `The query parameter ${name} is not one this server carries out on any route, so it is refused rather than ignored.${hint}`;
};

const reportParameters = (request: Hapi.Request, query: Record<string, unknown>): string[] => {

    const structure = request.server.app.osprey.registry.get(String(request.params.os));
    const report = structure?.def.reports.find((candidate) => candidate.name === lastText(query.reportname));
    return report?.where ? parameterNames(parseWhere(report.where, `report ${report.name}`)) : [];
};

// What a GET of a collection asks, as readCollection reads it: an action, else distinct, else gbcols, else a page.
const collectionUse = (query: Record<string, unknown>): Use => {

    if (query.action !== undefined) {
        const action = lastText(query.action);
        switch (action.toLowerCase()) {
            case 'listreports': return 'listreports';
            case 'genreport': return 'genreport';
            default: return 'globalaction';
        }
    }

    return query.distinct !== undefined ? 'distinct' : query.gbcols !== undefined ? 'groups' : 'page';
};

const collectionPostUse = (request: Hapi.Request, query: Record<string, unknown>): Use => {

    const override = request.headers['x-method-override'];
    const name = typeof override === 'string' ? override.toUpperCase() : '';
    // listreports and genreport by POST are read as their GET is, and refused as an action by name (resolve.ts).
    const report = query.action === undefined || name === 'BULK' ? undefined : collectionUse(query);
    return name === 'BULK' ? 'bulk' : report !== undefined ? report : name === 'SYNC' ? 'sync' : 'create';
};

// A record route with ?action= runs the action (a GET, a POST, or a POST with x-method-override: PATCH).
const recordUse = (route: Use, query: Record<string, unknown>): Use => ((route === 'member' || route === 'update') && query.action !== undefined ? 'action' : route);

// `unserved`: a route of a Maximo service Osprey does not provide (src/http/unserved.ts). It answers 501 whatever
// the request asks, so no parameter of it is carried out or ignored, and none is checked.
type RouteUse = Use | 'collection' | 'collectionPost' | 'unserved';

// Every route by its id (without the home suffix), as the routes' plugins declare them.
const routeUses: Readonly<Record<string, RouteUse>> = {
    'resources.query': 'collection',
    'resources.create': 'collectionPost',
    'resources.lookup': 'lookup',
    'resources.childLookup': 'lookup',
    'resources.read': 'member',
    'resources.update': 'update',
    'resources.replace': 'update',
    'resources.post': 'update',
    'resources.delete': 'delete',
    'resources.children': 'children',
    'resources.child': 'child',
    'info.home': 'info',
    'info.systeminfo': 'info',
    'info.whoami': 'info',
    'info.products': 'info',
    'info.license': 'info',
    'info.members': 'info',
    'info.member': 'info',
    'info.structures': 'info',
    'info.errorMessage': 'info',
    'info.mmi': 'info',
    'info.memberMetric': 'info',
    'info.mboSchema': 'info',
    'info.allowedApps': 'permission',
    'info.allowedAppOptions': 'permission',
    'info.osAuthorized': 'permission',
    'info.osAuthorizedUnnamed': 'permission',
    'info.apimeta': 'info',
    'info.apimetaOne': 'info',
    'info.jsonschema': 'schema',
    'auth.login': 'login',
    'auth.loginPost': 'login',
    'auth.formLogin': 'formlogin',
    'auth.formLoginQuery': 'formlogin',
    'auth.formLoginRoot': 'formlogin',
    'auth.logout': 'logout',
    'auth.logoutRoot': 'logout',
    'auth.logoutPost': 'logout',
    'auth.logoutRootPost': 'logout',
    'apikeys.get': 'apitoken',
    'apikeys.create': 'apitoken',
    'apikeys.revoke': 'apitoken',
    'auth.locks': 'loginlocks',
    'auth.liftUserLock': 'loginlocks',
    'auth.liftAddressLock': 'loginlocks',
    'health.check': 'health',
    'services.call': 'service',
    'attachments.list': 'attachments',
    'attachments.listOther': 'attachments',
    'attachments.upload': 'upload',
    'attachments.meta': 'document',
    'attachments.download': 'document',
    'attachments.delete': 'docdelete',
    'attachments.other': 'document',
    'oas.document': 'oas',
    'oas.structure': 'oas',
    'oas.other': 'oas',
    'oas.page': 'oaspage',
    ...Object.fromEntries(unservedRoutes.map((route) => [route.id, 'unserved' as const]))
};

// The use of a request on a route of the table; undefined on a route it does not know (one added after start) and
// on the routes of services not provided, which check nothing.
const useOf = (request: Hapi.Request, routes: ReadonlyMap<string, RouteUse>, query: Record<string, unknown>): Use | undefined => {

    const id = request.route.settings.id;
    const route = id === undefined ? undefined : routes.get(id);
    return route === 'collection' ? collectionUse(query) : route === 'collectionPost' ? collectionPostUse(request, query) : route === 'unserved' || route === undefined ? undefined : recordUse(route, query);
};

// Holds one request to the tables: every query parameter it sends, then every header of the table it sends.
// The writes whose body is JSON. A cross-site HTML form can post only form fields and text/plain without asking the
// browser's leave (CORS preflight), so a write that took those with a session cookie could be forged from another
// site's page; a body of any other type than JSON is refused with 415 before anything runs. The form login posts
// a form on purpose and checks where it comes from itself (plugins/auth/form.ts). Their routes take the body raw
// (jsonPayload, checked at start by routeTable), and it is read here, strictly (src/http/json-body.ts): every
// JSON body crosses this one place before its handler.
const jsonWrites = new Set<Use>(['create', 'sync', 'bulk', 'update', 'delete', 'apitoken', 'action', 'globalaction', 'service']);
const jsonRoutes = new Set<RouteUse>(['collectionPost', 'update', 'delete', 'apitoken', 'service']);

const jsonBody = (request: Hapi.Request, use: Use): void => {

    const payload = request.payload as unknown;
    if (!jsonWrites.has(use) || !Buffer.isBuffer(payload)) {
        return;
    }

    if (payload.length === 0) {
        (request as { payload: unknown }).payload = null;
        return;
    }

    const [mediaType, ...parameters] = String(request.headers['content-type'] ?? '').split(';');
    const type = mediaType!.trim().toLowerCase();
    if (type !== 'application/json' && !/^application\/[a-z0-9.+-]+\+json$/.test(type)) {
        throw maximoError('unsupportedMedia', `The body of ${useLabels[use]} is JSON, sent as Content-Type: application/json, not ${type || 'a body without a content type'}.`);
    }

    // JSON is UTF-8 (RFC 8259): a body said to be in another charset would be read as what it is not.
    const charset = parameters.map((parameter) => /^\s*charset\s*=\s*"?([^";\s]*)"?\s*$/i.exec(parameter)?.[1]).find((value) => value !== undefined);
    if (charset !== undefined && !/^utf-?8$/i.test(charset)) {
        throw maximoError('unsupportedMedia', `The body of ${useLabels[use]} is JSON in UTF-8; charset=${charset.slice(0, 40)} is not read: send it in UTF-8 (charset=utf-8, or no charset).`);
    }

    // hapi's types call the payload read-only; it is a plain property, and this is where it is made.
    (request as { payload: unknown }).payload = readJsonBody(payload);
};

export const checkRequest = (request: Hapi.Request, routes: ReadonlyMap<string, RouteUse>): void => {

    const query = (request.orig.query ?? request.query) as Record<string, unknown>;
    const use = useOf(request, routes, query);
    if (use === undefined) {
        return;
    }

    jsonBody(request, use);
    const bit = bits[use];
    for (const name in query) {
        if (name === '') {
            continue;                       // `?=x`: a value with no name asks nothing
        }

        const value = query[name];
        if (Array.isArray(value)) {
            throw refused(`The query parameter ${name} is sent ${value.length} times; send it once (only one value would be read).`);
        }

        const entry = parameterTable.get(name);
        if (!entry) {
            const message = unknownParameter(name, request, use, query);
            if (message !== undefined) {
                throw refused(message);
            }

            continue;
        }

        if (!(entry.accepted & bit)) {
            throw refused(name === 'action' ? actionRefusal(String(value)) : refusal('query parameter', entry.known, use));
        }

        const problem = entry.supported & bit ? entry.known.check?.(String(value), request, query) : undefined;
        if (problem !== undefined) {
            throw refused(`The query parameter ${name} is refused: ${problem}.`);
        }
    }

    const headers = request.headers;
    for (const name in headers) {
        const entry = headerTable.get(name);
        if (!entry) {
            continue;                       // transport headers (accept, content-type, …) are not this table's
        }

        if (!(entry.accepted & bit)) {
            throw refused(refusal('header', entry.known, use));
        }

        const problem = entry.known.check?.(String(headers[name]), request, query);
        if (problem !== undefined) {
            throw refused(`The header ${name} is refused: ${problem}.`);
        }
    }
};

// The routes' uses by full route id, checked when the server starts: a route the table does not know is a
// start-up error, so a new route cannot be served before its parameters are decided. The routes of user plugins
// (`external`) are theirs: the table does not hold them, and their requests are not checked against it.
export const routeTable = (server: Hapi.Server, external: (route: Hapi.RequestRoute) => boolean = () => false): Map<string, RouteUse> => {

    const routes = new Map<string, RouteUse>();
    for (const route of server.table()) {
        if (external(route)) {
            continue;
        }

        const id = route.settings.id;
        const home = (route.settings.app as { home?: string } | undefined)?.home;
        const base = id && home && id.endsWith(`.${home}`) ? id.slice(0, -home.length - 1) : id;
        const use = base === undefined ? undefined : routeUses[base];
        if (!use || !Object.hasOwn(routeUses, base!)) {
            throw new Error(`The route ${route.method.toUpperCase()} ${route.path} (id ${id ?? 'none'}) has no entry in the parameter table (src/http/parameters.ts).`);
        }

        // A JSON write's body is read by the gate, strictly, only if hapi hands it over unparsed.
        const payload = route.settings.payload;
        if (jsonRoutes.has(use) && (payload?.parse !== jsonPayload.parse || payload.output !== jsonPayload.output)) {
            throw new Error(`The route ${route.method.toUpperCase()} ${route.path} (id ${id}) takes a JSON body: its payload settings must be jsonPayload (src/http/json-body.ts).`);
        }

        routes.set(id!, use);
    }

    return routes;
};

// A request the router found no route for answers 404, except that an ?action= on a structure's path is refused
// by name (PATCH or DELETE of a collection, POST with x-method-override: PATCH to one, as clients send actions).
// A path that has routes, but none for the request's method, answers 405 naming the methods it has (a bare 404
// would say there is nothing there).
const unroutedAction = (request: Hapi.Request, h: Hapi.ResponseToolkit): Hapi.Lifecycle.ReturnValue => {

    const response = request.response;
    if (!('isBoom' in response) || !response.isBoom || response.output.statusCode !== 404 || request.route.settings.id !== undefined || (request.route.method as string) !== '_special') {
        return h.continue;
    }

    const action = request.query.action;
    const asAction = action !== undefined && /\/os\//i.test(request.path);
    const methods = asAction ? [] : servedMethods(request);
    if (!asAction && !methods.length) {
        return h.continue;
    }

    // An error returned here would skip the next onPreResponse steps (the Maximo error shape among them).
    const sent = request.method.toUpperCase();
    const { error, body } = errorAnswer(request, asAction ?
        refused(actionRefusal(lastText(action))) :
        maximoError('methodNotAllowed', `${sent} is not served on ${request.path.slice(0, 200)}; it answers ${methods.join(', ')}.`));
    const answer = h.response(body).code(error.output.statusCode);
    return methods.length ? answer.header('allow', methods.join(', ')) : answer;
};


// Whether a query parameter is one of the table's (a service method's arguments are the names outside it).
export const isTableParameter = (name: string): boolean => parameterTable.has(name) || name.startsWith('sqp:');

// Registers the gate: the route table is made at start; every request is checked before its handler.
export const parameterGate = (server: Hapi.Server, external: (route: Hapi.RequestRoute) => boolean): void => {

    let routes: ReadonlyMap<string, RouteUse> = new Map();
    server.ext('onPreStart', () => {

        routes = routeTable(server, external);
    });
    // With OSPREY_LOG=debug each decision is a line: the route and the parameters' names (never their values).
    const log = server.app.osprey.log;
    const decided = (request: Hapi.Request, decision: string, reason?: string) => {

        log('debug', { msg: 'parameter gate', requestId: request.app.requestId, route: request.route.settings.id ?? request.route.path, parameters: Object.keys(request.query), decision, reason });
    };

    // The cross-site rule (cross-site.ts) is checked here too, in the one step every route's request takes.
    server.ext('onPreHandler', (request, h) => {

        if (!logs(log, 'debug')) {
            checkRequest(request, routes);
            checkCrossSite(request);
            return h.continue;
        }

        try {
            checkRequest(request, routes);
            checkCrossSite(request);
        }
        catch (error) {
            decided(request, 'refused', (error as Error).message);
            throw error;
        }

        decided(request, 'passed');
        return h.continue;
    });
    server.ext('onPreResponse', unroutedAction);
};
