// The package root (`main` in package.json): what a plugin author or an embedder may use, and all that the
// first-party plugins under plugins/ use of src/ (a lint rule holds them to it, eslint.config.js). Everything
// else under src/ and plugins/ is internal and may change without notice.
//
// The helpers come first and the server last: src/server.ts loads the first-party plugins, which load this
// module, so the names they use are defined before that happens whichever module is loaded first.

// ---- Errors: Maximo's JSON error shape

// Throws an error the server answers in Maximo's JSON error shape, with the status and code of a reason.
export { maximoError, type MaximoErrorData } from './errors/maximo-error';
// Any error as Maximo's answer (status and JSON body), as the server would answer it: for an item of a batch.
export { errorAnswer } from './errors/edge';
// The reasons maximoError accepts, with the Maximo code, HTTP status and default message of each.
export { reasonCodes, type ReasonName } from './errors/codes';
// The 501 of a Maximo service Osprey does not provide, naming the service and why; the routes of those services
// (the unserved plugin answers them) and the metrics of the management interface (MMI) Osprey does not measure.
export { notProvided, unservedRoutes, unservedMetric, type Unserved, type UnservedRoute } from './http/unserved';

// ---- Routes: paths, hrefs, the request's caller and structure

// Declares routes once for both API homes, /{contextRoot}/api/… and /{contextRoot}/oslc/….
export { homeRoutes, type HomeRoute } from './http/homes';
// The href of the API home a request came in on (honours x-public-uri and relativeuri=1), to build links on.
export { homeHref, linkHref } from './http/hrefs';
// A request header's value by name, the last one of a repeated header.
export { header } from './http/headers';
export { refuseCrossSite } from './http/cross-site';
export { returnPath } from './http/login-page';
// The content security policy a PDF (or anything the browser's own viewer shows) answers with, instead of the
// default every answer carries.
export { pdfContentSecurityPolicy } from './http/security-headers';
// A flag parameter or header as Osprey reads one: 1/true (or a bare name) on, 0/false off, anything else not a flag.
export { flag, flagOf } from './http/flags';
// The object structure a route's {os} parameter names, else Maximo's 404.
export { structureOf } from './http/structure';
// The signed-in user of a request behind Osprey's login (every route but those with `auth: false`).
export { userOf } from './http/caller';

// ---- Logins, sessions and rights

// The user of a login and the profile a request's credentials carry.
export type { UserProfile } from './auth/users';
// Whether a user holds a right (read, insert, update, delete, actions) on a structure, as its YAML `access` grants.
export { isAllowed, type Right } from './auth/access';
// The user and password a request sends (maxauth, Basic or _lid/_lpwd), without checking them.
export { passwordCredentials, type PasswordCredentials } from './auth/credentials';
// Checks a password (or an API key) as Osprey's login does, with its lockout after failed attempts.
export { loginsOf, refuseOtherLogins, type Logins } from './auth/scheme';
// The address a request comes from, as the login limits count it (X-Forwarded-For only behind OSPREY_TRUST_PROXY).
export { clientAddress } from './http/client-address';
// The session a request's cookie names, and the Set-Cookie value that sets (or, without a token, ends) one.
export { sessionToken, sessionCookieHeader } from './auth/credentials';

// ---- The OpenAPI documents ({home}/oas) and the page that browses them ({contextRoot}/oas3/api.html)

// The document a request asks for, as JSON text (the whole API, os= structures, or {home}/oas/{os}), and the refusal
// of any other path below {home}/oas.
export { openApiDocument, openApiStructure, openApiOther } from './oas/serve';
// The page's files (Swagger UI from swagger-ui-dist, and the page's own lines) and the content security policy they
// are served with.
export { pageFile as openApiPageFile, pageFileNames as openApiPageFiles, pageContentSecurityPolicy as openApiPagePolicy } from './oas/page';

// ---- Structures: the registry's shapes, for reading a structure as the YAML defines it

// The object-structure registry (`server.structures()`, `server.app.osprey.registry`) and the shapes it answers with.
export type { Registry, Structure, BusinessObject, Child, Attribute } from './structures/registry';
// A YAML domain (its values), as `registry.domains()` has them.
export type { DomainDef } from './structures/definition';
// Each Maximo type of an attribute (upper, aln, decimal, datetime, …): its JSON type, column family and length.
export { typeTable, type MaximoTypeName } from './structures/types';
// oslc.select read and planned against a business object, as a record route reads it.
export { parseSelect } from './read/parse/select';
export { planSelect, type SelectPlan, type SelectSettings } from './read/plan/select-plan';
// How a select's names resolve on a business object of this server (relations, secrets, the UI of _weblink).
export { selectSettings } from './read/plan/select-settings';
// The JSON schema of a structure (jsonschemas), of a business object (jsonmboschemas) and of a select's answer.
export { jsonSchema, mboSchema, selectionSchema } from './read/serialize/json-schema';

// ---- Data: models, transactions, writes

// The Objection model of each business object (children and YAML relations as relations): raw data access, no
// rules (no rights, owner rules, validation or rowstamps). `server.models()` is the same map.
export { modelsOf, relationName, boundModels, type ObjectModel } from './db/models';
// Where statements run (the pool's Db, or a transaction's), and a row as the database answers it.
export type { Db, Row } from './db/db';
// Runs work in one Osprey transaction with the models bound to its connection: `inTransaction(server, async
// ({ db, models }) => …)`, or `server.inTransaction(work)`. The models' queries (withGraphFetched and
// $relatedQuery included) see the transaction's rows and are undone with it. Inside, use only its db and models;
// after it ends they refuse every statement (an Error saying the transaction has ended).
export { inTransaction, type TransactionScope } from './decorations';
// Runs one write of a record route in one transaction, recording its transactionid header (idempotent retries).
export { runWrite, writeSettingsFor, type WriteSettings } from './write/transaction';
// A write's body as a record (a JSON object), else Maximo's 400.
export { recordBody } from './write/records';
// The checks of an API key's create input (userid, expiration, a supplied key), as MXAPIAPIKEY's create runs them.
export { keyInput } from './auth/api-key-create';
export type { WriteScope, WriteContext } from './write/context';

