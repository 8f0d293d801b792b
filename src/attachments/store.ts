import * as Crypto from 'node:crypto';
import * as Fs from 'node:fs';
import * as Path from 'node:path';

import type { Knex } from 'knex';

import type { Db } from '../db/db';
import { isPostgres } from '../db/knex';
import { binaryRows, joined } from '../db/pg-copy';
import { transaction } from '../db/transaction';


// Where a document's bytes are kept (issue 36). Both stores cut a document into chunks of `chunkSize` bytes and
// keep each chunk's SHA-256 in osprey_docchunk, so that any range is read and checked without the rest, and an
// upload or a download holds one chunk in memory at a time. The database store keeps the bytes in the chunk rows
// (SQLite BLOB, PostgreSQL bytea): every node sees every file through the database it already shares. The folder
// store keeps them in one file per document under OSPREY_ATTACHMENTS_DIR, which every node must mount.
//
// An upload's chunks are written a quarter megabyte at a time, each batch in a short transaction of its own: on
// SQLite, whose one writer every write queues for, a 50 MB upload is 200 short writes between other requests'
// writes, not one that holds the writer for the whole upload. The chunks belong to no document until the
// document's row is inserted (documents.ts).
//
// The chunk size is the store's, kept with each document (so a document reads back whatever the size was when
// it was written): 256 KB. PostgreSQL's chunks were 48 KB while they were read as hex text (node-pg reads a
// bytea so, and V8 makes a string of 128 KB or more far slower per byte); they are read as bytes now (copyRun), and
// documents written then still read back in their 48 KB chunks.

export const writeBatch = 256 * 1024;
export const chunkSize = 256 * 1024;

export type StoreName = 'database' | 'folder';

export interface ContentStore {
    readonly name: StoreName;
    /** The size of each chunk but the last of a document this store writes. */
    readonly chunkSize: number;
    /** Writes chunks `seq`, `seq + 1`, … of the content under `key` (seq counts from 0), in one transaction;
     * `before` runs first in it (an upload's registration, upload.ts). */
    write(key: string, seq: number, chunks: readonly Buffer[], before?: (db: Db) => Promise<void>): Promise<void>;
    /** The same in a transaction the caller holds (a record's write with inline doclinks: src/write/apply/documents.ts),
     * so the chunks commit or roll back with it. The folder store's file is not transactional: a write that rolls
     * back marks the key gone afterwards (src/write/transaction.ts), and the sweeper removes the file. */
    writeIn(db: Db, key: string, seq: number, data: Buffer): Promise<void>;
    /** The content is complete: the folder store moves its file where reads find it. */
    finish(key: string): Promise<void>;
    /** Chunk `seq` as stored (its bytes and the SHA-256 kept when it was written), undefined when it is not there. */
    read(db: Db, key: string, seq: number): Promise<StoredChunk | undefined>;
    /** Chunks `first` … `first + count - 1` in one statement, where the store has a cheaper way than one by one (the
     * database's: on PostgreSQL a chunk is small, and a statement per chunk a round trip); those not there are left
     * out. */
    readRun?(db: Db, key: string, first: number, count: number): Promise<Map<number, StoredChunk>>;
    /** Removes some of the content of a key that is gone; answers whether none is left. */
    sweep(key: string): Promise<boolean>;
}

export interface StoredChunk {
    /** Its bytes, in one piece or several (a binary COPY's, as they came off the socket). */
    readonly data: readonly Buffer[];
    readonly sha256: string;
}

export const sha256 = (data: Buffer | readonly Buffer[]): string => {

    const hash = Crypto.createHash('sha256');
    for (const piece of Buffer.isBuffer(data) ? [data] : data) {
        hash.update(piece);
    }

    return hash.digest('hex');
};

const insertChunk = 'insert into "osprey_docchunk" ("contentkey", "seq", "sha256", "data") values (?, ?, ?, ?)';
const selectChunk = 'select "data", "sha256" from "osprey_docchunk" where "contentkey" = ? and "seq" = ?';
const selectRun = 'select "seq", "data", "sha256" from "osprey_docchunk" where "contentkey" = ? and "seq" >= ? and "seq" < ?';
const selectHash = 'select "sha256" from "osprey_docchunk" where "contentkey" = ? and "seq" = ?';
// A sweep deletes this many chunks per transaction (4 MB of a database store's bytes).
const sweepBatch = 16;

const sweepChunks = async (knex: Knex, key: string): Promise<boolean> => {

    return await transaction(knex, async (db) => {

        const rows = await db.rows('select "seq" from "osprey_docchunk" where "contentkey" = ? order by "seq" limit ?', [key, sweepBatch]);
        if (!rows.length) {
            return true;
        }

        await db.rows('delete from "osprey_docchunk" where "contentkey" = ? and "seq" <= ?', [key, Number(rows[rows.length - 1]!.seq)]);
        return false;
    });
};

const bytesOf = (value: unknown): Buffer => (Buffer.isBuffer(value) ? value : value instanceof Uint8Array ? Buffer.from(value) : Buffer.alloc(0));

