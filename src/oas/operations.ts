import type { Right } from '../auth/access';
import type { Use } from '../http/parameters';
import { unservedRoutes } from '../http/unserved';


// What the OpenAPI document says of each route Osprey registers, by route id (without the home suffix). The
// document is made from the server's route table (server.table()), so a route is listed because it is registered;
// this catalog gives it its words. A first-party route missing here is listed with its path alone (and a test
// fails on it), so a new route cannot be forgotten by the document.

export type Body = 'create' | 'update' | 'json' | 'form' | 'file';
export type Answer = 'record' | 'collection' | 'child' | 'children' | 'json' | 'file' | 'none' | 'text';

export interface OperationEntry {
    readonly summary: string;
    readonly description?: string;
    /** The uses of the parameter table (src/http/parameters.ts) whose query parameters and headers the route takes. */
    readonly uses: readonly Use[];
    /** On a structure's route: the rights of which the caller needs one for the route to answer. */
    readonly rights?: readonly Right[];
    readonly body?: Body;
    readonly answer: Answer;
    /** The success status, 200 unless said. */
    readonly status?: number;
    /** No login (health, logouts, form logins). */
    readonly open?: boolean;
    /** For administrators only: not in another user's document (the routes answer them 403). */
    readonly admin?: boolean;
    readonly tag: string;
    /** Parameters of its uses the route refuses (the permission questions but allowedappoptions take no app=). */
    readonly without?: readonly string[];
}

const collectionUses: Use[] = ['page', 'distinct', 'groups', 'listreports', 'genreport', 'globalaction'];
const info = (summary: string, description?: string): OperationEntry => ({ summary, ...description ? { description } : {}, uses: ['info'], answer: 'json', tag: 'Information' });
const login = 'Logins and sessions';