// ---- The record routes' pipelines: a request value in, plain answers out (no hapi request below the plugin)

// The value a record route's request becomes (plugins/resources/request.ts reads it); a plugin can build one.
export type { ResourceRequest, RenderFlags } from './request';
export type { ReadQuery } from './read/request';
export type { WriteOptions } from './write/request';
// Reads: a collection page (or its count, distinct values, groups, a report), a record, a child collection, a lookup.
export { readCollection, readMember, readChildren, type CollectionAnswer } from './read/records';
export { readLookup } from './read/lookups';
// Writes, each in one transaction, rights checked before it opens.
export { createRecord, updateRecord, syncRecord, removeRecord, type WriteOutcome } from './write/records';
export { bulkWrite, type BulkResult } from './write/bulk';
export type { WriteKind } from './write/rights';
// After-commit hooks: what each committed write transaction of a server wrote, where events attach.
export { onCommit, type Commit, type CommittedWrite, type CommittedAction, type CommitSubscriber } from './write/after-commit';
export type { AttributeChange, ChildChange } from './write/changes';

// ---- Actions: record and collection actions, web methods (issue 35)

// What an action's handler is given, the engine writes it makes, and what it registers (server.registerAction).
export type { ActionCall, EngineWrites, RecordRef } from './actions/call';
export type { ActionSpec, RegisteredAction, ActionKind } from './actions/registry';
// Runs `?action=NAME` of a request value (a record's with req.id, else its collection's): what the routes call.
export { runAction, type ActionOutcome } from './actions/dispatch';
// A bulk with ?action=: the action on each item's record, each item answered in order.
export { bulkAction, type BulkActionResult } from './actions/bulk';
// What a handler of non-persistent attributes is given (`server.onAttributeWrite(object, attributes, handler)`):
// the written row, the values the body sent, the write's transaction and its engine writes.
export type { AttributeWrite, AttributeWriteHandler } from './write/attribute-writes';
// Report renderers a YAML report names as its `handler` (server.registerReportRenderer): what one is given and answers.
export type { ReportCall, ReportRendererSpec, RenderedReport, RegisteredRenderer } from './reports/renderers';
// A document as a report lists it with attachment=1 (ReportCall.documents, the JSON report's `attachments`).
export type { ReportAttachment } from './reports/attachments';
// A computed attribute a plugin gives the value of (server.registerComputed).
export type { ComputedSpec } from './structures/computed';

// Joi, as Osprey validates with it: an action's `schema` (and a service method's) is a Joi schema, and a plugin
// outside the repository need not install its own copy.
export { default as Joi } from 'joi';

// ---- Attachments (doclinks): the documents of a record (issue 36)

// What an attachment route's request becomes, and the engine's answer to each route: the list, a document's meta,
// its bytes (a stream, ranges too), an upload from a body stream, a delete.
export { attachmentMeta, deleteAttachment, downloadAttachment, listAttachments, uploadAttachment, uploadLink, type AttachmentRequest, type DownloadAnswer } from './attachments/attachments';
// A file name as an upload sends it (slug: percent-encoded UTF-8 or raw), checked; a request's media type.
export { checkDescription, checkFileName, checkLink, checkTitle, decodedName, docTypePattern, documentType, headerText } from './attachments/names';

// ---- Service endpoints and system properties

// The services of {home}/service/{name}?action=wsmethod:{method}: `server.registerService(name, spec)` adds one
// (its methods, each with a Joi schema of its arguments and the right it needs); callService is the route's handler.
export { callService } from './services/dispatch';
export type { Services, ServiceSpec, ServiceMethod, ServiceCall, ServiceRight, RegisteredService, RegisteredMethod } from './services/registry';
// System properties, kept in osprey_property for every node: `server.declareProperty(name, spec)` declares one,
// `server.property(name)` reads its value; the system service reads and sets them. propertyText checks a value
// against a type and gives the text that is stored and answered.
export { propertyText, type Properties, type PropertySpec, type PropertyType, type PropertyValue, type DeclaredProperty } from './services/properties';
// The payload settings of a route whose JSON body the parameter gate reads strictly (src/http/json-body.ts).
export { jsonPayload } from './http/json-body';

// ---- Running: housekeeping and the cluster

// Runs a purge of outlived rows once the server has started and then periodically, until it stops.
export { purgeWhileRunning } from './housekeeping';
// A live server node (`server.app.osprey.members.list()`).
export type { Member } from './cluster/members';
// What a plugin reads from `server.app.osprey` and `request.auth.credentials` (importing them also types both).
export type { Osprey, Credentials } from './context';

// ---- Composing a server

// Every setting of the server (src/config.ts), and the check that fills in the defaults of a partial set.
export { validateOptions, type OspreyOptions } from './config';
// Composes a ready (not yet started) Osprey server; `plugins` adds hapi plugins after the built-in features.
export { createServer, type ServerSetup } from './server';
// The application as a hapi plugin, and the options it is registered with, for composing your own hapi server.
export { app, type AppOptions } from './app';
