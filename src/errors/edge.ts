import { WriterBusy } from '../db/group-commit';
import * as Boom from '@hapi/boom';
import type * as Hapi from '@hapi/hapi';

import { reasonCodes, reasonForStatus } from './codes';
import { StatementTimeout } from '../db/sqlite-deadline';
import { homeHref } from '../http/hrefs';
import { loginPage, loginPagePolicy, wantsHtml } from '../http/login-page';
import { QueryError } from '../read/parse/query-error';
import { maximoError, type MaximoErrorData } from './maximo-error';


export interface AttributeErrorBody {
    Error: { message: string; reasonCode: string; statusCode: string; errorattrname: string; errorobjpath?: string };
}

export interface MaximoErrorBody {
    Error: {
        message: string;
        reasonCode: string;
        statusCode: string;
        errorattrname?: string;
        errorobjpath?: string;
        extendedError: { moreInfo: { href: string } };
    };
    /** `batcherror: 1`: every attribute error, each an Error of its own, beside the first (IBM's guide, batcherror). */
    attrerrors?: AttributeErrorBody[];
}

const ownData = (error: Boom.Boom): MaximoErrorData | undefined => {

    const data = error.data as MaximoErrorData | undefined;
    return data && typeof data === 'object' && typeof data.reasonCode === 'string' ? data : undefined;
};

// A server fault: a 5xx, save the catalog's 501, which names a service not provided, and its statement timeout,
// a limit the request met: neither is a fault of the server. A fault's message and stack are logged, never answered.
const told = new Set<string>([reasonCodes.notProvided.code, reasonCodes.statementTimeout.code]);
const isFault = (error: Boom.Boom): boolean => error.output.statusCode >= 500 && !told.has(ownData(error)?.reasonCode ?? '');

// Turns any Boom into Maximo's `{"Error": …}`. Errors that did not come from the catalog (hapi's router,
// payload parsing, Joi) get the code of their status; a fault never shows its message, only the request id.
// `moreInfo.href` names the reason code's message under `messagesHref` ({home}/error/messages), as Maximo's does.
export const toMaximoBody = (error: Boom.Boom, messagesHref: string, requestId: string): MaximoErrorBody => {

    const status = error.output.statusCode;
    const data = ownData(error);
    const fallback = reasonCodes[reasonForStatus(status)];
    const reasonCode = data?.reasonCode ?? fallback.code;
    const detail = isFault(error) ? `${fallback.text} (request id ${requestId})` : (data ? error.message : clientMessage(error, fallback.text));

    const body: MaximoErrorBody = {
        Error: {
            message: `${reasonCode} - ${detail}`,
            reasonCode,
            statusCode: String(status),
            extendedError: { moreInfo: { href: `${messagesHref}/${reasonCode}` } }
        }
    };

    if (data?.attribute) {
        body.Error.errorattrname = data.attribute;
        // The object, where the error knows it (a password rule's, a database constraint's, does not): never ''.
        if (data.objectPath) {
            body.Error.errorobjpath = data.objectPath;
        }
    }

    if (data?.attrErrors) {
        body.attrerrors = data.attrErrors.map((item) => {

            const reason = reasonCodes[item.reason ?? 'attributeInvalid'];
            return { Error: { message: `${reason.code} - ${item.message}`, reasonCode: reason.code, statusCode: String(reason.status), errorattrname: item.attribute, errorobjpath: item.objectPath } };
        });
    }

    return body;
};

// hapi's own client errors carry useful text in output.payload.message ("Invalid request payload JSON format").
const clientMessage = (error: Boom.Boom, fallback: string): string => {

    const message = (error.output.payload as { message?: string }).message;
    return message && message !== error.output.payload.error ? message : fallback;
};

// PostgreSQL's connection exceptions (SQLSTATE class 08) and shutdowns (57P01–57P03), node-pg's end of a connection
// it lost, a refused connect, and knex's pool that found no connection in time.
const lostStates = /^(08...|57P0[123])$/;
const connectionLost = (error: unknown): boolean => {

    const { code, message, name, syscall } = (error ?? {}) as { code?: unknown; message?: unknown; name?: unknown; syscall?: unknown };
    return (typeof code === 'string' && lostStates.test(code))
        || (code === 'ECONNREFUSED' && syscall === 'connect')
        || name === 'KnexTimeoutError'
        || (error instanceof Error && /^Connection terminated( unexpectedly)?$|^Client has encountered a connection error and is not queryable$/.test(String(message)));
};