export const operations: Readonly<Record<string, OperationEntry>> = {
    'resources.query': {
        summary: 'Query the records', uses: collectionUses, rights: ['read'], answer: 'collection', tag: '',
        description: 'A page of records (oslc.where, oslc.select, oslc.orderBy, oslc.pageSize, …); with distinct= the distinct values of an attribute; with gbcols= groups; with action=listreports or action=genreport the structure\'s reports; with action=NAME a collection action.'
    },
    'resources.create': {
        summary: 'Create a record (or sync, bulk, a collection action)', uses: ['create', 'sync', 'bulk', 'globalaction'], rights: ['insert', 'update', 'actions'], body: 'create', answer: 'record', status: 201, tag: '',
        description: 'Creates a record: 201 and its Location (with the properties header, the record). x-method-override: SYNC updates the record the keys name or creates it; x-method-override: BULK takes an array of items, each with _action and its own answer in _responsemeta.'
    },
    'resources.read': { summary: 'Read a record', uses: ['member', 'action'], rights: ['read'], answer: 'record', tag: '', description: 'The record (oslc.select names the attributes, children and related values); with action=NAME a record action.' },
    'resources.update': { summary: 'Update a record', uses: ['update', 'action'], rights: ['update', 'actions'], body: 'update', answer: 'record', status: 204, tag: '', description: 'patchtype: MERGE keeps the children the body leaves out; without it the child collections the body names are replaced. 204, or 200 with the record when the properties header names its attributes.' },
    'resources.replace': { summary: 'Update a record (PUT)', uses: ['update'], rights: ['update'], body: 'update', answer: 'record', status: 204, tag: '', description: 'As PATCH.' },
    'resources.post': {
        summary: 'Update, delete or run an action on a record (POST with x-method-override)', uses: ['update', 'delete', 'action'], rights: ['update', 'delete', 'actions'], body: 'update', answer: 'record', status: 204, tag: '',
        description: 'x-method-override: PATCH, MERGE or PUT updates; DELETE deletes; with action=NAME a record action.'
    },
    'resources.delete': { summary: 'Delete a record', uses: ['delete'], rights: ['delete'], answer: 'none', status: 204, tag: '', description: 'Deletes the record and its child rows.' },
    'resources.children': { summary: 'A child collection of a record', uses: ['children'], rights: ['read'], answer: 'children', tag: '' },
    'resources.child': { summary: 'One child row of a record', uses: ['child'], rights: ['read'], answer: 'child', tag: '' },
    'resources.lookup': { summary: 'The values an attribute may take (a lookup)', uses: ['lookup'], rights: ['read'], answer: 'json', tag: '', description: 'Of a record ({id}), or of a new record ({id} = newmbo, with setupdata).' },
    'resources.childLookup': { summary: 'The values an attribute of a child row may take', uses: ['lookup'], rights: ['read'], answer: 'json', tag: '' },
    'attachments.list': { summary: 'The record\'s documents', uses: ['attachments'], rights: ['read'], answer: 'json', tag: '' },
    'attachments.upload': { summary: 'Attach a document to the record', uses: ['upload'], rights: ['update'], body: 'file', answer: 'none', status: 201, tag: '', description: 'The body is the file as it is; slug (or encslug) names it, x-document-meta gives its URL type and document type.' },
    'attachments.meta': { summary: 'A document\'s meta', uses: ['document'], rights: ['read'], answer: 'json', tag: '' },
    'attachments.download': { summary: 'A document\'s bytes', uses: ['document'], rights: ['read'], answer: 'file', tag: '', description: 'Ranges are served.' },
    'attachments.delete': { summary: 'Delete a document', uses: ['docdelete'], rights: ['update'], answer: 'none', status: 204, tag: '' },
    'info.home': info('The API home: links to the information documents'),
    'info.systeminfo': info('The server: its version, runtime and database'),
    'info.whoami': info('The signed-in user\'s profile'),
    'info.products': info('The installed products'),
    'info.license': info('The license'),
    'info.members': info('The live server members (nodes)'),
    'info.member': info('A server member ({id}, or thisserver)'),
    'info.memberMetric': { ...info('A metric of a server member', 'The metrics of the Maximo Management Interface that Osprey measures ({metric} may hold a /).'), admin: true },
    'info.mmi': { ...info('The Maximo Management Interface'), admin: true },
    'info.structures': info('The object structures'),
    'info.errorMessage': info('The message of a reason code', 'Each error\'s extendedError.moreInfo names one.'),
    'info.apimeta': info('The object structures\' metadata'),
    'info.apimetaOne': info('An object structure\'s metadata'),
    'info.mboSchema': info('The JSON schema of a business object'),
    'info.jsonschema': { summary: 'The JSON schema of an object structure', uses: ['schema'], answer: 'json', tag: 'Information' },
    'info.allowedApps': { summary: 'The applications the user may use', uses: ['permission'], without: ['app'], answer: 'json', tag: 'Permissions' },
    'info.allowedAppOptions': { summary: 'The signature options of an application (app=)', uses: ['permission'], answer: 'json', tag: 'Permissions' },
    'info.osAuthorized': { summary: 'Whether the user may use an object structure', uses: ['permission'], without: ['app'], answer: 'json', tag: 'Permissions' },
    'info.osAuthorizedUnnamed': { summary: 'The object structures the user may use', uses: ['permission'], answer: 'json', tag: 'Permissions' },
    'oas.document': {
        summary: 'This OpenAPI document', uses: ['oas'], answer: 'json', tag: 'Information',
        description: 'OpenAPI 3.1, made from the loaded structures and the routes this server serves, holding only the structures (and the routes of each) the signed-in user may use; os= narrows it to named structures.'
    },
    'oas.structure': { summary: 'The OpenAPI document of one object structure', uses: ['oas'], answer: 'json', tag: 'Information' },
    'auth.login': { summary: 'Log in: the user\'s profile and a session cookie', uses: ['login'], answer: 'json', tag: login },
    'auth.loginPost': { summary: 'Log in (POST)', uses: ['login'], answer: 'json', tag: login },
    'auth.formLogin': { summary: 'Form login (j_username, j_password)', uses: ['formlogin'], body: 'form', answer: 'json', open: true, tag: login },
    'auth.formLoginQuery': { summary: 'Form login as IBM\'s Java client posts it ({home}?&lean=1/j_security_check)', uses: ['formlogin'], body: 'form', answer: 'json', open: true, tag: login },
    'auth.logout': { summary: 'Log out (GET, as both Maximo clients do)', uses: ['logout'], answer: 'none', open: true, tag: login },
    'auth.logoutPost': { summary: 'Log out', uses: ['logout'], answer: 'none', open: true, tag: login },
    // From the context root: listed where no home route has their path.
    'auth.formLoginRoot': { summary: 'Form login (j_username, j_password)', uses: ['formlogin'], body: 'form', answer: 'json', open: true, tag: login },
    'auth.logoutRoot': { summary: 'Log out (GET)', uses: ['logout'], answer: 'none', open: true, tag: login },
    'auth.logoutRootPost': { summary: 'Log out', uses: ['logout'], answer: 'none', open: true, tag: login },
    'auth.locks': { summary: 'The login locks (administrators)', admin: true, uses: ['loginlocks'], answer: 'json', tag: login },
    'auth.liftUserLock': { summary: 'Lift a user\'s login lock (administrators)', admin: true, uses: ['loginlocks'], answer: 'none', status: 204, tag: login },
    'auth.liftAddressLock': { summary: 'Lift an address\'s login lock (administrators)', admin: true, uses: ['loginlocks'], answer: 'none', status: 204, tag: login },
    'apikeys.get': { summary: 'Your API key, or a new one that never expires', uses: ['apitoken'], body: 'json', answer: 'json', tag: 'API keys' },
    'apikeys.create': { summary: 'A new API key ({"expiration": minutes}); the old one stops working', uses: ['apitoken'], body: 'json', answer: 'json', tag: 'API keys' },
    'apikeys.revoke': { summary: 'Revoke your API keys', uses: ['apitoken'], body: 'json', answer: 'none', status: 204, tag: 'API keys' },
    'health.check': { summary: 'Liveness and readiness (no login)', uses: ['health'], answer: 'json', open: true, tag: 'Information' },
    'services.call': {
        summary: 'Call a service method (action=wsmethod:{method})', uses: ['service'], body: 'json', answer: 'json', tag: 'Services',
        description: 'Arguments as query parameters (GET) or in a JSON object body (POST). A scalar answer comes as {"return": value}.'
    }
};

// Routes registered and not listed: the 501s of Maximo services Osprey does not provide (src/http/unserved.ts)
// answer no request; the catch-all routes of the attachments and of {home}/oas only refuse (a wrong method or
// path, named); the API page is a page, not the API.
// Routes that only refuse (a question asked without what it needs: checkosauthorized names its structure).
export const unlisted: ReadonlySet<string> = new Set(['info.osAuthorizedUnnamed', 'attachments.listOther', 'attachments.other', 'oas.other', 'oas.page', ...unservedRoutes.map((route) => route.id)]);
