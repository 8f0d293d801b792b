import * as Crypto from 'node:crypto';

import type { Db } from '../db/db';
import { maximoError } from '../errors/maximo-error';
import type { DocumentRow } from './documents';
import { damaged, emptyHash, readChecked } from './download';
import { documentHref, documentMeta, iso } from './serialize';
import type { ContentStore } from './store';


// A record's documents inside the record (issue 36; IBM's guide, "Inline in the record JSON"): `doclinks` as an
// array, by `oslc.select=doclinks{…}` or `inlinedoc=1`. Each document renders under the names of Maximo's DOCLINKS
// attributes (urltype, urlname, doctype, document, description…), the names a record's write sends them by
// (src/write/plan/documents.ts), so a client reads back what it wrote; `describedBy` is the meta the list route
// answers (./serialize.ts), for a client that reads that shape; `href` is the document's own (its bytes).

const fields: Readonly<Record<string, (collection: string, document: DocumentRow) => unknown>> = {
    doclinksid: (_, document) => document.doclinksid,
    document: (_, document) => document.document,
    description: (_, document) => document.description ?? '',
    doctype: (_, document) => document.doctype,
    urltype: (_, document) => document.urltype,
    urlname: (_, document) => document.urlname ?? document.document,
    contenttype: (_, document) => document.mimetype,
    attachmentsize: (_, document) => document.size,
    ownertable: (_, document) => document.ownertable,
    ownerid: (_, document) => document.ownerid,
    createby: (_, document) => document.createby,
    createdate: (_, document) => iso(document.created),
    changeby: (_, document) => document.createby,
    changedate: (_, document) => iso(document.created),
    describedBy: (collection, document) => documentMeta(collection, document)
};

export const documentFieldNames: readonly string[] = Object.keys(fields);

// The name a select gives a field (any case), as it renders; undefined: no such field.
export const documentField = (name: string): string | undefined => documentFieldNames.find((field) => field.toLowerCase() === name.toLowerCase());

// A document as a record carries it: `fields` named (undefined: all of them), with `documentdata` when given.
export const documentRecord = (collection: string, document: DocumentRow, named: readonly string[] | undefined, data?: string): Record<string, unknown> => {

    const record: Record<string, unknown> = { href: documentHref(collection, document) };
    for (const name of named ?? documentFieldNames) {
        record[name] = fields[name]!(collection, document);
    }

    if (data !== undefined) {
        record.documentdata = data;
    }

    return record;
};

// The bytes one answer inlines (inlinedoc=1), and how many it has: the JSON body limit (OSPREY_MAX_BODY), the
// size a write may send them in. The documents' sizes are known from their rows: an answer that would pass it is
// refused before a byte is read.
export interface InlineBytes {
    readonly limit: number;
    used: number;
}

export const spendBytes = (budget: InlineBytes, document: DocumentRow, href: string): void => {

    budget.used += document.size;
    if (budget.used > budget.limit) {
        throw maximoError('badRequest', `inlinedoc=1 would put more than ${budget.limit} bytes of documents in this answer (OSPREY_MAX_BODY): document ${document.doclinksid} (${document.document}, ${document.size} bytes) is not inlined; read the records without inlinedoc and download it by its href, ${href}.`);
    }
};

// A file's bytes in base64, read chunk by chunk through its store, each chunk and the whole checked against the
// SHA-256 kept when it was written (a file without one, as no upload writes it, is damage; an empty one too, unless
// its hash is the empty file's).
export const inlineData = async (db: Db, store: ContentStore, document: DocumentRow): Promise<string> => {

    if (document.size === 0) {
        if (document.sha256 !== emptyHash) {
            throw damaged(document);
        }

        return '';
    }

    const chunk = document.chunksize ?? document.size;
    const count = Math.ceil(document.size / chunk);
    const hash = Crypto.createHash('sha256');
    const parts: Buffer[] = [];
    for (let i = 0; i < count; ++i) {
        for (const part of await readChecked(db, store, document, i)) {
            hash.update(part);
            parts.push(part);
        }
    }

    const bytes = Buffer.concat(parts);
    if (bytes.length !== document.size || hash.digest('hex') !== document.sha256) {
        throw damaged(document);
    }

    return bytes.toString('base64');
};
