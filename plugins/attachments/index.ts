import type * as Hapi from '@hapi/hapi';
import type { Readable } from 'node:stream';

import {
    attachmentMeta, checkDescription, checkFileName, checkLink, checkTitle, decodedName, docTypePattern, deleteAttachment, downloadAttachment, header, headerText, homeHref, homeRoutes, listAttachments, maximoError, documentType, onCommit, structureOf, uploadAttachment, uploadLink, userOf,
    type AttachmentRequest
} from '../../src';


// Attachments (doclinks, issue 36; CONTRACT §6): the documents of a record of every structure whose YAML declares
// `doclinks: { attachments: true }`. The routes read the request into one value and the engine (src/attachments)
// does the rest; an upload's body is never parsed, whatever its Content-Type says (IBM's Java client labels the
// bytes application/json).

const requestOf = (request: Hapi.Request): AttachmentRequest => ({
    osprey: request.server.app.osprey,
    user: userOf(request),
    structure: structureOf(request),
    id: String(request.params.id),
    ...request.params.docid === undefined ? {} : { docId: String(request.params.docid) },
    home: homeHref(request, request.server.app.osprey.options.contextRoot)
});

const pageNumber = (value: unknown, name: string, max?: number): number | undefined => {

    if (value === undefined) {
        return undefined;
    }

    const text = String(Array.isArray(value) ? value[value.length - 1] : value);
    const number = /^[1-9]\d{0,8}$/.test(text) ? Number(text) : NaN;
    if (Number.isNaN(number) || (max !== undefined && number > max)) {
        throw maximoError('badRequest', `${name} is a whole number from 1${max === undefined ? '' : ` to ${max}`}, not ${text}.`);
    }

    return number;
};

const list: Hapi.Lifecycle.Method = async (request) => {

    const { query } = request;
    const osprey = request.server.app.osprey;
    return await listAttachments(requestOf(request), {
        // An answer holds at most OSPREY_MAX_ANSWER_ROWS rows, a list of documents too.
        size: pageNumber(query['oslc.pageSize'], 'oslc.pageSize', Math.min(osprey.options.maxPageSize, osprey.options.maxAnswerRows)),
        number: pageNumber(query.pageno, 'pageno'),
        count: query.collectioncount !== undefined && ['1', 'true'].includes(String(query.collectioncount))
    });
};

const readMeta: Hapi.Lifecycle.Method = async (request) => await attachmentMeta(requestOf(request));

const download: Hapi.Lifecycle.Method = async (request, h) => {

    const answer = await downloadAttachment(requestOf(request), { range: header(request, 'range'), ifRange: header(request, 'if-range'), ifNoneMatch: header(request, 'if-none-match') });
    if (answer.status === 304) {
        return h.response().code(304).header('etag', answer.headers.etag!);
    }

    // The type as uploaded, exactly: hapi adds no charset to it.
    const response = h.response(answer.stream).code(answer.status);
    response.charset(null as unknown as string);
    for (const [name, value] of Object.entries(answer.headers)) {
        response.header(name, value);
    }

    // The bytes are a stored file: hapi neither compresses them (Content-Length is the file's) nor sets its own type.
    return response.compressed('identity');
};

// x-document-meta: FILE/Attachments, URL/Attachments, or the document type alone. Without a URL type, an upload with
// content-location is a URL (IBM's guide), any other a FILE.
const documentMeta = (value: string | undefined, link: boolean): { urlType: 'FILE' | 'URL'; docType: string } => {

    const text = (value ?? '').trim();
    if (text.split('/').length > 2) {
        throw maximoError('badRequest', `x-document-meta ${text} has more than two parts; it is {urltype}/{doctype} (FILE/Attachments), or a document type alone.`);
    }

    const [first, second] = text.includes('/') ? text.split('/', 2) as [string, string] : ['', text];
    const named = first.trim().toUpperCase();
    const urlType = named === 'WWW' ? 'URL' : (named || (link ? 'URL' : 'FILE'));
    const docType = (second ?? '').trim() || 'Attachments';
    if (urlType !== 'FILE' && urlType !== 'URL') {
        throw maximoError('badRequest', `x-document-meta ${text} names the URL type ${urlType}; an upload is a FILE (x-document-meta: FILE/Attachments, the file as the body) or a URL (URL/Attachments, the address in content-location).`);
    }

    if (urlType === 'URL' && !link) {
        throw maximoError('badRequest', `x-document-meta ${text} names a URL document, whose address comes in the content-location header; send it (and no body).`);
    }

    if (urlType === 'FILE' && link) {
        throw maximoError('badRequest', `x-document-meta ${text} names a FILE, whose bytes are the body; content-location names the address of a URL document (x-document-meta: URL/Attachments).`);
    }

    if (!docTypePattern.test(docType)) {
        throw maximoError('badRequest', `x-document-meta ${text} names the document type ${JSON.stringify(docType)}; a type is 1 to 64 letters, digits, spaces, _ . or -.`);
    }

    return { urlType, docType };
};

