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
// read from the pieces as they came off the socket, and a field is answered as views of them, never copied: each
// copy of a megabyte is a megabyte more for the collector (docs/performance.md).
const signature = Buffer.from('PGCOPY\n\xff\r\n\0', 'latin1');

const malformed = () => new Error('PostgreSQL answered a binary COPY this server does not read.');

class Pieces {

    #pieces: readonly Buffer[];
    #index = 0;
    #offset = 0;

    constructor(pieces: readonly Buffer[]) {

        this.#pieces = pieces;
    }

    // The next `length` bytes, as views of the pieces that hold them.
    take(length: number): Buffer[] {

        const views: Buffer[] = [];
        let left = length;
        while (left > 0) {
            const piece = this.#pieces[this.#index];
            if (!piece) {
                throw malformed();
            }

            const end = Math.min(piece.length, this.#offset + left);
            views.push(piece.subarray(this.#offset, end));
            left -= end - this.#offset;
            this.#offset = end;
            if (this.#offset === piece.length) {
                ++this.#index;
                this.#offset = 0;
            }
        }

        return views;
    }

    int(length: 2 | 4): number {

        const bytes = joined(this.take(length));
        return length === 2 ? bytes.readInt16BE(0) : bytes.readInt32BE(0);
    }
}

/** Views as one buffer (copied only when there are several). */
export const joined = (views: readonly Buffer[]): Buffer => (views.length === 1 ? views[0]! : Buffer.concat(views));

export const parseBinaryCopy = (pieces: readonly Buffer[]): (Buffer[] | null)[][] => {

    const data = new Pieces(pieces);
    if (!joined(data.take(signature.length)).equals(signature)) {
        throw malformed();
    }

    data.int(4);
    data.take(data.int(4));
    const rows: (Buffer[] | null)[][] = [];
    for (;;) {
        const count = data.int(2);
        if (count === -1) {
            return rows;
        }

        const row: (Buffer[] | null)[] = [];
        for (let j = 0; j < count; ++j) {
            const length = data.int(4);
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

// The rows of `sql` (a select), each as its fields' bytes in the binary form of their types (an integer as four
// bytes, big-endian; a text as UTF-8; a bytea as it is), each field in one or more pieces. On the transaction's connection where the Db has one, else
// on one of the pool's.
export const binaryRows = async (db: Db, sql: string): Promise<(Buffer[] | null)[][]> => {

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
