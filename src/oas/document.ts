import type { RegisteredAction } from '../actions/registry';
import { isAllowed, type Right } from '../auth/access';
import type { UserProfile } from '../auth/users';
import { reasonCodes } from '../errors/codes';
import type { Attribute, BusinessObject, Registry, Structure } from '../structures/registry';
import { operations, unlisted, type Answer, type OperationEntry } from './operations';
import { parameterComponents, parametersOf } from './parameters';
import { ref, schemaName, structureSchemas, type Schema } from './schemas';
import { mapInSlices, slicer, type Pause } from '../slices';


// The OpenAPI 3.1 document of this server as one user may use it (Maximo's {home}/oas): the routes of the route
// table, a structure's routes once per structure the user may read, each of them only where it answers (writes
// where the user holds a right that lets them, attachments where the structure has them, lookups where an
// attribute has a list of values).

/** A route of the table, as the document reads it: its path below the home (or below the context root). */
export interface ListedRoute {
    readonly method: string;
    readonly path: string;
    readonly id: string;
    readonly root: boolean;
    readonly plugin?: string;
}

export interface DocumentInput {
    readonly registry: Registry;
    readonly routes: readonly ListedRoute[];
    readonly contextRoot: string;
    readonly home: string;
    readonly version: string;
    readonly user: UserProfile;
    /** os=: the structures to hold (upper case); all the user may read when undefined. */
    readonly only?: ReadonlySet<string>;
    /** The actions a structure offers (`action=NAME`), as allowedactions lists them (src/actions/resolve.ts). */
    readonly actions: (structure: Structure) => readonly RegisteredAction[];
}

// The routes that run a record's actions, and those that run a collection's.
const recordActionRoutes = new Set(['resources.read', 'resources.update', 'resources.post']);
const collectionActionRoutes = new Set(['resources.query', 'resources.create']);

// The actions of a structure's route the user may run, as a sentence of the operation's description.
const actionsText = (input: DocumentInput, route: ListedRoute, structure: Structure | undefined): string => {

    const collection = collectionActionRoutes.has(route.id);
    if (!structure || (!collection && !recordActionRoutes.has(route.id))) {
        return '';
    }

    const runs = input.actions(structure).filter((action) => (action.spec.scope === 'collection') === collection && (action.spec.right === 'none' || isAllowed(input.user, structure, action.spec.right ?? 'actions')));
    return runs.length ? ` Its ${collection ? 'collection' : 'record'} actions (action=NAME): ${runs.map((action) => `${action.name}${action.spec.description ? ` (${action.spec.description})` : ''}`).join('; ')}.` : '';
};

type Operation = Record<string, unknown>;

const pathParameters: Readonly<Record<string, string>> = {
    id: 'The record\'s id: the last segment of its href (the base64 of its key values)',
    childid: 'The child row\'s id: the last segment of its href',
    docid: 'The document\'s id (doclinksid)',
    os: 'The object structure',
    mbo: 'The business object',
    code: 'A reason code (BMXAA…)',
    metric: 'The metric (it may hold a /)',
    name: 'The name',
    attr: 'The attribute whose values are listed'
};

const errorSchema: Schema = {
    type: 'object',
    required: ['Error'],
    properties: {
        Error: {
            type: 'object',
            required: ['message', 'reasonCode', 'statusCode'],
            properties: {
                message: { type: 'string', description: 'The reason code, then what went wrong' },
                reasonCode: { type: 'string', pattern: '^BMXAA\\d{4}[EWI]$' },
                statusCode: { type: 'string', description: 'The HTTP status, as a string' },
                errorattrname: { type: 'string', description: 'The attribute at fault' },
                errorobjpath: { type: 'string', description: 'The object of the attribute at fault' },
                extendedError: { type: 'object', properties: { moreInfo: { type: 'object', properties: { href: { type: 'string', format: 'uri' } } } } }
            }
        },
        attrerrors: { type: 'array', description: 'batcherror: 1: every attribute error of the record', items: { type: 'object', properties: { Error: { type: 'object' } } } }
    }
};