const base64Text = (value: string, name: string): string => {

    if (!/^[A-Za-z0-9+/_-]*={0,2}$/.test(value.trim())) {
        throw maximoError('badRequest', `The ${name} header is base64 of the UTF-8 text, and ${JSON.stringify(value)} is not base64.`);
    }

    // Bytes that are no UTF-8 are refused, as in a JSON body: never stored as U+FFFD.
    try {
        return strictUtf8.decode(Buffer.from(value.trim(), 'base64'));
    }
    catch {
        throw maximoError('badRequest', `The ${name} header is base64 of the UTF-8 text, and ${JSON.stringify(value.slice(0, 100))} decodes to bytes that are not UTF-8.`);
    }
};

const strictUtf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

// The headers that describe an upload: each sent once. Node joins a header sent twice with ", " (a name "a.txt,
// b.txt") or keeps the first (Content-Type): which one was meant would be a guess.
const uploadHeaders = new Set(['slug', 'encslug', 'content-type', 'content-location', 'content-length', 'custom-encoding', 'x-document-meta', 'x-document-description', 'x-document-encdescription']);

const refuseRepeatedHeaders = (request: Hapi.Request): void => {

    const twice = (name: string) => maximoError('badRequest', `The header ${name} is sent twice; an upload sends each of its headers once, and nothing was stored.`);
    // A request made in the process (server.inject) has no raw headers; its repeated header is a list.
    const raw = request.raw.req.rawHeaders as string[] | undefined ?? Object.entries(request.headers).flatMap(([name, value]) => (Array.isArray(value) ? value.flatMap(() => [name, '']) : [name, '']));
    const seen = new Set<string>();
    for (let i = 0; i < raw.length; i += 2) {
        const name = raw[i]!.toLowerCase();
        if (uploadHeaders.has(name)) {
            if (seen.has(name)) {
                throw twice(name);
            }

            seen.add(name);
        }
    }
};

// x-document-encdescription (base64 of UTF-8), else x-document-description as sent (UTF-8 read back as such).
const descriptionOf = (request: Hapi.Request): string | undefined => {

    const encdescription = header(request, 'x-document-encdescription');
    const plain = header(request, 'x-document-description');
    const description = encdescription !== undefined ? base64Text(encdescription, 'x-document-encdescription') : plain === undefined ? undefined : headerText(plain);
    return description === undefined ? undefined : checkDescription(description);
};

// The body of a URL document's upload: none (IBM's guide). A byte of one is refused; none is read past it.
// Read by hand: leaving a for-await loop destroys the stream, and hapi answers a destroyed request nothing.
const noContent = async (body: Readable): Promise<void> => {

    const pieces = body[Symbol.asyncIterator]() as AsyncIterator<Buffer>;
    for (;;) {
        const next = await pieces.next();
        if (next.done) {
            return;
        }

        if (next.value.length) {
            throw maximoError('badRequest', 'A URL document (content-location) has no bytes: send it without a body.');
        }
    }
};

// The document's name, in slug or in encslug (base64): one of them, since which one counts would be a guess.
const nameHeaders = (request: Hapi.Request): { slug?: string; encslug?: string } => {

    const slug = header(request, 'slug');
    const encslug = header(request, 'encslug');
    if (slug !== undefined && encslug !== undefined) {
        throw maximoError('badRequest', 'An upload names its document once: in slug or in encslug (the name in base64), not in both.');
    }

    return { slug, encslug };
};

// POST …/doclinks with content-location: a URL document named by its slug (else its address).
const uploadUrl = async (request: Hapi.Request, address: string) => {

    const urlname = checkLink(address, 'content-location, the address');
    const { slug, encslug } = nameHeaders(request);
    const title = checkTitle(encslug !== undefined ? base64Text(encslug, 'encslug') : slug !== undefined ? decodedName(slug, 'slug') : urlname, 'The slug, the title');
    const description = descriptionOf(request);
    const { docType } = documentMeta(header(request, 'x-document-meta'), true);
    await noContent(request.payload as Readable);
    return await uploadLink(requestOf(request), { title, urlname, docType, ...description ? { description } : {} });
};

// An upload refused before its body was read to the end answers with Connection: close, so that the rest of the body
// (up to the limit and beyond) is neither read nor left in the connection for the next request.
const upload: Hapi.Lifecycle.Method = async (request, h) => {

    try {
        return await uploaded(request, h);
    }
    catch (error) {
        const output = (error as { output?: { headers: Record<string, string> } }).output;
        if (output) {
            output.headers.connection = 'close';
        }

        throw error;
    }
};