// PostgreSQL's chunks are read as raw bytes through a binary COPY (src/db/pg-copy.ts), which binds no values: the
// key (32 hex digits, checked) and the chunk numbers (checked integers) are written into its text.
const copyRun = async (db: Db, key: string, first: number, count: number): Promise<Map<number, StoredChunk>> => {

    if (!Number.isSafeInteger(first) || !Number.isSafeInteger(count) || first < 0 || count < 1) {
        throw new Error(`Not a run of chunks: ${first}, ${count}`);
    }

    const rows = await binaryRows(db, `select "seq", "sha256", "data" from "osprey_docchunk" where "contentkey" = '${checkedKey(key)}' and "seq" >= ${first} and "seq" < ${first + count}`);
    return new Map(rows.map(([seq, sha, data]) => [joined(seq!).readInt32BE(0), { data: data ?? [], sha256: joined(sha!).toString('latin1') }]));
};

const rowsRun = async (db: Db, key: string, first: number, count: number): Promise<Map<number, StoredChunk>> => {

    const rows = await db.rows(selectRun, [key, first, first + count]);
    return new Map(rows.map((row) => [Number(row.seq), { data: [bytesOf(row.data)], sha256: String(row.sha256) }]));
};

export const databaseStore = (knex: Knex): ContentStore => {

    const postgres = isPostgres(knex);
    return {
        name: 'database',
        chunkSize,
        write: async (key, seq, chunks, before) => {

            await transaction(knex, async (db) => {

                await before?.(db);
                for (const [i, data] of chunks.entries()) {
                    await db.rows(insertChunk, [key, seq + i, sha256(data), data]);
                }
            });
        },
        writeIn: async (db, key, seq, data) => {

            await db.rows(insertChunk, [key, seq, sha256(data), data]);
        },
        finish: () => Promise.resolve(),
        read: async (db, key, seq) => {

            if (postgres) {
                return (await copyRun(db, key, seq, 1)).get(seq);
            }

            const [row] = await db.rows(selectChunk, [key, seq]);
            return row ? { data: [bytesOf(row.data)], sha256: String(row.sha256) } : undefined;
        },
        readRun: postgres ? copyRun : rowsRun,
        sweep: (key) => sweepChunks(knex, key)
    };
};

// A key is 32 hex digits made here (documents.ts newContentKey), never a client's text: it names a file safely.
const checkedKey = (key: string): string => {

    if (!/^[0-9a-f]{32}$/.test(key)) {
        throw new Error(`Not a content key: ${JSON.stringify(key)}`);
    }

    return key;
};

export const folderStore = (knex: Knex, dir: string): ContentStore => {

    const root = Path.resolve(dir);
    const partial = Path.join(root, 'partial');
    const fileOf = (key: string) => Path.join(root, checkedKey(key).slice(0, 2), key);
    const partialOf = (key: string) => Path.join(partial, checkedKey(key));
    // Chunks come in order, one at a time: each is appended where the one before ended.
    const writeFile = async (key: string, seq: number, data: Buffer) => {

        await Fs.promises.mkdir(partial, { recursive: true });
        const handle = await Fs.promises.open(partialOf(key), seq === 0 ? 'w' : 'r+');
        try {
            await handle.write(data, 0, data.length, seq * chunkSize);
            await handle.sync();
        }
        finally {
            await handle.close();
        }
    };

    return {
        name: 'folder',
        chunkSize,
        write: async (key, seq, chunks, before) => {

            for (const [i, data] of chunks.entries()) {
                await writeFile(key, seq + i, data);
            }

            await transaction(knex, async (db) => {

                await before?.(db);
                for (const [i, data] of chunks.entries()) {
                    await db.rows(insertChunk, [key, seq + i, sha256(data), null]);
                }
            });
        },
        writeIn: async (db, key, seq, data) => {

            await writeFile(key, seq, data);
            await db.rows(insertChunk, [key, seq, sha256(data), null]);
        },
        finish: async (key) => {

            const target = fileOf(key);
            await Fs.promises.mkdir(Path.dirname(target), { recursive: true });
            // An empty document wrote no chunk, so it has no partial file yet (nor, in a new folder, its folder).
            await Fs.promises.mkdir(partial, { recursive: true });
            await Fs.promises.writeFile(partialOf(key), Buffer.alloc(0), { flag: 'a' });
            await Fs.promises.rename(partialOf(key), target);
        },
        read: async (db, key, seq) => {

            const [row] = await db.rows(selectHash, [key, seq]);
            if (!row) {
                return undefined;
            }

            let handle: Fs.promises.FileHandle;
            try {
                handle = await Fs.promises.open(fileOf(key), 'r');
            }
            catch {
                // A file that is missing reads as empty: its chunk then fails its hash, as a damaged one does.
                return { data: [], sha256: String(row.sha256) };
            }

            try {
                const buffer = Buffer.alloc(chunkSize);
                const { bytesRead } = await handle.read(buffer, 0, chunkSize, seq * chunkSize);
                return { data: [buffer.subarray(0, bytesRead)], sha256: String(row.sha256) };
            }
            finally {
                await handle.close();
            }
        },
        sweep: async (key) => {

            if (!await sweepChunks(knex, key)) {
                return false;
            }

            await Fs.promises.rm(fileOf(key), { force: true });
            await Fs.promises.rm(partialOf(key), { force: true });
            return true;
        }
    };
};
