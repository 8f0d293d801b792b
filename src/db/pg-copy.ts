import { to as copyTo } from 'pg-copy-streams';

import { clientOf, type Connection, type Db } from './db';


// Rows of a PostgreSQL query as raw bytes, through `COPY (…) TO STDOUT (FORMAT binary)` (pg-copy-streams).
//
// node-pg reads every value as text: a bytea comes as hex, twice its size, which the server encodes and node-pg
// decodes into a string and then into bytes again. For a document's chunks that was most of a download's cost:
// reading 1 MB in chunks of 48 KB took 4.2–5.4 ms of Osprey's CPU and 3.0–4.4 ms of the server's as hex, 1.6–2.2 and
// 1.3–1.9 ms through a binary COPY (docs/performance.md). COPY binds no parameters, so the query's values are
// written into its text: callers pass only SQL they made, with values they checked (store.ts).

interface CopyConnection {
    query(stream: NodeJS.ReadableStream): NodeJS.ReadableStream;
}

// The binary COPY format (PostgreSQL's documentation, COPY, "Binary Format"): a signature, flags and a header
// extension, then each row as its field count and each field as its length (-1: null) and bytes, then -1. It is
// read from the pieces as they came off the socket: a field within one piece is a view of it, and only one that
// spans pieces is copied (a megabyte's copy is a megabyte more for the collector to sweep: docs/performance.md).
const signature = Buffer.from('PGCOPY\n\xff\r\n\0', 'latin1');

const malformed = () => new Error('PostgreSQL answered a binary COPY this server does not read.');

class Pieces {

    #pieces: readonly Buffer[];
    #index = 0;
    #offset = 0;

    constructor(pieces: readonly Buffer[]) {

        this.#pieces = pieces;
    }

    // The next `length` bytes: a view where one piece holds them, else a copy.
    take(length: number): Buffer {

        const piece = this.#pieces[this.#index];
        if (piece && this.#offset + length <= piece.length) {
            const bytes = piece.subarray(this.#offset, this.#offset + length);
            this.#offset += length;
            this.#skipEnded();
            return bytes;
        }

        const bytes = Buffer.allocUnsafe(length);
        let filled = 0;
        while (filled < length) {
            const current = this.#pieces[this.#index];
            if (!current) {
                throw malformed();
            }

            const n = current.copy(bytes, filled, this.#offset, Math.min(current.length, this.#offset + length - filled));
            filled += n;
            this.#offset += n;
            this.#skipEnded();
        }

        return bytes;
    }

    #skipEnded() {

        while (this.#index < this.#pieces.length && this.#offset >= this.#pieces[this.#index]!.length) {
            ++this.#index;
            this.#offset = 0;
        }
    }
}

export const parseBinaryCopy = (pieces: readonly Buffer[]): (Buffer | null)[][] => {

    const data = new Pieces(pieces);
    if (!data.take(signature.length).equals(signature)) {
        throw malformed();
    }

    data.take(4);
    data.take(data.take(4).readInt32BE(0));
    const rows: (Buffer | null)[][] = [];
    for (;;) {
        const count = data.take(2).readInt16BE(0);
        if (count === -1) {
            return rows;
        }

        const row: (Buffer | null)[] = [];
        for (let j = 0; j < count; ++j) {
            const length = data.take(4).readInt32BE(0);
            row.push(length < 0 ? null : data.take(length));
        }

        rows.push(row);
    }
};

const collect = (connection: Connection, sql: string): Promise<Buffer[]> => {

    return new Promise((resolve, reject) => {

        const parts: Buffer[] = [];
        const stream = (connection as CopyConnection).query(copyTo(`COPY (${sql}) TO STDOUT (FORMAT binary)`));
        stream.on('data', (part: Buffer) => parts.push(part));
        stream.on('end', () => resolve(parts));
        stream.on('error', reject);
    });
};

// The rows of `sql` (a select), each as its fields' bytes in the binary form of their types: an integer as four
// bytes, big-endian; a text as UTF-8; a bytea as it is. On the transaction's connection where the Db has one, else
// on one of the pool's.
export const binaryRows = async (db: Db, sql: string): Promise<(Buffer | null)[][]> => {

    if (db.connection) {
        return parseBinaryCopy(await collect(db.connection, sql));
    }

    const client = clientOf(db.knex);
    const connection = await client.acquireConnection();
    try {
        return parseBinaryCopy(await collect(connection, sql));
    }
    finally {
        await client.releaseConnection(connection);
    }
};
