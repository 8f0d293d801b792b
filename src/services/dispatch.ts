import type * as Hapi from '@hapi/hapi';

import { maximoError } from '../errors/maximo-error';
import { userOf } from '../http/caller';
import { isTableParameter } from '../http/parameters';
import { formatDatetime } from '../structures/types';
import { badArgument, noAction, noMethod, noService, notAllowed, notWebMethod } from './errors';
import type { RegisteredMethod, RegisteredService } from './registry';


// A call of a service endpoint: {home}/service/{name}?action=wsmethod:{method}, by GET (arguments in the query)
// or POST (arguments in a JSON object body, and in the query too). The parameter gate has refused every query
// parameter of its table that a service call does not carry out; the names it does not know are the arguments,
// which the method's schema checks here. An argument sent both in the query and in the body is refused: neither
// would be read silently in place of the other.

const webMethod = 'wsmethod:';

// The method the client sent: a POST with x-method-override: PATCH (the npm client's actionOnEndpoint with a body)
// is routed as a PATCH by the record routes' override (plugins/resources), and is a POST here.
// A HEAD is a GET whose body is not sent (hapi answers it from the GET route).
const sentMethod = (request: Hapi.Request): string => {

    const method = String(request.raw.req.method).toUpperCase();
    return method === 'HEAD' ? 'GET' : method;
};

const serviceOf = (request: Hapi.Request): RegisteredService => {

    const services = request.server.app.osprey.services;
    const name = String(request.params.name);
    const service = services.get(name);
    if (!service) {
        throw noService(name, services.names());
    }

    return service;
};

const methodOf = (request: Hapi.Request, service: RegisteredService): RegisteredMethod => {

    const methods = [...service.methods.keys()];
    // The gate has refused a repeated parameter: action is one string, if any.
    const text = request.query.action as string | undefined;
    if (!text) {
        throw noAction(service.name, methods);
    }

    if (!text.toLowerCase().startsWith(webMethod)) {
        throw notWebMethod(text, service.name);
    }

    const name = text.slice(webMethod.length);
    const method = service.methods.get(name);
    if (!method) {
        throw noMethod(name, service.name, methods);
    }

    return method;
};

// The arguments the request sends, in an object without a prototype: the query's names outside the gate's
// table, then the body's.
const argumentsOf = (request: Hapi.Request, service: RegisteredService, method: RegisteredMethod): Record<string, unknown> => {

    const args = Object.create(null) as Record<string, unknown>;
    const query = request.query as Record<string, unknown>;
    for (const name of Object.keys(query)) {
        if (name !== '' && !isTableParameter(name)) {
            args[name] = query[name];
        }
    }

    // hapi reads no body of a GET: one sent would go unread.
    if (sentMethod(request) === 'GET') {
        if (Number(request.headers['content-length'] ?? 0) > 0) {
            throw maximoError('badRequest', 'A GET of a service method sends its arguments in the query; a POST sends them in a JSON object body.');
        }

        return args;
    }

    // The gate has read the body of the POST: JSON, or null when it is empty.
    const body = request.payload as unknown;
    if (body === null) {
        return args;
    }

    if (typeof body !== 'object' || Array.isArray(body)) {
        throw maximoError('badRequest', `The body of a call of ${service.name}.${method.name} is a JSON object of its arguments, not ${Array.isArray(body) ? 'an array' : typeof body}.`);
    }

    for (const [name, value] of Object.entries(body)) {
        if (Object.hasOwn(args, name)) {
            throw badArgument(service.name, method.name, name, 'it is sent both in the query and in the body; send it once');
        }

        args[name] = value;
    }

    return args;
};

const checkedArguments = (service: RegisteredService, method: RegisteredMethod, args: Record<string, unknown>): Record<string, unknown> => {

    const declared = method.arguments;
    for (const name of Object.keys(args)) {
        if (!declared.includes(name)) {
            throw badArgument(service.name, method.name, name, `${service.name}.${method.name} takes ${declared.length ? `the arguments ${declared.join(', ')}` : 'no arguments'}`);
        }
    }

    if (!method.schema) {
        return args;
    }

    // Joi's defaults (the first error, converted values), as actions take them (src/actions/dispatch.ts payloadOf).
    const { value, error } = method.schema.validate(args);
    if (error) {
        const detail = error.details[0]!;
        throw badArgument(service.name, method.name, detail.path.join('.'), detail.message);
    }

    return Object.assign(Object.create(null) as Record<string, unknown>, value);
};

// Maximo answers a method's scalar as {"return": value}, and an object or a list as it is.
const answer = (h: Hapi.ResponseToolkit, result: unknown): Hapi.ResponseObject => {

    if (result === undefined) {
        return h.response().code(200);
    }

    if (result instanceof Date) {
        return h.response({ return: formatDatetime(result) });
    }

    if (result === null || typeof result === 'string' || typeof result === 'number' || typeof result === 'boolean') {
        return h.response({ return: result });
    }

    // Bytes and streams are no JSON, though JSON.stringify makes something of a Buffer: hapi would send them raw.
    if (typeof result === 'object' && (ArrayBuffer.isView(result) || result instanceof ArrayBuffer || typeof (result as { pipe?: unknown }).pipe === 'function')) {
        throw new Error('A service method answered bytes or a stream, which is no JSON value.');
    }

    if (typeof result === 'object') {
        // Tried as JSON here, before hapi makes it into JSON as it sends: a value that is none (a BigInt, a cycle)
        // is then an error of the request (logged, a 500 in Maximo's shape), not a failure of the transmission.
        try {
            JSON.stringify(result);
        }
        catch (error) {
            throw new Error(`A service method answered a result that is no JSON: ${(error as Error).message}`);
        }

        return h.response(result);
    }

    throw new Error(`A service method answered a ${typeof result}, which is no JSON value.`);
};

export const callService = async (request: Hapi.Request, h: Hapi.ResponseToolkit): Promise<Hapi.ResponseObject> => {

    const service = serviceOf(request);
    const sent = sentMethod(request);
    if (sent !== 'GET' && sent !== 'POST') {
        const refused = maximoError('methodNotAllowed', `A method of the service ${service.name} is called by GET or POST, not ${sent}.`);
        // Its route takes every method, to refuse the others by name: it says which it is served by itself.
        refused.output.headers.Allow = 'GET, POST';
        throw refused;
    }

    const method = methodOf(request, service);
    // A method may change state (setProperty): from another site's page it was refused before the handler, as every
    // ?action= is (src/http/cross-site.ts).
    const user = userOf(request);
    if (method.right === 'admin' && !user.isAdmin) {
        throw notAllowed(service.name, method.name, user.userid);
    }

    const args = checkedArguments(service, method, argumentsOf(request, service, method));
    const result = await method.handler({ request, args, user, osprey: request.server.app.osprey });
    return answer(h, result);
};