// Anything thrown while serving a request as the Boom it is answered with: a query the parser or planner refused
// anywhere in a handler is the client's error, with its position; an error that is not a Boom is a 500.
export const asBoom = (error: unknown): Boom.Boom => {

    if (error instanceof QueryError) {
        return maximoError('badQuery', error.message);
    }

    // PostgreSQL's query_canceled, sent when a statement outlives statement_timeout (src/db/knex.ts).
    const { code, message } = (error ?? {}) as { code?: unknown; message?: unknown };
    // A better-sqlite3 statement past the same limit (src/db/sqlite-deadline.ts).
    if ((code === '57014' && /statement timeout/.test(String(message))) || error instanceof StatementTimeout) {
        return maximoError('statementTimeout');
    }

    if (error instanceof WriterBusy) {
        return maximoError('writerBusy');
    }

    if (connectionLost(error)) {
        return maximoError('databaseUnavailable');
    }

    return Boom.isBoom(error) ? error : Boom.boomify(error instanceof Error ? error : new Error(String(error)));
};

// The status and Maximo body an error is answered with, as the edge and each item of a bulk answer it; a fault is
// logged with its stack (under the request id its answer names) and shows neither.
export const errorAnswer = (request: Hapi.Request, thrown: unknown): { error: Boom.Boom; body: MaximoErrorBody } => {

    const error = asBoom(thrown);
    if (isFault(error)) {
        request.log(['error'], { message: error.message, stack: error.stack });
    }

    const messages = `${homeHref(request, request.server.app.osprey.options.contextRoot)}/error/messages`;
    return { error, body: toMaximoBody(error, messages, request.app.requestId ?? request.info.id) };
};

// A 401 names how to log in (RFC 9110 asks it of every 401): Basic, as Osprey takes it beside maxauth and API
// keys, so a browser asks for a user and password. A form login's 401 does not: its page asks for them itself.
export const basicChallenge = 'Basic realm="Osprey", charset="UTF-8"';
const formChallenge = 'Form realm="Osprey"';

// A browser asking for a page gets a login page with its 401: a GET (or HEAD) for the address it asked for, a failed
// or locked-out (429) form login for the address its form names, with why. An API client, or another method, gets
// the JSON.
const loginPageFor = (request: Hapi.Request, message: string): string | undefined => {

    if (!wantsHtml(request)) {
        return undefined;
    }

    const { contextRoot } = request.server.app.osprey.options;
    if (request.app.loginReturn !== undefined) {
        return loginPage(contextRoot, request.app.loginReturn, message.replace(/^BMXAA\d+E - /, ''));
    }

    return request.method === 'get' || request.method === 'head' ? loginPage(contextRoot, request.url.pathname + request.url.search, undefined) : undefined;
};

// The methods the request's path is served by, other than the request's own: a route for one method (a route of
// every method, which refuses the others by name, serves none of them). HEAD goes with GET.
export const servedMethods = (request: Hapi.Request): string[] => {

    const sent = request.method;
    return (['get', 'post', 'put', 'patch', 'delete'] as const).filter((method) => {

        const route = method === sent ? null : request.server.match(method, request.path, request.info.hostname);
        return route !== null && route.method !== '*';
    }).map((method) => method.toUpperCase());
};

export const errorEdge = (request: Hapi.Request, h: Hapi.ResponseToolkit): Hapi.Lifecycle.ReturnValue => {

    const response = request.response;
    if (!('isBoom' in response) || !response.isBoom) {
        return h.continue;
    }

    const { error, body } = errorAnswer(request, response);
    const page = error.output.statusCode === 401 || (error.output.statusCode === 429 && request.app.loginReturn !== undefined) ? loginPageFor(request, error.message) : undefined;
    const answer = page === undefined ? h.response(body).code(error.output.statusCode) : h.response(page).code(error.output.statusCode).type('text/html; charset=utf-8').header('Content-Security-Policy', loginPagePolicy);
    // No challenge on a form login. The login page is the challenge a browser asking for HTML gets: a scheme it
    // does not know, so that it shows the page at once instead of its Basic dialog (a headless one refuses the
    // navigation outright). The OpenAPI documents' JSON 401 carries none: the API page (src/oas/page.ts) asks for
    // them and logs in with its own form on a 401, which a Basic challenge would preempt with the browser's prompt.
    const id = request.route.settings.id ?? '';
    if (error.output.statusCode === 401 && error.output.headers['WWW-Authenticate'] === undefined && !id.startsWith('auth.formLogin')) {
        if (page !== undefined) {
            answer.header('WWW-Authenticate', formChallenge);
        }
        else if (!id.startsWith('oas.')) {
            answer.header('WWW-Authenticate', basicChallenge);
        }
    }

    // A 405 names the methods the path is served by (a route for one method; a route of every method, which
    // refuses the others by name, is none of them), and never the one just refused.
    const methods = error.output.statusCode === 405 && error.output.headers.Allow === undefined ? servedMethods(request) : [];
    if (methods.length) {
        answer.header('Allow', methods.join(', '));
    }

    for (const name of ['WWW-Authenticate', 'Retry-After', 'content-range', 'connection', 'Allow']) {
        const value = error.output.headers[name];
        if (value !== undefined) {
            answer.header(name, String(value));
        }
    }

    return answer;
};
