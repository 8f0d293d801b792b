import type { DocumentRow } from '../../attachments/documents';
import { documentsOf } from '../../attachments/documents';
import { documentRecord, inlineData, spendBytes, type InlineBytes } from '../../attachments/inline';
import type { ContentStore } from '../../attachments/store';
import type { Db } from '../../db/db';
import type { Row } from '../execute/find';
import type { SelectPlan } from '../plan/select-plan';


// A record's documents in the record (issue 36): `doclinks` as an array where a select names `doclinks{…}`, or
// where `inlinedoc=1` asks for them in place of the `doclinks: {href}` link a whole record carries. The documents
// of a page's records are read by one statement (src/attachments/documents.ts documentsOf) and count toward the
// answer's rows as child rows do; with inlinedoc=1 a file's bytes come along in base64, within a byte budget
// checked on the documents' sizes before any byte is read.

export interface DocumentOptions {
    /** inlinedoc=1: documents render in records (an array), files with their bytes (`documentdata`). */
    readonly inline: boolean;
    /** The store a document's bytes are in (src/attachments/attachments.ts storeOf). */
    readonly storeOf: (document: DocumentRow) => ContentStore;
    readonly bytes: InlineBytes;
}

// What a plan renders of the records' documents: the key, the fields (undefined: all); none where it renders none.
export const documentsWanted = (plan: SelectPlan, options: DocumentOptions | undefined): SelectPlan['documents'] => {

    if (plan.documents) {
        return plan.documents;
    }

    return plan.all && options?.inline && plan.object.attachments ? { key: 'doclinks' } : undefined;
};

// Sets each record's documents under the wanted key. `spend` counts the rows toward the answer's budget; `left`:
// how many it may still hold (one more is read, to tell that there are too many).
export const renderDocuments = async (db: Db, plan: SelectPlan, rows: readonly Row[], records: Row[], hrefs: readonly string[], wanted: NonNullable<SelectPlan['documents']>, options: DocumentOptions | undefined, budget: { left: () => number; spend: (rows: number) => void }): Promise<void> => {

    const object = plan.object;
    const ids = rows.map((row) => Number(row[object.uniqueColumn]));
    const found = await documentsOf(db, object, [...new Set(ids)], budget.left() + 1);
    budget.spend([...found.values()].reduce((sum, documents) => sum + documents.length, 0));
    const inline = options?.inline === true;
    // Every byte the answer would inline is counted before the first is read.
    if (inline) {
        ids.forEach((id, i) => {

            for (const document of found.get(id) ?? []) {
                if (document.urltype === 'FILE') {
                    spendBytes(options!.bytes, document, `${hrefs[i]}/doclinks/${document.doclinksid}`);
                }
            }
        });
    }

    for (let i = 0; i < records.length; ++i) {
        const collection = `${hrefs[i]}/doclinks`;
        const documents: Row[] = [];
        for (const document of found.get(ids[i]!) ?? []) {
            const data = inline && document.urltype === 'FILE' ? await inlineData(db, options!.storeOf(document), document) : undefined;
            documents.push(documentRecord(collection, document, wanted.fields, data));
        }

        records[i]![wanted.key] = documents;
    }
};