const uploaded = async (request: Hapi.Request, h: Hapi.ResponseToolkit): Promise<Hapi.Lifecycle.ReturnValue> => {

    refuseRepeatedHeaders(request);
    const address = header(request, 'content-location');
    if (address !== undefined && address.trim() !== '') {
        const { location, meta: answer } = await uploadUrl(request, address);
        return h.response(answer).code(201).header('location', location);
    }

    const { slug, encslug } = nameHeaders(request);
    if (slug === undefined && encslug === undefined) {
        // A custom header also keeps a cross-site form from posting a file with a user's session: a form sends none.
        throw maximoError('badRequest', 'An upload names its file in the slug header (or encslug, the name in base64).');
    }

    const fileName = checkFileName(encslug !== undefined ? base64Text(encslug, 'encslug') : decodedName(slug!, 'slug'));
    const encoding = header(request, 'content-encoding');
    if (encoding !== undefined && encoding.trim().toLowerCase() !== 'identity') {
        throw maximoError('unsupportedMedia', `An upload's body is sent as it is (Content-Encoding ${encoding} is not decoded); send the file without it, or in base64 with custom-encoding: base64.`);
    }

    const custom = header(request, 'custom-encoding');
    if (custom !== undefined && custom.trim().toLowerCase() !== 'base64') {
        throw maximoError('badRequest', `custom-encoding ${custom} is not one this server reads: base64 is.`);
    }

    const description = descriptionOf(request);
    const { docType } = documentMeta(header(request, 'x-document-meta'), false);
    const length = header(request, 'content-length');
    const { location, meta } = await uploadAttachment(requestOf(request), {
        fileName,
        ...description ? { description } : {},
        docType,
        mediaType: documentType(header(request, 'content-type'), fileName),
        base64: custom !== undefined,
        body: request.payload as Readable,
        ...length !== undefined && /^\d+$/.test(length) ? { length: Number(length) } : {}
    });
    return h.response(meta).code(201).header('location', location);
};

const remove: Hapi.Lifecycle.Method = async (request, h) => {

    await deleteAttachment(requestOf(request));
    return h.response().code(204);
};

const refuseMethod: Hapi.Lifecycle.Method = (request) => {

    if (request.params.docid === undefined) {
        throw maximoError('methodNotAllowed', `${request.method.toUpperCase()} is not carried out on a record's documents: they are listed (GET …/doclinks) and added (POST …/doclinks with the file as the body).`);
    }

    throw maximoError('methodNotAllowed', `${request.method.toUpperCase()} is not carried out on a document: a document is read (GET), its meta read (GET …/doclinks/meta/{id}) or deleted (DELETE, or POST with x-method-override: DELETE); to change one, delete it and upload it again.`);
};

// The body of a route that reads none: at most a little, never parsed.
const noBody = { parse: false, output: 'data', maxBytes: 64 * 1024 } as const;

export const attachments: Hapi.Plugin<unknown> = {
    name: 'attachments',
    dependencies: ['osprey'],
    register: (server) => {

        const osprey = server.app.osprey;
        // A record deleted with its documents leaves their bytes to sweep.
        onCommit(osprey, (commit) => {

            if (commit.writes.some((write) => write.operation === 'delete' && write.structure.root.attachments)) {
                void osprey.attachments.sweeper.soon();
            }
        });

        // The router is case-insensitive (src/server.ts): IBM's Java client's …/{id}/DOCLINKS routes here too.
        const documents = '/os/{os}/{id}/doclinks';
        // The body of an upload streams to the store as it comes (bounded memory); its limit is the engine's.
        const streamed = { parse: false, output: 'stream', maxBytes: Number.MAX_SAFE_INTEGER, timeout: false } as const;
        server.route(homeRoutes(osprey.options.contextRoot, [
            { method: 'GET', path: documents, options: { id: 'attachments.list', handler: list } },
            { method: 'POST', path: documents, options: { id: 'attachments.upload', handler: upload, payload: streamed } },
            { method: '*', path: documents, options: { id: 'attachments.listOther', handler: refuseMethod, payload: noBody } },
            { method: 'GET', path: `${documents}/meta/{docid}`, options: { id: 'attachments.meta', handler: readMeta } },
            // Ranges are the engine's (only the chunks a range covers are read); hapi's own would cut the whole.
            { method: 'GET', path: `${documents}/{docid}`, options: { id: 'attachments.download', handler: download, response: { ranges: false } } },
            { method: 'DELETE', path: `${documents}/{docid}`, options: { id: 'attachments.delete', handler: remove, payload: noBody } },
            { method: '*', path: `${documents}/{docid}`, options: { id: 'attachments.other', handler: refuseMethod, payload: noBody } }
        ] as Parameters<typeof homeRoutes>[1]));
    }
};
