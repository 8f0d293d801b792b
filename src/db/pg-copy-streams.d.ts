// The part of pg-copy-streams Osprey uses (src/db/pg-copy.ts); the package ships no types.
declare module 'pg-copy-streams' {
    import type { Readable } from 'node:stream';

    /** A query for node-pg's `client.query`: the rows of a `COPY … TO STDOUT`, as the server sends them. */
    export function to(text: string): Readable;
}
