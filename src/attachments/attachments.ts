import { Readable } from 'node:stream';

import type { Knex } from 'knex';

import type { UserProfile } from '../auth/users';
import type { OspreyOptions } from '../config';
import type { Osprey } from '../context';
import { transaction } from '../db/transaction';
import { maximoError } from '../errors/maximo-error';
import { memberId } from '../read/serialize/serialize';
import type { Structure } from '../structures/registry';
import { countDocuments, deleteDocument, findDocument, listDocuments, ownerOf, type DocumentRow, type Owner } from './documents';
import { documentStream, parseRange, type ByteRange } from './download';
import { bareType, disposition } from './names';
import { documentHref, documentMember, documentMeta, metaHref } from './serialize';
import { databaseStore, folderStore, type ContentStore, type StoreName } from './store';
import { Sweeper } from './sweep';
import { attachDocument, attachUrl, ownerRecord, type LinkUpload, type Upload } from './upload';


// The attachments of one server (`server.app.osprey.attachments`): the store new documents go to, every store a
// document may be in, and the sweeper of content that is gone.
export class Attachments {

    readonly store: ContentStore;
    readonly stores: ReadonlyMap<StoreName, ContentStore>;
    readonly sweeper: Sweeper;

    constructor(knex: Knex, options: Pick<OspreyOptions, 'attachmentsDir'>, log: (message: string) => void) {

        const database = databaseStore(knex);
        const folder = options.attachmentsDir ? folderStore(knex, options.attachmentsDir) : undefined;
        this.store = folder ?? database;
        this.stores = new Map<StoreName, ContentStore>([['database', database], ...folder ? [['folder', folder] as const] : []]);
        this.sweeper = new Sweeper(knex, this.stores, log);
    }

    storeOf(document: DocumentRow): ContentStore {

        const store = this.stores.get(document.store ?? 'database');
        if (!store) {
            throw maximoError('documentDamaged', `Document ${document.doclinksid} (${document.document}) is kept in the folder store, and this server has no OSPREY_ATTACHMENTS_DIR; set it to the folder its files are in.`);
        }

        return store;
    }
}

// What an attachment route's request becomes (plugins/attachments reads it): who asks, the record, the document.
export interface AttachmentRequest {
    readonly osprey: Osprey;
    readonly user: UserProfile;
    readonly structure: Structure;
    /** The record's id as the URL names it. */
    readonly id: string;
    /** The document's id (…/doclinks/{docId}), as the URL names it. */
    readonly docId?: string;
    /** The href of the API home the request came through. */
    readonly home: string;
}

// The href of a record's documents, on the record's own id.
const collectionOf = (req: AttachmentRequest, record: Record<string, unknown>): string => `${req.home}/os/${req.structure.id}/${memberId(req.structure.root, record)}/doclinks`;

const documentId = (req: AttachmentRequest): number => {

    const text = req.docId ?? '';
    // The id, or a member's localref form (its position in the list, a dash, the id), which answers as its href does.
    const match = /^(?:\d{1,9}-)?([1-9]\d{0,14})$/.exec(text);
    if (!match) {
        throw maximoError('notFound', `There is no document ${text} of this ${req.structure.name} record: a document's id is a number, as its href in …/doclinks names it.`);
    }

    return Number(match[1]);
};

const noDocument = (req: AttachmentRequest, id: number): Error => maximoError('notFound', `There is no document ${id} of this ${req.structure.name} record.`);

const located = async (req: AttachmentRequest, right: 'read' | 'update'): Promise<{ owner: Owner; collection: string; document: DocumentRow }> => {

    const record = await ownerRecord(req.osprey, req.user, req.structure, req.id, right);
    const owner = ownerOf(req.structure.root, record);
    const docId = documentId(req);
    const document = await findDocument(req.osprey.db, owner, docId);
    if (!document) {
        throw noDocument(req, docId);
    }

    return { owner, collection: collectionOf(req, record), document };
};

// GET …/doclinks: the record's documents, a page at a time (IBM's Java client reads one page: by default every
// document, up to the largest page a client may ask for).
export const listAttachments = async (req: AttachmentRequest, page: { size?: number; number?: number; count?: boolean }): Promise<Record<string, unknown>> => {

    const record = await ownerRecord(req.osprey, req.user, req.structure, req.id, 'read');
    const owner = ownerOf(req.structure.root, record);
    const collection = collectionOf(req, record);
    const size = page.size ?? Math.min(req.osprey.options.maxPageSize, req.osprey.options.maxAnswerRows);
    const number = page.number ?? 1;
    const rows = await listDocuments(req.osprey.db, owner, { limit: size + 1, offset: (number - 1) * size });
    const more = rows.length > size;
    const pageHref = (n: number) => `${collection}?oslc.pageSize=${size}&pageno=${n}`;
    const total = page.count ? await countDocuments(req.osprey.db, owner) : undefined;
    return {
        member: rows.slice(0, size).map((document, i) => documentMember(collection, document, (number - 1) * size + i)),
        href: collection,
        responseInfo: {
            href: page.size === undefined && page.number === undefined ? collection : pageHref(number),
            pagenum: number,
            ...more ? { nextPage: { href: pageHref(number + 1) } } : {},
            ...number > 1 ? { previousPage: { href: pageHref(number - 1) } } : {},
            ...total === undefined ? {} : { totalCount: total, totalPages: Math.max(1, Math.ceil(total / size)) }
        }
    };
};

