import * as Crypto from 'node:crypto';

import type { Db } from '../db/db';
import type { BusinessObject, Registry, Row } from '../structures/registry';
import type { StoreName } from './store';


// The rows of attached documents (osprey_doclink). A document belongs to a record by the record's business object
// and unique id, so every structure of that object (MXAPIWO, MXAPIWODETAIL) sees the same documents, and deleting
// the record through any of them deletes them.

export interface DocumentRow {
    readonly doclinksid: number;
    readonly ownertable: string;
    readonly ownerid: number;
    /** The file name (a URL document: its title). */
    readonly document: string;
    readonly description: string | null;
    readonly doctype: string;
    readonly urltype: 'FILE' | 'URL';
    /** A URL document's address; a file's name. */
    readonly urlname: string | null;
    readonly mimetype: string;
    readonly size: number;
    readonly sha256: string | null;
    readonly contentkey: string | null;
    readonly chunksize: number | null;
    readonly store: StoreName | null;
    readonly createby: string;
    readonly created: number;
}

export type NewDocument = Omit<DocumentRow, 'doclinksid'>;

const columns = ['doclinksid', 'ownertable', 'ownerid', 'document', 'description', 'doctype', 'urltype', 'urlname', 'mimetype', 'size', 'sha256', 'contentkey', 'chunksize', 'store', 'createby', 'created'] as const;
const columnList = columns.map((column) => `"${column}"`).join(', ');

// The drivers answer bigint columns as numbers or strings (PostgreSQL's int8): read here as numbers.
const documentOf = (row: Row): DocumentRow => {

    return {
        ...row,
        doclinksid: Number(row.doclinksid),
        ownerid: Number(row.ownerid),
        size: Number(row.size),
        created: Number(row.created),
        chunksize: row.chunksize === null || row.chunksize === undefined ? null : Number(row.chunksize)
    } as DocumentRow;
};

export const newContentKey = (): string => Crypto.randomBytes(16).toString('hex');

// The owner of a record's documents: its business object and unique id.
export interface Owner {
    readonly object: BusinessObject;
    readonly id: number;
}

export const ownerOf = (object: BusinessObject, record: Row): Owner => ({ object, id: Number(record[object.uniqueColumn]) });

export const countDocuments = async (db: Db, owner: Owner): Promise<number> => {

    const [row] = await db.rows('select count(*) as "n" from "osprey_doclink" where "ownertable" = ? and "ownerid" = ?', [owner.object.name, owner.id]);
    return Number(row?.n ?? 0);
};

// A page of a record's documents, oldest first.
export const listDocuments = async (db: Db, owner: Owner, page: { limit: number; offset: number }): Promise<DocumentRow[]> => {

    const rows = await db.rows(`select ${columnList} from "osprey_doclink" where "ownertable" = ? and "ownerid" = ? order by "doclinksid" limit ? offset ?`, [owner.object.name, owner.id, page.limit, page.offset]);
    return rows.map(documentOf);
};

// The documents of many records at once (a report's, a page's inline doclinks), by owner id. `limit`: at most this
// many rows are read in all (an answer's row budget reads one beyond what it may still hold, and stops there).
export const documentsOf = async (db: Db, object: BusinessObject, ids: readonly number[], limit = Infinity): Promise<Map<number, DocumentRow[]>> => {

    const found = new Map<number, DocumentRow[]>();
    let read = 0;
    for (let i = 0; i < ids.length && read < limit; i += 500) {
        const slice = ids.slice(i, i + 500);
        const bounded = Number.isFinite(limit) ? ` limit ${Math.max(0, Math.floor(limit - read))}` : '';
        const rows = await db.rows(`select ${columnList} from "osprey_doclink" where "ownertable" = ? and "ownerid" in (${slice.map(() => '?').join(', ')}) order by "doclinksid"${bounded}`, [object.name, ...slice], { shapes: 'client' });
        read += rows.length;
        for (const row of rows.map(documentOf)) {
            found.set(row.ownerid, [...found.get(row.ownerid) ?? [], row]);
        }
    }

    return found;
};

export const findDocument = async (db: Db, owner: Owner, doclinksid: number): Promise<DocumentRow | undefined> => {

    const [row] = await db.rows(`select ${columnList} from "osprey_doclink" where "doclinksid" = ? and "ownertable" = ? and "ownerid" = ?`, [doclinksid, owner.object.name, owner.id]);
    return row ? documentOf(row) : undefined;
};

export const insertDocument = async (db: Db, document: NewDocument): Promise<DocumentRow> => {

    const [row] = await db.query('osprey_doclink').insert(document).returning('doclinksid') as Row[];
    return { ...document, doclinksid: Number(row!.doclinksid) };
};

// Marks content as gone (its chunks and file are removed after the commit: sweep.ts).
export const contentGone = async (db: Db, key: string, store: StoreName, now: number): Promise<void> => {

    await db.rows('insert into "osprey_docgone" ("contentkey", "store", "gone") values (?, ?, ?)', [key, store, now]);
};

// Each delete marks gone only the content of the rows it deleted itself (`returning`): on PostgreSQL two
// transactions may both have found a document (two deletes of it, or of it and its record), and the one whose
// delete waited for the other's lock finds the row gone when it gets it. Marking gone first, as a read showed it,
// made the second a duplicate key (a 500) or a deadlock.

/** Deletes the document's row; false when another transaction deleted it first. */
export const deleteDocument = async (db: Db, document: DocumentRow, now: number): Promise<boolean> => {

    const deleted = await db.rows('delete from "osprey_doclink" where "doclinksid" = ? returning "contentkey", "store"', [document.doclinksid]);
    await markGone(db, deleted, now);
    return deleted.length > 0;
};

const markGone = async (db: Db, rows: readonly Row[], now: number): Promise<void> => {

    for (const row of rows) {
        if (row.contentkey) {
            await contentGone(db, String(row.contentkey), (row.store ?? 'database') as StoreName, now);
        }
    }
};

// Deleting a record deletes its documents, in the record's transaction (src/write/apply/delete.ts): their rows at
// once, their bytes after the commit.
export const deleteOwnedDocuments = async (db: Db, owner: Owner, now: number): Promise<number> => {

    const deleted = await db.rows('delete from "osprey_doclink" where "ownertable" = ? and "ownerid" = ? returning "contentkey", "store"', [owner.object.name, owner.id]);
    await markGone(db, deleted, now);
    return deleted.length;
};

// The business objects whose records have documents: a structure of the object declares attachments.
const withDocuments = new WeakMap<Registry, ReadonlySet<string>>();

export const hasDocuments = (registry: Registry, object: BusinessObject): boolean => {

    let names = withDocuments.get(registry);
    if (!names) {
        names = new Set(registry.list().filter((structure) => structure.root.attachments).map((structure) => structure.root.name));
        withDocuments.set(registry, names);
    }

    return names.has(object.name);
};
