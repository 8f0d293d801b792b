import type { DocumentRow } from './documents';
import { bareType } from './names';


// A document as the clients read it (CONTRACT §6; IBM's guide, attachment page): the list's members carry it as
// `describedBy`, the meta route answers it alone. IBM's Java client reads `title`, `description` and `urlType` as
// strings (a missing or null one throws), `identifier` as a string, and `href` to find the document again.

export const documentHref = (collection: string, document: DocumentRow): string => `${collection}/${document.doclinksid}`;
export const metaHref = (collection: string, document: DocumentRow): string => `${collection}/meta/${document.doclinksid}`;

// A time as the documents' answers write it: seconds, with the offset.
export const iso = (epochMs: number): string => new Date(epochMs).toISOString().replace(/\.\d{3}Z$/, '+00:00');

export const documentMeta = (collection: string, document: DocumentRow): Record<string, unknown> => ({
    href: metaHref(collection, document),
    identifier: String(document.doclinksid),
    title: document.document,
    fileName: document.document,
    description: document.description ?? '',
    docType: document.doctype,
    urlType: document.urltype,
    ...document.urltype === 'URL' ? { urlname: document.urlname } : {},
    format: { href: `http://purl.org/NET/mediatypes/${bareType(document.mimetype)}`, label: document.mimetype },
    attachmentSize: document.size,
    ...document.sha256 ? { sha256: document.sha256 } : {},
    ownertable: document.ownertable,
    ownerid: document.ownerid,
    created: iso(document.created),
    modified: iso(document.created),
    createby: document.createby,
    changeby: document.createby
});

export const documentMember = (collection: string, document: DocumentRow, position: number): Record<string, unknown> => ({
    href: documentHref(collection, document),
    localref: `${collection}/${position}-${document.doclinksid}`,
    describedBy: documentMeta(collection, document)
});
