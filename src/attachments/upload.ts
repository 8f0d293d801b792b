import * as Crypto from 'node:crypto';
import type { Readable } from 'node:stream';

import { requireRight } from '../auth/access';
import type { UserProfile } from '../auth/users';
import type { Db } from '../db/db';
import { transaction } from '../db/transaction';
import { maximoError } from '../errors/maximo-error';
import type { Osprey } from '../context';
import { memberRow } from '../read/execute/member';
import type { Structure } from '../structures/registry';
import { insertDocument, newContentKey, ownerOf, type DocumentRow, type NewDocument } from './documents';
import { writeBatch, type ContentStore } from './store';
import type { Sweeper } from './sweep';


// An upload (issue 36): the body streams through in chunks of 256 KB, with the document's SHA-256 and size counted
// on the way, each batch of chunks (a quarter megabyte) written as it fills in a short transaction of its own
// (store.ts); the document's row is inserted in one last transaction that reads the record again, so a record
// deleted meanwhile gets no document. On the database store, whose chunks are rows, the last batch waits for that
// transaction (an upload of one batch, most documents, is one transaction) and the upload is registered in
// osprey_docupload with its first written batch; the folder store writes its file outside any transaction, so it
// registers before the first byte and writes every chunk before the document's transaction. A registered upload's
// bytes are swept when it fails. A body over the limit, a client that goes away, or any other failure leaves no
// document and no content.

export interface Upload {
    readonly osprey: Osprey;
    readonly user: UserProfile;
    readonly structure: Structure;
    /** The record's id, in any of its forms. */
    readonly id: string;
    readonly fileName: string;
    readonly description?: string;
    readonly docType: string;
    readonly mediaType: string;
    /** custom-encoding: base64 — the body is the document in base64. */
    readonly base64: boolean;
    /** The body, unread. */
    readonly body: Readable;
    /** Content-Length, when the request sent one. */
    readonly length?: number;
}

export interface AttachmentPlace {
    readonly store: ContentStore;
    readonly sweeper: Sweeper;
}

// The largest document a record of the structure takes: the server's limit, or the structure's if lower.
export const documentLimit = (osprey: Osprey, structure: Structure): number => Math.min(osprey.options.maxAttachment, structure.root.attachmentMaxSize ?? Infinity);

export const tooLarge = (structure: Structure, limit: number, size?: number): Error => maximoError('tooLarge', `The document is larger than the limit for ${structure.name} attachments, ${limit} bytes${size === undefined ? '' : ` (it is ${size})`}; nothing was stored.`);

// The record of an attachment route, as the user may reach it: the structure must have attachments, the user the
// right, and the record must be one they can see (else 404, as a record route answers).
export const attachmentsOf = (structure: Structure): void => {

    if (!structure.root.attachments) {
        throw maximoError('notFound', `${structure.name} records have no attachments: its YAML declares no \`doclinks: { attachments: true }\`.`);
    }
};

export const ownerRecord = async (osprey: Osprey, user: UserProfile, structure: Structure, id: string, right: 'read' | 'update') => {

    attachmentsOf(structure);
    requireRight(user, structure, right);
    return await memberRow(osprey.db, user, structure, id);
};

// base64 text in pieces: each piece decoded up to its last whole quantum of four characters, the rest kept for
// the next; whitespace (line breaks of MIME base64) skipped; any other character refused.
export class Base64Pieces {

    #rest = '';
    /** Padding was seen: nothing but more padding (and line breaks) may follow, in this piece or a later one. */
    #padded = false;

