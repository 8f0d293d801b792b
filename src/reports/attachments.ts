import type { Knex } from 'knex';

import { documentsOf, type DocumentRow } from '../attachments/documents';
import { documentHref } from '../attachments/serialize';
import type { Db } from '../db/db';
import { maximoError } from '../errors/maximo-error';
import { beyond, costLimits } from '../read/plan/cost';
import { memberId } from '../read/serialize/serialize';
import type { ResourceRequest } from '../request';
import type { Row, Structure } from '../structures/registry';


// A report's attachments (issue 36): with `attachment=1` each record of a report lists the documents attached to
// it, as IBM's guide has it for genreport ("add attachments to the generated report setting the attachment query
// parameter to 1"). The documents of a page of records are read in one statement with the page (documentsOf, 500
// records a statement: as many statements as one call for every record of the report would make, without holding
// every record's id), and a report lists at most OSPREY_MAX_ANSWER_ROWS documents: counted in one statement before
// the document starts, so a report beyond it is a 400 and not a download cut short.

/** A document as a report lists it (the JSON report's `attachments`, a plugin renderer's `documents(record)`):
 * the names are those of the document's meta (…/doclinks/meta/{id}) where it has one. */
export interface ReportAttachment {
    /** The document's content: …/os/{os}/{id}/doclinks/{doclinksid}. */
    readonly href: string;
    readonly fileName: string;
    readonly description: string | null;
    /** The document type (Attachments). */
    readonly docType: string;
    /** FILE, or URL for a link to a document elsewhere. */
    readonly urlType: 'FILE' | 'URL';
    /** A URL document's address. */
    readonly urlname?: string;
    readonly mimeType: string;
    /** In bytes (0 for a URL document). */
    readonly attachmentSize: number;
    readonly createby: string;
    /** When it was attached, ISO 8601 (as the meta's `created`). */
    readonly created: string;
}

const iso = (epochMs: number): string => new Date(epochMs).toISOString().replace(/\.\d{3}Z$/, '+00:00');

export const reportAttachment = (collection: string, document: DocumentRow): ReportAttachment => ({
    href: documentHref(collection, document),
    fileName: document.document,
    description: document.description,
    docType: document.doctype,
    urlType: document.urltype,
    ...document.urltype === 'URL' && document.urlname ? { urlname: document.urlname } : {},
    mimeType: document.mimetype,
    attachmentSize: document.size,
    createby: document.createby,
    created: iso(document.created)
});

/** The documents of a record a report renders (by the record's rendered object): none when it has none. */
export type DocumentsOfRecord = (record: object) => readonly ReportAttachment[];

// The limit and the error of a report that would list more documents than it.
const tooMany = (req: ResourceRequest, limit: number): Error => maximoError('badRequest', `attachment=1: the records of this report have more than ${limit} attached documents, more than one report lists; ${beyond(costLimits(req.osprey.options), 'answerRows')}: narrow the report with oslc.where, or leave attachment=1 out.`);

// The documents of a report's records, page by page. A page's documents are kept by its rendered records, so that
// a renderer finds them by the record it draws; a pass over the records (a plugin may make several) counts its own.
export class ReportDocuments {

    readonly #byRecord = new WeakMap<object, readonly ReportAttachment[]>();

    constructor(private readonly req: ResourceRequest, private readonly base: string, readonly limit: number) { }

    readonly of: DocumentsOfRecord = (record) => this.#byRecord.get(record) ?? [];

    // Reads the documents of a page's rows (as read, with their unique ids and keys) and keeps them by the rendered
    // records (in the same order); answers how many there were. `listed` are those of the pass's pages before:
    // documents attached after the count are still held to the limit, which then cuts the report short.
    async page(db: Db, structure: Structure, rows: readonly Row[], rendered: readonly object[], listed: number): Promise<number> {

        const object = structure.root;
        const found = await documentsOf(db, object, rows.map((row) => Number(row[object.uniqueColumn])));
        let count = 0;
        rows.forEach((row, i) => {

            const documents = found.get(Number(row[object.uniqueColumn]));
            if (documents) {
                const collection = `${this.base}/${memberId(object, row)}/doclinks`;
                this.#byRecord.set(rendered[i]!, documents.map((document) => reportAttachment(collection, document)));
                count += documents.length;
            }
        });

        if (listed + count > this.limit) {
            throw tooMany(this.req, this.limit);
        }

        return count;
    }
}

// A structure without attachments has no documents to list: attachment=1 there is a 400 that says so, rather than
// a report that looks as if its records had none. Checked first, as a parameter is.
export const checkAttachment = (req: ResourceRequest): void => {

    const { structure } = req;
    if (req.read.attachment && !structure.root.attachments) {
        throw maximoError('badRequest', `attachment=1 lists each record's attached documents, and ${structure.name} records have none: its YAML declares no \`doclinks: { attachments: true }\`. Leave attachment=1 out.`);
    }
};

// The report's documents when attachment=1 asks for them, else none. `rows` are the records the report names
// (q0): their documents are counted in one statement, up to one beyond the limit.
export const reportDocuments = async (req: ResourceRequest, base: string, rows: Knex.QueryBuilder): Promise<ReportDocuments | undefined> => {

    const { structure, osprey } = req;
    checkAttachment(req);
    if (!req.read.attachment) {
        return undefined;
    }

    const object = structure.root;
    const limit = osprey.options.maxAnswerRows;
    const { db } = osprey;
    const owners = rows.clone().clearSelect().select(`q0.${object.uniqueColumn}`);
    const some = db.query('osprey_doclink').select('doclinksid').where('ownertable', object.name).whereIn('ownerid', owners).limit(limit + 1);
    const [counted] = await db.knex.count({ n: '*' }).from(some.as('d')) as Row[];
    if (Number(counted?.n ?? 0) > limit) {
        throw tooMany(req, limit);
    }

    return new ReportDocuments(req, base, limit);
};

// A size as a person reads it: 7 B, 12.3 KB, 4.5 MB.
export const sizeText = (bytes: number): string => {

    const units = ['B', 'KB', 'MB', 'GB', 'TB'];
    let value = bytes;
    let unit = 0;
    while (value >= 1024 && unit < units.length - 1) {
        value /= 1024;
        ++unit;
    }

    return unit === 0 ? `${value} B` : `${value < 100 ? value.toFixed(1) : Math.round(value)} ${units[unit]}`;
};