// One response per error status, its description listing the reason codes answered with it.
const errorResponses = (): Record<string, unknown> => {

    const byStatus = new Map<number, Set<string>>();
    for (const reason of Object.values(reasonCodes)) {
        const codes = byStatus.get(reason.status) ?? new Set<string>();
        codes.add(`${reason.code} (${reason.text})`);
        byStatus.set(reason.status, codes);
    }

    return Object.fromEntries([...byStatus].sort(([a], [b]) => a - b).map(([status, codes]) => [`E${status}`, {
        description: `Maximo's error shape. Reason codes: ${[...codes].join('; ')}`,
        content: { 'application/json': { schema: ref('MaximoError') } }
    }]));
};

const errorRef = (status: number) => ({ $ref: `#/components/responses/E${status}` });

const securitySchemes = {
    maxauth: { type: 'apiKey', in: 'header', name: 'maxauth', description: 'base64(user:password), as Maximo\'s maxauth header (the query parameters _lid and _lpwd carry the same login)' },
    basic: { type: 'http', scheme: 'basic', description: 'Authorization: Basic base64(user:password)' },
    apikey: { type: 'apiKey', in: 'header', name: 'apikey', description: 'An API key ({home}/apitoken/create)' },
    apikeyQuery: { type: 'apiKey', in: 'query', name: 'apikey', description: 'An API key as a query parameter' },
    session: { type: 'apiKey', in: 'cookie', name: 'osprey_session', description: 'The session cookie of a login (any credentialed request, {home}/login or the form login j_security_check)' }
};

const anyLogin = Object.keys(securitySchemes).map((name) => ({ [name]: [] }));

// The attributes of an object that answer a lookup: persistent, with a domain or a lookup whose structure the
// user may read (src/read/lookups.ts).
const listsValues = (input: DocumentInput, structure: Structure, attr: Attribute): boolean => {

    // The loaded YAML names only lookups it declares, and structures it has (src/structures/link.ts checks both).
    const lookup = attr.lookup ? structure.def.lookups[attr.lookup]! : { domain: attr.domain };
    if (!attr.persistent || (lookup.structure === undefined && lookup.domain === undefined)) {
        return false;
    }

    return lookup.structure === undefined || isAllowed(input.user, input.registry.get(lookup.structure)!, 'read');
};

const lookupAttributes = (input: DocumentInput, structure: Structure, object: BusinessObject): string[] => [...object.attributes.values()].filter((attr) => listsValues(input, structure, attr)).map((attr) => attr.name);

interface Expanded {
    readonly path: string;
    readonly structure?: Structure;
    /** The child the path names, for a child route. */
    readonly child?: string;
    readonly attrs?: readonly string[];
}

// A structure's route once for this structure, once per child where it names {child}; none where it would not answer.
const expand = (input: DocumentInput, route: ListedRoute, entry: OperationEntry, structure: Structure): Expanded[] => {

    if (!entry.rights!.some((right: Right) => isAllowed(input.user, structure, right)) || (route.path.includes('/doclinks') && !structure.root.attachments)) {
        return [];
    }

    const path = route.path.replace('{os}', structure.id);
    const objects: [string | undefined, BusinessObject][] = path.includes('{child}') ? [...structure.root.children.values()].map((child) => [child.name, child.object]) : [[undefined, structure.root]];
    return objects.flatMap(([child, object]) => {

        const concrete = child === undefined ? path : path.replace('{child}', child);
        if (!concrete.includes('{attr}')) {
            return [{ path: concrete, structure, ...child === undefined ? {} : { child } }];
        }

        const attrs = lookupAttributes(input, structure, object);
        return attrs.length ? [{ path: concrete, structure, attrs, ...child === undefined ? {} : { child } }] : [];
    });
};

const answerContent = (answer: Answer, expanded: Expanded): Record<string, unknown> | undefined => {

    const { structure, child } = expanded;
    const schema = (): Schema => {

        switch (answer) {
            case 'record': return ref(schemaName(structure!));
            case 'collection': return ref(`${structure!.id}.collection`);
            case 'child': return ref(schemaName(structure!, [child!]));
            case 'children': return { type: 'object', properties: { href: { type: 'string', format: 'uri' }, member: { type: 'array', items: ref(schemaName(structure!, [child!])) }, responseInfo: { type: 'object' } } };
            default: return {};
        }
    };

    return answer === 'none' ? undefined : answer === 'file' ? { 'application/octet-stream': {} } : { 'application/json': { schema: schema() } };
};