    decode(piece: Buffer): Buffer {

        // Line breaks, spaces and tabs are skipped (MIME), no other character: \s would take 0xA0 and form feeds.
        const fresh = piece.toString('latin1').replace(/[\t\n\r ]/g, '');
        const text = this.#rest + fresh;
        if (!/^[A-Za-z0-9+/\-_]*={0,2}$/.test(text) || (this.#padded && !/^=*$/.test(fresh))) {
            throw maximoError('badRequest', 'The body is not base64 (custom-encoding: base64): it holds a character base64 does not use, or = before its end.');
        }

        this.#padded ||= fresh.includes('=');
        const whole = text.length - (text.length % 4);
        this.#rest = text.slice(whole);
        return Buffer.from(text.slice(0, whole), 'base64');
    }

    end(): Buffer {

        const rest = this.#rest;
        this.#rest = '';
        if (rest.length === 1) {
            throw maximoError('badRequest', 'The body is not base64 (custom-encoding: base64): its length leaves one character over.');
        }

        return Buffer.from(rest, 'base64');
    }
}

const idle = <T>(next: Promise<T>, ms: number): Promise<T> => {

    let timer: NodeJS.Timeout | undefined;
    const stalled = new Promise<never>((_, reject) => {

        timer = setTimeout(() => reject(maximoError('uploadStalled', `The upload sent no byte for ${ms / 1000} s (OSPREY_UPLOAD_IDLE_SECONDS); nothing was stored. Send it again.`)), ms);
    });
    return Promise.race([next, stalled]).finally(() => clearTimeout(timer));
};

export interface StoredContent {
    readonly key: string;
    readonly size: number;
    readonly sha256: string;
    /** The chunks not written yet, numbered from `seq` on: they go in with the document's row. */
    readonly rest: readonly Buffer[];
    readonly seq: number;
    /** The upload is in osprey_docupload: some of it was written before the document's transaction. */
    readonly registered: boolean;
    /** The store's `finish` ran (the folder store's file is complete and in place). */
    readonly finished: boolean;
}

const chunksOf = (bytes: Buffer, size: number): Buffer[] => {

    const chunks: Buffer[] = [];
    for (let i = 0; i < bytes.length; i += size) {
        chunks.push(bytes.subarray(i, Math.min(i + size, bytes.length)));
    }

    return chunks;
};

export const storeContent = async (place: AttachmentPlace, osprey: Osprey, body: Readable, options: { base64: boolean; limit: number; idleMs: number; tooLarge: (size?: number) => Error }): Promise<StoredContent> => {

    const { store, sweeper } = place;
    const key = newContentKey();
    const register = async (db: Db) => {

        await db.rows('insert into "osprey_docupload" ("contentkey", "store", "started") values (?, ?, ?)', [key, store.name, Date.now()]);
    };

    // The database store's last batch goes in with the document's row; the folder store writes every chunk first.
    const rows = store.name === 'database';
    let registered = !rows;
    if (registered) {
        await transaction(osprey.knex, register);
    }

    const hash = Crypto.createHash('sha256');
    const decoder = options.base64 ? new Base64Pieces() : undefined;
    let size = 0;
    let seq = 0;
    let pending: Buffer[] = [];
    let pendingBytes = 0;
    // Once a batch has come (on the database store, more than one), its whole chunks are written in one
    // transaction; what is left over waits for the next bytes. At the end the folder store writes the rest.
    const flush = async (all = false) => {

        if (all ? pendingBytes === 0 : pendingBytes < writeBatch + (rows ? 1 : 0)) {
            return;
        }

        const joined = Buffer.concat(pending, pendingBytes);
        const whole = all ? joined.length : joined.length - (joined.length % store.chunkSize);
        const chunks = chunksOf(joined.subarray(0, whole), store.chunkSize);
        await store.write(key, seq, chunks, registered ? undefined : register);
        registered = true;
        seq += chunks.length;
        const rest = joined.subarray(whole);
        pending = rest.length ? [Buffer.from(rest)] : [];
        pendingBytes = rest.length;
    };

    const take = async (bytes: Buffer) => {

        size += bytes.length;
        if (size > options.limit) {
            throw options.tooLarge();
        }

        hash.update(bytes);
        pending.push(bytes);
        pendingBytes += bytes.length;
        await flush();
    };

    // A client that stops sending holds the upload open: after `idleMs` without a byte it is ended with a 408.
    const iterator = body[Symbol.asyncIterator]() as AsyncIterator<Buffer>;
    try {
        for (;;) {
            const next = await idle(iterator.next(), options.idleMs);
            if (next.done) {
                break;
            }

            await take(decoder ? decoder.decode(next.value) : next.value);
        }

        if (decoder) {
            await take(decoder.end());
        }

        if (!rows) {
            await flush(true);
            await store.finish(key);
        }
    }
    catch (error) {
        // The body is not destroyed: hapi would take the request for one its client aborted and answer nothing. The
        // error's answer closes the connection instead (plugins/attachments), so what is left of the body is not read.
        if (registered) {
            await sweeper.abandon(key, store.name, Date.now()).catch(() => undefined);
            void sweeper.soon();
        }

        throw error;
    }

    return { key, size, sha256: hash.digest('hex'), rest: chunksOf(Buffer.concat(pending, pendingBytes), store.chunkSize), seq, registered, finished: !rows };
};

// Inserts a document of the record in one transaction that reads the record again, locked: a record deleted (or
// taken from the user) while the bytes came gets none. `before` runs first in the same transaction.
const insertOwned = async (osprey: Osprey, user: UserProfile, structure: Structure, id: string, before: (db: Db) => Promise<void>, document: Omit<NewDocument, 'ownertable' | 'ownerid' | 'createby' | 'created'>): Promise<DocumentRow> => {

    return await transaction(osprey.knex, async (db) => {

        const record = await memberRow(db, user, structure, id, { lock: true });
        const owner = ownerOf(structure.root, record);
        await before(db);
        return await insertDocument(db, { ...document, ownertable: owner.object.name, ownerid: owner.id, createby: user.userid, created: Date.now() });
    });
};

export const attachDocument = async (place: AttachmentPlace, upload: Upload): Promise<DocumentRow> => {

    // The record and the update right were checked by the entry point (attachments.ts uploadAttachment), before
    // a byte of the body is read; the record is read again, locked, with the document's row.
    const { osprey, user, structure, id } = upload;
    const limit = documentLimit(osprey, structure);
    // Known too large before a byte is read: refused at once. A base64 body is a third longer than its document,
    // and longer still by its padding and line breaks: it is refused by its length only where even PEM's line
    // breaks (CRLF after every 64 characters, more than MIME's 76) and padding leave more than the limit; else it
    // is measured as it is decoded.
    if (upload.length !== undefined && (upload.base64 ? Math.floor(upload.length * 64 / 66 * 3 / 4) - 2 : upload.length) > limit) {
        throw tooLarge(structure, limit, upload.base64 ? undefined : upload.length);
    }

    const content = await storeContent(place, osprey, upload.body, { base64: upload.base64, limit, idleMs: osprey.options.uploadIdleSeconds * 1000, tooLarge: (size) => tooLarge(structure, limit, size) });
    try {
        return await insertOwned(osprey, user, structure, id, async (db) => {

            if (content.registered) {
                await db.rows('delete from "osprey_docupload" where "contentkey" = ?', [content.key]);
            }

            for (const [i, data] of content.rest.entries()) {
                await place.store.writeIn(db, content.key, content.seq + i, data);
            }

            if (!content.finished) {
                await place.store.finish(content.key);
            }
        }, {
            document: upload.fileName,
            description: upload.description ?? null,
            doctype: upload.docType,
            urltype: 'FILE',
            urlname: upload.fileName,
            mimetype: upload.mediaType,
            size: content.size,
            sha256: content.sha256,
            contentkey: content.key,
            chunksize: place.store.chunkSize,
            store: place.store.name
        });
    }
    catch (error) {
        // The chunks of the document's transaction went with its rollback; what was written before it (and the
        // folder store's file, always registered) is swept.
        if (content.registered) {
            await place.sweeper.abandon(content.key, place.store.name, Date.now()).catch(() => undefined);
            void place.sweeper.soon();
        }

        throw error;
    }
};

// A URL document (POST …/doclinks with content-location and no body; IBM's guide, "Create (URL)"): a link, no bytes.
export interface LinkUpload {
    readonly osprey: Osprey;
    readonly user: UserProfile;
    readonly structure: Structure;
    readonly id: string;
    /** The document's title (the slug). */
    readonly title: string;
    /** The address (content-location). */
    readonly urlname: string;
    readonly description?: string;
    readonly docType: string;
}

export const attachUrl = async (link: LinkUpload): Promise<DocumentRow> => {

    // Checked by the entry point (attachments.ts uploadLink), as an upload's.
    const { osprey, user, structure, id } = link;
    return await insertOwned(osprey, user, structure, id, () => Promise.resolve(), {
        document: link.title,
        description: link.description ?? null,
        doctype: link.docType,
        urltype: 'URL',
        urlname: link.urlname,
        mimetype: 'text/uri-list',
        size: 0,
        sha256: null,
        contentkey: null,
        chunksize: null,
        store: null
    });
};
