import * as Crypto from 'node:crypto';

import * as Code from '@hapi/code';
import * as Lab from '@hapi/lab';

import { checkedWhole, documentStream } from '../../src/attachments/download';
import type { DocumentRow } from '../../src/attachments/documents';
import type { ContentStore, StoredChunk } from '../../src/attachments/store';
import type { Db } from '../../src/db/db';


const { experiment, test } = exports.lab = Lab.script();
const { expect } = Code;

// What a download checks (src/attachments/download.ts), against a store whose chunks a test damages. A whole
// download of a small document is checked by the document's SHA-256 before it answers; a larger one, and every
// range, chunk by chunk before each is sent, and by the document's SHA-256 before its last chunk. Nothing is ever
// sent past the document's size, no damaged byte goes out, and a download resumed by a range after a damaged one
// never completes the file.

const hex = (data: Buffer) => Crypto.createHash('sha256').update(data).digest('hex');

const setUp = (bytes: Buffer, chunkSize: number) => {

    const chunks = new Map<number, StoredChunk>();
    for (let i = 0; i * chunkSize < bytes.length; ++i) {
        const data = bytes.subarray(i * chunkSize, (i + 1) * chunkSize);
        chunks.set(i, { data: [data], sha256: hex(data) });
    }

    const store = {
        name: 'database', chunkSize,
        read: (_db: Db, _key: string, seq: number) => Promise.resolve(chunks.get(seq))
    } as unknown as ContentStore;
    const document = { doclinksid: 7, document: 'drawing.bin', size: bytes.length, sha256: hex(bytes), contentkey: 'ab'.repeat(16), chunksize: chunkSize } as DocumentRow;
    return { chunks, store, document };
};

// Every byte the stream gives before it ends, and how it ended.
const drain = async (stream: NodeJS.ReadableStream): Promise<{ bytes: Buffer; error?: Error }> => {

    const parts: Buffer[] = [];
    try {
        for await (const part of stream) {
            parts.push(part as Buffer);
        }

        return { bytes: Buffer.concat(parts) };
    }
    catch (error) {
        return { bytes: Buffer.concat(parts), error: error as Error };
    }
};

const db = {} as Db;
const changes = ['flip', 'longer', 'shorter', 'missing'] as const;

// Chunk `seq` damaged as `change` says; a chunk of another length keeps a hash of its own bytes (only its length
// tells).
const damage = (chunks: Map<number, StoredChunk>, seq: number, change: typeof changes[number], size: number) => {

    const stored = chunks.get(seq)!;
    const data = Buffer.from(stored.data[0]!);
    if (change === 'flip') {
        data[100]! ^= 0x80;
        chunks.set(seq, { ...stored, data: [data] });
    }
    else if (change === 'missing') {
        chunks.delete(seq);
    }
    else {
        const other = change === 'longer' ? Buffer.concat([data, Buffer.alloc(size)]) : data.subarray(0, 10);
        chunks.set(seq, { data: [other], sha256: hex(other) });
    }
};

// Two sizes of document: a small one, checked whole before it answers, and one past checkedWhole, streamed.
const small = { chunkSize: 1024, bytes: Crypto.randomBytes(1024 * 4 + 10) };
const large = { chunkSize: 64 * 1024, bytes: Crypto.randomBytes(checkedWhole + 64 * 1024 * 2 + 10) };

experiment('attachments: what a download checks', () => {

    test('an intact document comes whole, and in ranges', async () => {

        for (const { chunkSize, bytes } of [small, large]) {
            const { store, document } = setUp(bytes, chunkSize);
            expect((await drain(await documentStream(db, store, document))).bytes.equals(bytes)).to.be.true();
            const part = await drain(await documentStream(db, store, document, { start: 1000, end: chunkSize * 2 + 100 }));
            expect(part.bytes.equals(bytes.subarray(1000, chunkSize * 2 + 101))).to.be.true();
        }
    });

    test('damage in the first chunk is an error before the answer starts, whole or in a range', async () => {

        for (const { chunkSize, bytes } of [small, large]) {
            const { chunks, store, document } = setUp(bytes, chunkSize);
            chunks.get(0)!.data[0]![5]! ^= 1;
            await expect(documentStream(db, store, document)).to.reject(/does not match the SHA-256/);
            await expect(documentStream(db, store, document, { start: 0, end: 10 })).to.reject(/does not match/);
        }
    });

    test('a small document damaged anywhere is an error before the answer starts', async () => {

        for (const change of changes) {
            const { chunks, store, document } = setUp(small.bytes, small.chunkSize);
            damage(chunks, 2, change, small.chunkSize);
            await expect(documentStream(db, store, document), change).to.reject(/does not match the SHA-256/);
        }
    });

    test('a larger one ends before the damaged chunk, and a client that resumes it by a range is refused there', async () => {

        const { chunkSize, bytes } = large;
        const seq = 9;
        for (const change of changes) {
            const { chunks, store, document } = setUp(bytes, chunkSize);
            damage(chunks, seq, change, chunkSize);
            const { bytes: sent, error } = await drain(await documentStream(db, store, document));
            expect(error, change).to.exist();
            expect(error!.message, change).to.contain('does not match the SHA-256');
            // Only the chunks before the damaged one, all of them right.
            expect(sent.length, change).to.be.at.most(seq * chunkSize);
            expect(sent.equals(bytes.subarray(0, sent.length)), change).to.be.true();
            // wget and curl -C - ask for the rest: refused at the damaged chunk, never a file made whole around it.
            await expect(documentStream(db, store, document, { start: sent.length, end: bytes.length - 1 }), change).to.reject(/does not match/);
        }
    });

    test('the document\'s SHA-256 vouches for a small document: a stale hash of a later chunk does not refuse the right bytes, a range does; a larger one is refused', async () => {

        const smallOne = setUp(small.bytes, small.chunkSize);
        smallOne.chunks.set(1, { ...smallOne.chunks.get(1)!, sha256: '0'.repeat(64) });
        expect((await drain(await documentStream(db, smallOne.store, smallOne.document))).bytes.equals(small.bytes)).to.be.true();
        const range = await drain(await documentStream(db, smallOne.store, smallOne.document, { start: 0, end: small.chunkSize * 2 - 1 }));
        expect(range.error).to.exist();
        expect(range.bytes.length).to.equal(small.chunkSize);

        const largeOne = setUp(large.bytes, large.chunkSize);
        largeOne.chunks.set(1, { ...largeOne.chunks.get(1)!, sha256: '0'.repeat(64) });
        const whole = await drain(await documentStream(db, largeOne.store, largeOne.document));
        expect(whole.error).to.exist();
        expect(whole.bytes.length).to.equal(large.chunkSize);
    });

    test('a document row no upload writes is damage: a size changed to 0, below 0, chunks of no bytes', async () => {

        const { store, document } = setUp(small.bytes, small.chunkSize);
        await expect(documentStream(db, store, { ...document, size: 0 })).to.reject(/does not match the SHA-256/);
        await expect(documentStream(db, store, { ...document, size: -5 })).to.reject(/does not match/);
        await expect(documentStream(db, store, { ...document, chunksize: 0 })).to.reject(/does not match/);
        await expect(documentStream(db, store, { ...document, size: document.size - 1 })).to.reject(/does not match/);
        // A real empty document reads as one.
        const empty = setUp(Buffer.alloc(0), small.chunkSize);
        expect((await drain(await documentStream(db, empty.store, empty.document))).bytes.length).to.equal(0);
    });
});
