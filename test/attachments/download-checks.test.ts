import * as Crypto from 'node:crypto';

import * as Code from '@hapi/code';
import * as Lab from '@hapi/lab';

import { documentStream } from '../../src/attachments/download';
import type { DocumentRow } from '../../src/attachments/documents';
import type { ContentStore, StoredChunk } from '../../src/attachments/store';
import type { Db } from '../../src/db/db';


const { experiment, test } = exports.lab = Lab.script();
const { expect } = Code;

// What a download checks (src/attachments/download.ts), against a store whose chunks a test damages: a whole
// download the first chunk by its own SHA-256 and every byte by the document's, each later chunk's length as it
// comes; a range each chunk by its own SHA-256. Nothing is ever sent past the document's size, and the last chunk
// of a damaged document never goes out.

const chunkSize = 1024;
const hex = (data: Buffer) => Crypto.createHash('sha256').update(data).digest('hex');

const setUp = (bytes: Buffer) => {

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

experiment('attachments: what a download checks', () => {

    test('an intact document comes whole, and in ranges', async () => {

        const bytes = Crypto.randomBytes(chunkSize * 3 + 100);
        const { store, document } = setUp(bytes);
        expect((await drain(await documentStream(db, store, document))).bytes.equals(bytes)).to.be.true();
        const part = await drain(await documentStream(db, store, document, { start: 1000, end: 2100 }));
        expect(part.bytes.equals(bytes.subarray(1000, 2101))).to.be.true();
    });

    test('damage in the first chunk is an error before the answer starts, whole or in a range', async () => {

        const { chunks, store, document } = setUp(Crypto.randomBytes(chunkSize * 2));
        chunks.get(0)!.data[0]![5]! ^= 1;
        await expect(documentStream(db, store, document)).to.reject(/does not match the SHA-256/);
        await expect(documentStream(db, store, document, { start: 0, end: 10 })).to.reject(/does not match/);
    });

    test('damage further on ends a whole download before its last chunk, whatever its length, and a range at the chunk', async () => {

        const bytes = Crypto.randomBytes(chunkSize * 4 + 10);
        for (const change of ['flip', 'longer', 'shorter', 'missing'] as const) {
            const { chunks, store, document } = setUp(bytes);
            const stored = chunks.get(2)!;
            const data = Buffer.from(stored.data[0]!);
            if (change === 'flip') {
                data[100]! ^= 0x80;
                chunks.set(2, { ...stored, data: [data] });
            }
            else if (change === 'missing') {
                chunks.delete(2);
            }
            else {
                // A chunk of another length keeps a hash of its own bytes: only its length tells.
                const other = change === 'longer' ? Buffer.concat([data, Buffer.alloc(chunkSize)]) : data.subarray(0, 10);
                chunks.set(2, { data: [other], sha256: hex(other) });
            }

            const { bytes: sent, error } = await drain(await documentStream(db, store, document));
            expect(error, change).to.exist();
            expect(error!.message, change).to.contain('does not match the SHA-256');
            // Never past what Content-Length announces, never the last chunk.
            expect(sent.length, change).to.be.at.most(chunkSize * 4);
            expect(sent.equals(bytes.subarray(0, sent.length)) || change === 'flip', change).to.be.true();
            const range = await drain(await documentStream(db, store, document, { start: chunkSize, end: chunkSize * 3 }));
            expect(range.error, change).to.exist();
            expect(range.bytes.length, change).to.be.at.most(chunkSize);
        }
    });

    test('a whole download vouches for its later chunks by the document\'s SHA-256: a stale hash of one of them does not refuse the right bytes, a range does', async () => {

        const bytes = Crypto.randomBytes(chunkSize * 3);
        const { chunks, store, document } = setUp(bytes);
        chunks.set(1, { ...chunks.get(1)!, sha256: '0'.repeat(64) });
        expect((await drain(await documentStream(db, store, document))).bytes.equals(bytes)).to.be.true();
        const range = await drain(await documentStream(db, store, document, { start: 0, end: chunkSize * 2 - 1 }));
        expect(range.error).to.exist();
        expect(range.bytes.length).to.equal(chunkSize);
    });
});