const requestBody = (entry: OperationEntry, expanded: Expanded): Record<string, unknown> | undefined => {

    const { structure } = expanded;
    switch (entry.body) {
        case 'create': return {
            required: true,
            content: { 'application/json': { schema: { anyOf: [ref(`${schemaName(structure!)}.create`), { type: 'array', description: 'x-method-override: BULK: the items, each with _action (and its meta in _meta)', items: { type: 'object' } }] } } }
        };
        case 'update': return { content: { 'application/json': { schema: ref(schemaName(structure!)) } } };
        case 'json': return { content: { 'application/json': { schema: { type: 'object' } } } };
        case 'form': return { required: true, content: { 'application/x-www-form-urlencoded': { schema: { type: 'object', required: ['j_username', 'j_password'], properties: { j_username: { type: 'string' }, j_password: { type: 'string', format: 'password' } } } } } };
        case 'file': return { content: { 'application/octet-stream': {} } };
        default: return undefined;
    }
};

const methodsOf = (method: string): string[] => (method === '*' ? ['get', 'post'] : [method]);

const operationOf = (input: DocumentInput, route: ListedRoute, method: string, entry: OperationEntry | undefined, expanded: Expanded): Operation => {

    const path = expanded.path;
    const success = entry?.status ?? 200;
    const content = entry ? answerContent(entry.answer, expanded) : { 'application/json': { schema: {} } };
    const names = [...path.matchAll(/\{(\w+)\}/g)].map((match) => match[1]!);
    const structureIds = names.includes('os') ? readableStructures(input).map((structure) => structure.id) : [];
    const parameters: unknown[] = names.map((name) => {

        // {home}/oas/{os} answers api too: the whole document.
        const values = name === 'attr' ? expanded.attrs : name === 'os' ? (route.id === 'oas.structure' ? [...structureIds, 'api'] : structureIds) : undefined;
        return { name, in: 'path', required: true, description: pathParameters[name] ?? name, schema: values ? { type: 'string', enum: values } : { type: 'string' } };
    });
    const responses: Record<string, unknown> = { [success]: { description: entry?.summary ?? 'The answer', ...content ? { content } : {}, ...success === 201 ? { headers: { Location: { description: 'The new resource\'s href', schema: { type: 'string', format: 'uri' } } } } : {} } };
    if (entry?.answer === 'record' && success !== 200) {
        responses[200] = { description: 'The record, when the properties header names its attributes', content: answerContent('record', expanded) };
    }

    for (const status of [400, ...entry?.open ? [] : [401, 403], 404, 500]) {
        responses[status] = errorRef(status);
    }

    const subject = expanded.structure ? `${expanded.structure.name}${expanded.child ? ` ${expanded.child}` : ''}: ` : '';
    const body = entry && requestBody(entry, expanded);
    return {
        tags: [entry?.tag || expanded.structure?.name || (route.plugin ? `Plugin ${route.plugin}` : 'Other')],
        summary: `${subject}${entry?.summary ?? `${method.toUpperCase()} ${route.path}`}`,
        ...entry?.description ? { description: `${entry.description}${actionsText(input, route, expanded.structure)}` } : {},
        operationId: `${method}${path}`.replace(/[^A-Za-z0-9]+/g, '_'),
        'x-osprey-route': route.id,
        parameters: [...parameters, ...entry ? parametersOf(entry.uses, entry.without) : []],
        ...body ? { requestBody: body } : {},
        responses,
        ...entry?.open ? { security: [] } : {}
    };
};

// The structures the user may read: those a document may hold (and the values of an {os} in a path).
export const readableStructures = (input: DocumentInput): Structure[] => input.registry.list().filter((structure) => isAllowed(input.user, structure, 'read'));

type PathItems = Record<string, Record<string, unknown>>;

