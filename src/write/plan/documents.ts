import { findDocument, ownerOf, type DocumentRow } from '../../attachments/documents';
import { documentFieldNames } from '../../attachments/inline';
import { checkDescription, checkFileName, checkLink, checkTitle, docTypePattern, documentType } from '../../attachments/names';
import type { AttributeError } from '../../errors/maximo-error';
import type { BusinessObject, Row } from '../../structures/registry';
import type { WriteScope } from '../context';


// A record's documents in its write body (issue 36; IBM's guide, "Inline in the record JSON"): `doclinks: [{…}]` on
// a create, an update, a merge or a sync. Each item is checked here, with the rest of the body, before anything is
// written, and written by ../apply/documents.ts in the write's transaction, so the record and its documents are
// all or nothing.
//
// - `{urltype: 'FILE', documentdata: <base64>, urlname: <file name>, doctype?, document?, description?,
//   contenttype?}` adds a file;
// - `{urltype: 'URL', urlname | newurlname: <address>, title? | document?, doctype?, description?}` adds a link;
// - `{_action: 'Delete', href: …/doclinks/{id}}` (or `doclinksid`) deletes a document of this record;
// - an item naming a document of this record by its href or doclinksid without `_action` leaves it as it is
//   (documents are not edited: delete one and add it again), so a record read with inlinedoc=1 and written back
//   adds nothing twice.
//
// An update with doclinks adds to the record's documents, as IBM's guide says of it, whether it is a merge or not:
// the documents it leaves out are kept (unlike child rows, which an update without MERGE replaces). Documents are
// not the structure's child rows, and a client that sends one new file must not lose the others by it; it deletes
// one by naming it with `_action: 'Delete'`.

export type DocumentPlan =
    | { readonly op: 'file'; readonly document: string; readonly fileName: string; readonly description: string | null; readonly doctype: string; readonly mimetype: string; readonly bytes: Buffer }
    | { readonly op: 'url'; readonly document: string; readonly urlname: string; readonly description: string | null; readonly doctype: string }
    | { readonly op: 'delete'; readonly row: DocumentRow };

// The names an item may carry: what a write reads, and what a record's read renders of a document (sent back).
const textFields = ['urltype', 'documentdata', 'doctype', 'urlname', 'newurlname', 'document', 'title', 'description', 'contenttype'] as const;
const written = new Set(['urltype', 'documentdata', 'doctype', 'urlname', 'newurlname', 'document', 'title', 'description', 'contenttype', 'href', 'localref', 'doclinksid', '_action']);
const echoed = new Set(documentFieldNames.map((name) => name.toLowerCase()));

const base64 = /^[A-Za-z0-9+/]*={0,2}$/;
const base64Url = /^[A-Za-z0-9_-]*={0,2}$/;

// base64 (or its URL-safe form), line breaks allowed; undefined when it is not.
const decoded = (text: string): Buffer | undefined => {

    const compact = text.replace(/\s/g, '');
    if ((!base64.test(compact) && !base64Url.test(compact)) || compact.length % 4 === 1) {
        return undefined;
    }

    return Buffer.from(compact, 'base64');
};


