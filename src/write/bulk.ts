import { poolDb } from '../db/db';
import { maxGroup } from '../db/group-commit';
import { groupsCommits } from '../db/transaction';
import type { SelectPlan } from '../read/plan/select-plan';
import type { ResourceRequest } from '../request';
import { recordHref, writeSelect } from './answer';
import type { WriteScope } from './context';
import { createIn, deleteIn, syncIn, updateIn, type Written } from './operations';
import { allOrNothingFailed, bulkIdOf, bulkItem, bulkItems, keyId, type BulkItem } from './plan/bulk-items';
import { beforeChange, type WriteOutcome } from './records';
import { requireRights, rightsOf, unionOf } from './rights';
import { refuseRecordedTransactionId } from './apply/transaction-ids';
import { runWrite, transactionKey, writeSettingsOf } from './transaction';
import { mapInSlices, slicer } from '../slices';


// POST {home}/os/{os} + x-method-override: BULK (CONTRACT §4): an array of records, each with its operation.
// Each item commits on its own, as in Maximo, so one bad record does not hold back the others; the answer lists
// every item's outcome in input order. With `allornothing: 1` the items run in one transaction: when one fails
// nothing is written, and every item answers which one failed. The rights of every item's operation are checked
// once, before any transaction opens: a bulk with an item the user may not do is refused whole.

/** One item's outcome, in input order; the resources plugin answers it in Maximo's `_responsemeta` form. */
export type BulkResult =
    | { readonly ok: true; readonly status: 200 | 201 | 204; readonly outcome?: WriteOutcome; readonly bulkid: unknown }
    | { readonly ok: false; readonly error: unknown; readonly bulkid: unknown };

// An item as read before anything runs: what it asks (with the select it answers with), or why it cannot be read.
type Read = { readonly item: BulkItem; readonly select: SelectPlan | undefined } | { readonly error: unknown };

const readItem = (req: ResourceRequest, raw: unknown, select: SelectPlan | undefined): Read => {

    try {
        const item = bulkItem(req.structure, raw);
        return { item, select: item.properties ? writeSelect(req, req.structure.root, item.properties) : select };
    }
    catch (error) {
        return { error };
    }
};

// Runs one item in a write scope; an update names its record by href, or else by the key values it carries.
const runItem = async (req: ResourceRequest, scope: WriteScope, read: Read): Promise<{ status: 200 | 201 | 204; written?: Written }> => {

    if ('error' in read) {
        throw read.error;
    }

    const { item: { kind, body, id }, select } = read;
    if (kind === 'create') {
        return { status: 201, written: await createIn(req, scope, body, select) };
    }

    if (kind === 'sync' && id === undefined) {
        const written = await syncIn(req, scope, body, false, select);
        return { status: written.isNew ? 201 : written.record ? 200 : 204, written };
    }

    const target = id ?? keyId(scope.structure, body);
    if (kind === 'delete') {
        await deleteIn(req, scope, target);
        return { status: 204 };
    }

    const written = await updateIn(req, scope, target, body, kind === 'merge', select);
    return { status: written.record ? 200 : 204, written };
};

const success = (req: ResourceRequest, status: 200 | 201 | 204, written: Written | undefined, bulkid: unknown): BulkResult => {

    return { ok: true, status, bulkid, ...(written ? { outcome: { ...written, location: recordHref(req, written.row) } } : {}) };
};

// In one transaction. When an item fails nothing is written, and every item still has its answer, as Maximo's: the
// failing item its error, every other one a 424 saying it was not written because of that one. A failure before
// the first item (a repeated transactionid, recorded in this one transaction) is the request's own error.
const allOrNothing = async (req: ResourceRequest, raws: readonly unknown[], reads: readonly Read[]): Promise<BulkResult[]> => {

    let failed: number | undefined;
    try {
        return await runWrite(writeSettingsOf(req), async (scope) => {

            const results: BulkResult[] = [];
            const pause = slicer();
            for (const [index, read] of reads.entries()) {
                // The transaction holds the writer for the whole bulk; reads go on beside it (src/db/knex.ts).
                await pause();
                try {
                    const { status, written } = await runItem(req, scope, read);
                    results.push(success(req, status, written, bulkIdOf(raws[index])));
                }
                catch (error) {
                    failed = index + 1;
                    throw error;
                }
            }

            // What fails after the last item (a structure's rule checked before the commit: the last active
            // administrator kept) is answered as that item's: the bulk is refused whole, still item by item.
            failed = reads.length || undefined;
            return results;
        });
    }
    catch (error) {
        if (failed === undefined) {
            throw error;
        }

        // The error as runWrite throws it: a database's refusal (a duplicate key) is turned into Maximo's there.
        return allOrNothingFailed(raws, failed, error);
    }
};

export const bulkWrite = async (req: ResourceRequest): Promise<BulkResult[]> => {

    const { structure, write } = req;
    const raws = bulkItems(write.body, req.osprey.options.maxBulkItems, 'records');

    // The properties header applies to every item that names none of its own.
    const select = writeSelect(req, structure.root);
    // Thousands of items are read (and validated) in slices of the event loop's time, as they are written.
    const reads = await mapInSlices(raws, (raw) => readItem(req, raw, select));
    requireRights(req, req.osprey.registry, structure, unionOf(reads.flatMap((read) => ('item' in read ? [rightsOf(read.item.kind, read.item.body)] : []))));
    // A structure's beforeChange hook may refuse a bulk (API keys are made one at a time and never edited).
    beforeChange(structure);
    if (write.allOrNothing) {
        return await allOrNothing(req, raws, reads);
    }

    // The items commit one by one, each heard after its own commit. A transactionid ID is recorded per item, in the
    // item's transaction: `ID#n`, n counted from 1 as the bulk's answers count items. A bulk sent again after a crash
    // writes exactly the items not written yet; each item written before answers 409 (BMXAA5646E). ID itself
    // recorded (an all-or-nothing bulk, or a single write, by the same user on the structure) refuses the bulk whole.
    const settings = writeSettingsOf(req);
    const id = settings.ctx.transactionId;
    if (id !== undefined) {
        await refuseRecordedTransactionId(poolDb(settings.knex), transactionKey(settings, id), settings.ctx.now.getTime(), settings.retentionMs);
    }

    // On SQLite the items are handed to the writer a window at a time: they run there in order, each in its own
    // savepoint, and share a COMMIT (src/db/group-commit.ts). On PostgreSQL, where transactions run side by side,
    // one at a time, so that an item still sees every item before it.
    const window = groupsCommits(settings.knex) ? maxGroup : 1;
    const item = async (read: Read, index: number): Promise<BulkResult> => {

        const each = { ...settings, grouped: true, ctx: { ...settings.ctx, transactionId: id === undefined ? undefined : `${id}#${index + 1}` } };
        try {
            const { status, written } = await runWrite(each, (scope) => runItem(req, scope, read));
            return success(req, status, written, bulkIdOf(raws[index]));
        }
        catch (error) {
            return { ok: false, error, bulkid: bulkIdOf(raws[index]) };
        }
    };

    const results: BulkResult[] = [];
    const pause = slicer();
    for (let i = 0; i < reads.length; i += window) {
        await pause();
        results.push(...await Promise.all(reads.slice(i, i + window).map((read, offset) => item(read, i + offset))));
    }

    return results;
};