const addOperations = (input: DocumentInput, paths: PathItems, route: ListedRoute, entry: OperationEntry | undefined, expanded: Expanded) => {

    const item = paths[expanded.path] ??= route.root ? { servers: [{ url: `/${input.contextRoot}` }] } : {};
    for (const method of methodsOf(route.method)) {
        item[method] = operationOf(input, route, method, entry, expanded);
    }
};

// The routes of no structure: the home's, then those of the context root whose path is no home route's.
const commonPaths = (input: DocumentInput): PathItems => {

    const paths: PathItems = {};
    const mine = (id: string) => input.user.isAdmin || !operations[id]?.admin;
    for (const route of input.routes.filter((candidate) => !candidate.root && !unlisted.has(candidate.id) && !operations[candidate.id]?.rights && mine(candidate.id))) {
        addOperations(input, paths, route, operations[route.id], { path: route.path });
    }

    for (const route of input.routes.filter((candidate) => candidate.root && !unlisted.has(candidate.id) && !paths[candidate.path] && mine(candidate.id))) {
        addOperations(input, paths, route, operations[route.id], { path: route.path });
    }

    return paths;
};

// One structure's routes (under /os/{its name}/…, which no other route's path is) and schemas.
const structurePaths = (input: DocumentInput, structure: Structure): PathItems => {

    const paths: PathItems = {};
    for (const route of input.routes.filter((candidate) => !candidate.root && !unlisted.has(candidate.id) && operations[candidate.id]?.rights)) {
        const entry = operations[route.id]!;
        expand(input, route, entry, structure).forEach((expanded) => addOperations(input, paths, route, entry, expanded));
    }

    return paths;
};

// The members of a JSON object as text, without its braces: the document is put together from such parts.
const members = (object: Record<string, unknown>): string => JSON.stringify(object).slice(1, -1);

/** Keeps a part of the document as text: `(key, make) => text`, made once per key (src/oas/cache.ts). */
export type PartCache = (key: string, make: () => string) => string;

const uncached: PartCache = (_key, make) => make();

// The document as JSON text. Its parts depend on the home and the user's rights only (a part's key holds both),
// so a document of other structures (os=) is put together from parts already made: what costs is made once per
// structure and set of rights, whatever the structures a request names.
// Made in slices (src/slices.ts): the first document for a set of rights makes every structure's part, which at
// a few hundred structures held the event loop for one to two seconds; between two structures' parts other
// requests are answered.
export const oasText = async (input: DocumentInput, part: PartCache = uncached, rights = '', pause: Pause = slicer()): Promise<string> => {

    const key = `${input.home}|${rights}`;
    const structures = readableStructures(input).filter((structure) => !input.only || input.only.has(structure.name));
    const head = JSON.stringify({
        openapi: '3.1.0',
        info: {
            title: 'Osprey: the Maximo REST API',
            version: input.version,
            description: `The routes of this server under /${input.contextRoot}/${input.home}, with the object structures the signed-in user may read and, on each, the routes their rights answer. Every error answers Maximo's {"Error": {message, reasonCode, statusCode, …}}. A query parameter or header a route does not carry out is refused with a 400 naming it.`
        },
        servers: [{ url: `/${input.contextRoot}/${input.home}` }],
        security: anyLogin,
        tags: structures.map((structure) => ({ name: structure.name, description: `${structure.def.title ?? structure.name}${structure.def.description ? `: ${structure.def.description}` : ''}` }))
    }).slice(0, -1);
    const paths = [
        part(`paths|${key}`, () => members(commonPaths(input))),
        ...await mapInSlices(structures, (structure) => part(`paths|${key}|${structure.name}`, () => members(structurePaths(input, structure))), pause)
    ];
    const schemas = [
        members({ MaximoError: errorSchema }),
        ...await mapInSlices(structures, (structure) => part(`schemas|${structure.name}`, () => members(structureSchemas(structure, input.registry.domains()))), pause)
    ];
    const components = part('components', () => members({ parameters: parameterComponents(), responses: errorResponses(), securitySchemes }));
    return `${head},"paths":{${paths.filter(Boolean).join(',')}},"components":{"schemas":{${schemas.join(',')}},${components}}}`;
};