export const attachmentMeta = async (req: AttachmentRequest): Promise<Record<string, unknown>> => {

    const { collection, document } = await located(req, 'read');
    return documentMeta(collection, document);
};

export interface DownloadAnswer {
    /** 200, 206 for a range, or 304 where If-None-Match names the document's ETag (no bytes). */
    readonly status: 200 | 206 | 304;
    readonly stream: Readable;
    readonly headers: Readonly<Record<string, string>>;
}

// GET …/doclinks/{docId}: the bytes as uploaded, with the type the upload named. Only the types configured as
// safe to show (images, PDF) are answered inline; any other is a download to save, never a page of Osprey's origin
// that could run script, and no answer lets the browser guess a type from the bytes.
export const downloadAttachment = async (req: AttachmentRequest, ask: { range?: string; ifRange?: string; ifNoneMatch?: string }): Promise<DownloadAnswer> => {

    const { owner, collection, document } = await located(req, 'read');
    if (document.urltype === 'URL') {
        throw maximoError('notFound', `Document ${document.doclinksid} is a link to ${document.urlname}, not a file: it has no bytes to download (its meta, …/doclinks/meta/${document.doclinksid}, names the link).`);
    }

    const etag = `"${document.sha256}"`;
    // If-None-Match (RFC 9110 13.1.2): `*`, or a list naming the ETag, compared weakly (W/ and all): 304, no bytes.
    if (ask.ifNoneMatch !== undefined && (ask.ifNoneMatch.trim() === '*' || ask.ifNoneMatch.split(',').some((tag) => tag.trim().replace(/^W\//, '') === etag))) {
        return { status: 304, stream: Readable.from([], { objectMode: false }), headers: { etag } };
    }

    const ranged = ask.range !== undefined && (ask.ifRange === undefined || ask.ifRange.trim() === etag);
    const range = ranged ? parseRange(ask.range, document.size) : undefined;
    if (range === 'unsatisfiable') {
        const error = maximoError('rangeNotSatisfiable', `The range ${ask.range} is not within document ${document.doclinksid}, which is ${document.size} bytes long.`);
        (error as { output?: { headers: Record<string, string> } }).output!.headers['content-range'] = `bytes */${document.size}`;
        throw error;
    }

    let stream: Readable;
    try {
        stream = await documentStream(req.osprey.db, req.osprey.attachments.storeOf(document), document, range as ByteRange | undefined);
    }
    catch (error) {
        // A document deleted after it was found has its chunks swept: its first chunk missing is that, not damage.
        if (!await findDocument(req.osprey.db, owner, document.doclinksid)) {
            throw noDocument(req, document.doclinksid);
        }

        throw error;
    }

    const inline = req.osprey.options.attachmentInlineTypes.includes(bareType(document.mimetype));
    const headers: Record<string, string> = {
        'content-type': document.mimetype,
        'content-length': String(range ? range.end - range.start + 1 : document.size),
        'content-disposition': disposition(inline ? 'inline' : 'attachment', document.document),
        'x-content-type-options': 'nosniff',
        'accept-ranges': 'bytes',
        etag,
        link: `<${metaHref(collection, document)}>; rel="describedby"`,
        ...range ? { 'content-range': `bytes ${range.start}-${range.end}/${document.size}` } : {}
    };
    return { status: range ? 206 : 200, stream, headers };
};

// POST …/doclinks: a new document from the request's body (upload.ts); answers its href.
export const uploadAttachment = async (req: AttachmentRequest, upload: Omit<Upload, 'osprey' | 'user' | 'structure' | 'id'>): Promise<{ location: string; meta: Record<string, unknown> }> => {

    // The record's href is made before the upload: the answer names it by its own id, whatever form the URL used.
    const collection = collectionOf(req, await ownerRecord(req.osprey, req.user, req.structure, req.id, 'update'));
    const document = await attachDocument(req.osprey.attachments, { ...upload, osprey: req.osprey, user: req.user, structure: req.structure, id: req.id });
    return { location: documentHref(collection, document), meta: documentMeta(collection, document) };
};

// POST …/doclinks with content-location and no body: a URL document; answers its href.
export const uploadLink = async (req: AttachmentRequest, link: Omit<LinkUpload, 'osprey' | 'user' | 'structure' | 'id'>): Promise<{ location: string; meta: Record<string, unknown> }> => {

    const collection = collectionOf(req, await ownerRecord(req.osprey, req.user, req.structure, req.id, 'update'));
    const document = await attachUrl({ ...link, osprey: req.osprey, user: req.user, structure: req.structure, id: req.id });
    return { location: documentHref(collection, document), meta: documentMeta(collection, document) };
};

// DELETE …/doclinks/{docId}: the document's row at once, its bytes swept after the commit.
export const deleteAttachment = async (req: AttachmentRequest): Promise<void> => {

    const { owner, document } = await located(req, 'update');
    await transaction(req.osprey.knex, async (db) => {

        // Found again in the transaction: a document another request deleted meanwhile is a 404, not a second delete.
        const current = await findDocument(db, owner, document.doclinksid);
        if (!current || !await deleteDocument(db, current, Date.now())) {
            throw noDocument(req, document.doclinksid);
        }

    });
    void req.osprey.attachments.sweeper.soon();
};
