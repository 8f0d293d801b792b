import * as Crypto from 'node:crypto';
import { Readable } from 'node:stream';

import type { Db } from '../db/db';
import { maximoError } from '../errors/maximo-error';
import type { DocumentRow } from './documents';
import { sha256, writeBatch, type ContentStore, type StoredChunk } from './store';


// A download (issue 36): no answer that meets its Content-Length ever carries a byte that differs from what was
// uploaded, and no byte past it is sent. A whole download of a document of up to `checkedWhole` bytes reads all of
// it and checks the document's own SHA-256 before the answer starts, so any damage is a clear error and each
// byte is hashed once (hashing every byte twice, by its chunk's SHA-256 and the document's, was half of a 1 MB
// download's CPU; docs/performance.md). A larger one, and every range, is read one chunk at a time as the client
// takes it, each checked against the SHA-256 kept when it was written before it is sent, so damage past the first
// chunk ends the answer before the damaged bytes (every client sees a failed download: Content-Length is not met),
// and a client resuming it with a range is refused at the damaged chunk rather than handed a file made whole
// around it. A whole download also checks the document's SHA-256 before its last chunk goes out. Every chunk's
// length is checked as it comes (a longer one, whatever hash it carries, would overrun Content-Length).

export interface ByteRange {
    readonly start: number;
    /** Inclusive. */
    readonly end: number;
}

export const damaged = (document: DocumentRow): Error => maximoError('documentDamaged', `The stored content of document ${document.doclinksid} (${document.document}) does not match the SHA-256 kept when it was uploaded; it is not served. Upload it again.`);

// Range: bytes=a-b, a- or -n, one range; undefined: the whole document. Several ranges are refused, by name;
// one that does not overlap the document is a 416.
export const parseRange = (header: string | undefined, size: number): ByteRange | undefined | 'unsatisfiable' => {

    // A range of another unit than bytes is not one this server serves: as HTTP says, the whole document answers.
    if (header === undefined || !/^\s*bytes\s*=/i.test(header)) {
        return undefined;
    }

    const match = /^\s*bytes\s*=\s*(\d*)\s*-\s*(\d*)\s*$/i.exec(header);
    if (!match || (match[1] === '' && match[2] === '')) {
        if (/^\s*bytes\s*=.*,/i.test(header)) {
            throw maximoError('badRequest', `Range ${header} asks for several ranges; ask for one range per request (bytes=start-end).`);
        }

        throw maximoError('badRequest', `Range ${header} is not a byte range this server reads: send bytes=start-end, bytes=start- or bytes=-length.`);
    }

    if (match[1] === '') {
        const length = Number(match[2]);
        return length === 0 || size === 0 ? 'unsatisfiable' : { start: Math.max(0, size - length), end: size - 1 };
    }

    const start = Number(match[1]);
    const end = match[2] === '' ? size - 1 : Math.min(Number(match[2]), size - 1);
    if (start >= size || (match[2] !== '' && Number(match[2]) < start)) {
        return 'unsatisfiable';
    }

    return { start, end };
};

// One chunk of a document, checked against the SHA-256 kept when it was written (a download's, an inline read's).
export const readChecked = async (db: Db, store: ContentStore, document: DocumentRow, seq: number): Promise<readonly Buffer[]> => {

    return checked(document, await store.read(db, document.contentkey!, seq));
};

const checked = (document: DocumentRow, chunk: StoredChunk | undefined): readonly Buffer[] => {

    if (!chunk || sha256(chunk.data) !== chunk.sha256) {
        throw damaged(document);
    }

    return chunk.data;
};

// The largest document a whole download holds in memory to check it before it answers: four chunks of 256 KB.
export const checkedWhole = 1024 * 1024;

export const emptyHash = Crypto.createHash('sha256').digest('hex');

// A chunk of a download: there, and of the length the document's size gives it (a longer one would overrun
// Content-Length, whatever hash it carries); `hashed`: checked by its own SHA-256 as well.
const sized = (document: DocumentRow, chunk: StoredChunk | undefined, length: number, hashed: boolean): readonly Buffer[] => {

    if (!chunk || chunk.data.reduce((sum, part) => sum + part.length, 0) !== length) {
        throw damaged(document);
    }

    return hashed ? checked(document, chunk) : chunk.data;
};

// The bytes of a document (or a range of it), as a stream whose first chunk (a small whole document: all of it) is
// already read and checked.
export const documentStream = async (db: Db, store: ContentStore, document: DocumentRow, range?: ByteRange): Promise<Readable> => {

    const size = document.size;
    const chunk = document.chunksize ?? 1;
    // A row no upload writes (a size below zero, chunks of no bytes) is damage, not a document to divide by.
    if (!(size >= 0) || !(chunk > 0)) {
        throw damaged(document);
    }

    const start = range?.start ?? 0;
    const end = range?.end ?? size - 1;
    const whole = range === undefined;
    if (size === 0 || end < start) {
        // An empty document is checked too: a size changed to 0 is no empty file.
        if (whole && document.sha256 !== emptyHash) {
            throw damaged(document);
        }

        return Readable.from([], { objectMode: false });
    }

    const first = Math.floor(start / chunk);
    const last = Math.floor(end / chunk);
    const atOnce = whole && size <= checkedWhole;
    const hash = whole ? Crypto.createHash('sha256') : undefined;
    // The part of chunk `seq` in the range, as views of its pieces.
    const piece = (seq: number, data: readonly Buffer[]): Buffer[] => {

        const from = seq === first ? start - seq * chunk : 0;
        const to = seq === last ? end - seq * chunk + 1 : Infinity;
        const views: Buffer[] = [];
        let at = 0;
        for (const part of data) {
            hash?.update(part);
            const a = Math.max(from - at, 0);
            const b = Math.min(to - at, part.length);
            if (a < b) {
                views.push(part.subarray(a, b));
            }

            at += part.length;
        }

        return views;
    };

    // A whole download's last check, over every byte read: the document's own SHA-256.
    const checkWhole = () => {

        if (hash && hash.digest('hex') !== document.sha256) {
            throw damaged(document);
        }
    };

    // Where the store reads a run of chunks in one statement, a quarter megabyte of them at a time.
    const run = store.readRun ? Math.max(1, Math.floor(writeBatch / chunk)) : 1;
    let read = new Map<number, StoredChunk>();
    const next = async (seq: number): Promise<readonly Buffer[]> => {

        if (run > 1 && !read.has(seq)) {
            read = await store.readRun!(db, document.contentkey!, seq, Math.min(run, last - seq + 1));
        }

        const found = read.get(seq) ?? (run > 1 ? undefined : await store.read(db, document.contentkey!, seq));
        read.delete(seq);
        return sized(document, found, Math.min(chunk, size - seq * chunk), !atOnce);
    };

    if (atOnce) {
        const views: Buffer[] = [];
        for (let i = first; i <= last; ++i) {
            views.push(...piece(i, await next(i)));
        }

        checkWhole();
        return Readable.from(views, { objectMode: false });
    }

    const head = await next(first);
    const generate = async function* () {

        let current = piece(first, head);
        for (let i = first + 1; i <= last; ++i) {
            yield* current;
            current = piece(i, await next(i));
        }

        checkWhole();
        yield* current;
    };

    return Readable.from(generate(), { objectMode: false, highWaterMark: chunk });
};
