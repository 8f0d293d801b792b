import * as Crypto from 'node:crypto';

import { deleteDocument, insertDocument, newContentKey, ownerOf } from '../../attachments/documents';
import type { BusinessObject, Row } from '../../structures/registry';
import type { WriteScope } from '../context';
import type { DocumentPlan } from '../plan/documents';


// Writes a record's checked inline documents (../plan/documents.ts) in the write's transaction, once the record's
// row is written (a new record's unique id is known): a file's bytes in chunks of the store's size, each with its
// SHA-256, and the document's row with the whole's SHA-256 and size, as an upload keeps them
// (src/attachments/upload.ts); a deleted document's bytes are swept after the commit.
export const applyDocuments = async (scope: WriteScope, object: BusinessObject, row: Row, plans: readonly DocumentPlan[]): Promise<void> => {

    const { db, ctx } = scope;
    const owner = ownerOf(object, row);
    const now = ctx.now.getTime();
    const common = { ownertable: owner.object.name, ownerid: owner.id, createby: ctx.userid, created: now };
    for (const plan of plans) {
        if (plan.op === 'delete') {
            await deleteDocument(db, plan.row, now);
            scope.contents!.gone = true;
            continue;
        }

        if (plan.op === 'url') {
            await insertDocument(db, { ...common, document: plan.document, description: plan.description, doctype: plan.doctype, urltype: 'URL', urlname: plan.urlname, mimetype: 'text/uri-list', size: 0, sha256: null, contentkey: null, chunksize: null, store: null });
            continue;
        }

        const store = ctx.documents!.store;
        const key = newContentKey();
        // Noted before the first chunk: a write that fails after it leaves the folder store's file to sweep.
        scope.contents!.stored.push({ key, store: store.name });
        const { chunkSize } = store;
        for (let i = 0; i * chunkSize < plan.bytes.length; ++i) {
            await store.writeIn(db, key, i, plan.bytes.subarray(i * chunkSize, (i + 1) * chunkSize));
        }

        await store.finish(key);
        await insertDocument(db, {
            ...common,
            document: plan.document,
            description: plan.description,
            doctype: plan.doctype,
            urltype: 'FILE',
            urlname: plan.fileName,
            mimetype: plan.mimetype,
            size: plan.bytes.length,
            sha256: Crypto.createHash('sha256').update(plan.bytes).digest('hex'),
            contentkey: key,
            chunksize: store.chunkSize,
            store: store.name
        });
    }
};