// The document an item names: …/doclinks/{id} (its href), its localref (…/doclinks/{position}-{id}), or its
// doclinksid.
const documentLink = /\/doclinks\/(?:\d{1,9}-)?(\d{1,16})\/?(?:[?#].*)?$/i;

const namedId = (item: Row): number | undefined => {

    const link = item.href ?? item.localref;
    const href = typeof link === 'string' ? documentLink.exec(link)?.[1] : undefined;
    const text = href ?? (item.doclinksid === undefined || item.doclinksid === null ? undefined : String(item.doclinksid));
    return text !== undefined && /^\d{1,16}$/.test(text) ? Number(text) : undefined;
};

// What an item names its document by, for a refusal.
const naming = (item: Row): string => JSON.stringify(item.href ?? item.localref ?? item.doclinksid);

const text = (value: unknown): string | undefined => (typeof value === 'string' && value.trim() ? value.trim() : undefined);

// The documents of a write body's record: checked, the errors added to the scope's. `current`: the stored record
// (an update), none on a create.
export const planDocuments = async (scope: WriteScope, object: BusinessObject, items: readonly unknown[], current: Row | undefined): Promise<DocumentPlan[]> => {

    const plans: DocumentPlan[] = [];
    const errors: AttributeError[] = [];
    const fail = (index: number, attribute: string, message: string, reason: AttributeError['reason'] = 'badRequest') => {

        errors.push({ attribute, objectPath: `${object.path}/doclinks`, message: `doclinks[${index}]: ${message}`, reason });
    };

    const place = scope.ctx.documents;
    if (!place) {
        scope.errors.push({ attribute: 'doclinks', objectPath: object.path, message: 'This server keeps no attachments; write the record without doclinks.', reason: 'badRequest' });
        return plans;
    }

    const owner = current ? ownerOf(object, current) : undefined;
    const deleted = new Set<number>();
    for (const [index, raw] of items.entries()) {
        if (!raw || typeof raw !== 'object' || Array.isArray(raw)) {
            fail(index, 'doclinks', 'each document is a JSON object.');
            continue;
        }

        const item = Object.fromEntries(Object.entries(raw as Row).map(([key, value]) => [key.toLowerCase(), value]));
        const unknown = Object.keys(item).filter((key) => !written.has(key) && !echoed.has(key));
        if (unknown.length) {
            fail(index, unknown[0]!, `${unknown[0]} is not a field of a document; a document has urltype, urlname (or newurlname), documentdata, doctype, document (or title), description, contenttype.`, 'unknownAttribute');
            continue;
        }

        const action = item._action === undefined ? undefined : String(item._action).toLowerCase();
        const id = namedId(item);
        if (action === 'delete' || (action === undefined && (item.href !== undefined || item.localref !== undefined || item.doclinksid !== undefined))) {
            if (id === undefined) {
                fail(index, 'href', `a document is named by its href (…/doclinks/{id}), its localref or doclinksid, and ${item.href === undefined && item.localref === undefined && item.doclinksid === undefined ? 'this one names none' : `${naming(item)} names none`}.`);
                continue;
            }

            const found = owner ? await findDocument(scope.db, owner, id) : undefined;
            if (!found) {
                fail(index, 'href', `there is no document ${id} of this ${object.name} record${owner ? '' : ' (a new record has none)'}.`);
                continue;
            }

            if (action === 'delete' && !deleted.has(id)) {
                deleted.add(id);
                plans.push({ op: 'delete', row: found });
            }

            continue;
        }

        if (action !== undefined && !['add', 'addchange'].includes(action)) {
            fail(index, '_action', `the _action ${JSON.stringify(item._action)} of a document is Delete (with its href), or none to add one.`);
            continue;
        }

        // What a read renders of a document and the server sets (createby, ownerid, attachmentsize…): sent back
        // with the document's href it is left as it was; on a new document it would be silently not what was asked.
        const readOnly = Object.keys(item).find((key) => !written.has(key) && echoed.has(key));
        if (readOnly) {
            fail(index, readOnly, `${readOnly} of a document is set by the server, not by a write; send a new document without it.`);
            continue;
        }

        // Every field is text: an object or a number would be stored as its string ("[object Object]").
        const notText = textFields.find((name) => item[name] !== undefined && item[name] !== null && typeof item[name] !== 'string');
        if (notText) {
            fail(index, notText, `${notText} of a document is text, not ${Array.isArray(item[notText]) ? 'an array' : typeof item[notText]}.`);
            continue;
        }

        const urltype = String(item.urltype ?? (item.documentdata === undefined ? 'URL' : 'FILE')).toUpperCase();
        const doctype = text(item.doctype) ?? 'Attachments';
        if (!docTypePattern.test(doctype)) {
            fail(index, 'doctype', `the document type ${JSON.stringify(doctype)} is not one: a type is 1 to 64 letters, digits, spaces, _ . or -.`);
            continue;
        }

        let description: string | null = null;
        try {
            description = item.description === undefined || item.description === null ? null : checkDescription(String(item.description), 'the description');
        }
        catch (error) {
            fail(index, 'description', (error as Error).message);
            continue;
        }

        if (urltype === 'FILE') {
            if (typeof item.documentdata !== 'string') {
                fail(index, 'documentdata', 'a FILE document carries its bytes in documentdata, as base64 text.');
                continue;
            }

            const bytes = decoded(item.documentdata);
            if (!bytes) {
                fail(index, 'documentdata', 'documentdata is not base64: it holds a character base64 does not use, = before its end, or a length base64 cannot have.');
                continue;
            }

            if (bytes.length > place.maxSize) {
                fail(index, 'documentdata', `the document is ${bytes.length} bytes, larger than the limit for ${scope.structure.name} attachments, ${place.maxSize} bytes.`, 'tooLarge');
                continue;
            }

            let fileName: string;
            let document: string;
            try {
                fileName = checkFileName(String(item.urlname ?? item.document ?? ''), `doclinks[${index}].urlname (the file name)`);
                document = item.document === undefined ? fileName : checkFileName(String(item.document), `doclinks[${index}].document`);
            }
            catch (error) {
                fail(index, 'urlname', (error as Error).message);
                continue;
            }

            plans.push({ op: 'file', document, fileName, description, doctype, mimetype: documentType(text(item.contenttype), fileName), bytes });
            continue;
        }

        if (urltype !== 'URL' && urltype !== 'WWW') {
            fail(index, 'urltype', `urltype ${JSON.stringify(item.urltype)} is FILE (a file in documentdata) or URL (a link in urlname).`);
            continue;
        }

        if (item.documentdata !== undefined) {
            fail(index, 'documentdata', 'a URL document is a link and has no bytes: send urltype FILE with documentdata, or the link alone.');
            continue;
        }

        let urlname: string;
        try {
            urlname = checkLink(String(text(item.newurlname) ?? text(item.urlname) ?? ''), `doclinks[${index}].urlname, the address`);
        }
        catch (error) {
            fail(index, 'urlname', (error as Error).message);
            continue;
        }

        // A title the item names is checked as the route's slug is; one taken from the address is its start.
        const named = text(item.title) ?? text(item.document);
        let title: string;
        try {
            title = named === undefined ? [...urlname].slice(0, 255).join('') : checkTitle(named, `doclinks[${index}].title`);
        }
        catch (error) {
            fail(index, 'title', (error as Error).message);
            continue;
        }

        plans.push({ op: 'url', document: title, urlname, description, doctype });
    }

    scope.errors.push(...errors);
    return plans;
};
