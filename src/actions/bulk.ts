import { maximoError } from '../errors/maximo-error';
import type { ResourceRequest } from '../request';
import type { Row } from '../structures/registry';
import { poolDb } from '../db/db';
import { refuseRecordedTransactionId } from '../write/apply/transaction-ids';
import { allOrNothingFailed, bulkIdOf, bulkItems, hrefId } from '../write/plan/bulk-items';
import { runWrite, transactionKey, writeSettingsOf } from '../write/transaction';
import { mapInSlices, slicer } from '../slices';
import { actIn, payloadOf, prepareAction, type ActionOutcome } from './dispatch';
import { resolveAction } from './resolve';


// POST {home}/os/{os}?action=NAME + x-method-override: BULK (IBM's guide, crud/bulk): the action runs on each
// item's record, each item its payload and the href of its record (`{"status": "APPR", "href": …}`, as the npm
// client's BulkOperationBuilder.action builds it), or `{"_data": payload, "_meta": {"uri": href}}`. As a bulk
// write, each item commits on its own and answers in input order; with `allornothing: 1` all run in one
// transaction. The action, its right and every item's payload are checked before anything runs.

export type BulkActionResult =
    | { readonly ok: true; readonly outcome: ActionOutcome; readonly bulkid: unknown }
    | { readonly ok: false; readonly error: unknown; readonly bulkid: unknown };

interface Item {
    readonly id: string;
    readonly payload: unknown;
}

const isObject = (value: unknown): value is Row => typeof value === 'object' && value !== null && !Array.isArray(value);

// One item: the record it names and its payload (the item without href, _bulkid and _meta).
const readItem = (req: ResourceRequest, raw: unknown): Item => {

    const { structure } = req;
    if (!isObject(raw)) {
        throw maximoError('badRequest', 'Each item of a bulk action is a JSON object: the action\'s payload with the href of its record.');
    }

    if (Object.hasOwn(raw, '_action')) {
        throw maximoError('badRequest', `A bulk item of the action ${req.read.action} carries the action's payload and the href of its record; _action (${JSON.stringify(raw._action)}) names a write, which a bulk action does not make.`);
    }

    const refuse = (why: string) => maximoError('badRequest', `A bulk item of the action ${req.read.action} ${why}.`);
    const hasMeta = Object.hasOwn(raw, '_meta');
    const hasData = Object.hasOwn(raw, '_data');
    let payload: unknown;
    let href: unknown;
    if (hasMeta || hasData) {
        // The Java client's form: {"_data": payload, "_meta": {"uri": href}} and nothing beside them but _bulkid.
        const meta = raw._meta;
        const other = Object.keys(raw).find((name) => !['_meta', '_data', '_bulkid'].includes(name));
        if (other !== undefined) {
            throw refuse(`in the {"_data", "_meta"} form carries ${other} beside them; put the payload in _data`);
        }

        if (!isObject(meta) || Object.keys(meta).some((name) => name !== 'uri' && name !== '_bulkid')) {
            throw refuse('has a _meta that is not {"uri": the record\'s href}');
        }

        payload = raw._data ?? {};
        href = meta.uri;
    }
    else {
        payload = Object.fromEntries(Object.entries(raw).filter(([name]) => name !== 'href' && name !== '_bulkid'));
        href = raw.href;
    }

    const id = hrefId(structure, href);
    if (id === undefined) {
        throw maximoError('badRequest', `A bulk item of the action ${req.read.action} must name its ${structure.name} record by href (…/os/${structure.id}/{id}), and ${href === undefined ? 'this one names none' : `${JSON.stringify(String(href).slice(0, 200))} is not one`}.`);
    }

    return { id, payload };
};

export const bulkAction = async (req: ResourceRequest): Promise<BulkActionResult[]> => {

    const raws = bulkItems(req.write.body, req.osprey.options.maxBulkItems, 'items');

    const action = resolveAction(req, req.read.action!);
    const select = prepareAction(req, action, true);
    if (action.spec.dryRun) {
        throw maximoError('badRequest', `The action ${action.name} answers a question about one record; ask it of each record with …/os/${req.structure.id}/{id}?action=${action.name}.`);
    }

    const reads = await mapInSlices(raws, (raw) => {

        try {
            const item = readItem(req, raw);
            return { item, payload: payloadOf(action, item.payload) };
        }
        catch (error) {
            return { error };
        }
    });
    const settings = writeSettingsOf(req);
    if (req.write.allOrNothing) {
        let failed: number | undefined;
        try {
            return await runWrite(settings, async (scope) => {

                const results: BulkActionResult[] = [];
                const pause = slicer();
                for (const [index, read] of reads.entries()) {
                    await pause();
                    failed = index + 1;
                    if ('error' in read) {
                        throw read.error;
                    }

                    const outcome = await actIn({ ...req, id: read.item.id }, action, read.payload, select, scope);
                    results.push({ ok: true, outcome, bulkid: bulkIdOf(raws[index]) });
                }

                // What fails after the last item (a structure's rule checked before the commit) is answered as that
                // item's, as in a bulk write (src/write/bulk.ts).
                return results;
            });
        }
        catch (error) {
            if (failed === undefined) {
                throw error;
            }

            return allOrNothingFailed(raws, failed, error);
        }
    }

    // As a bulk write's: each item records ID#n in its own transaction, and ID itself recorded refuses the bulk.
    const id = settings.ctx.transactionId;
    if (id !== undefined) {
        await refuseRecordedTransactionId(poolDb(settings.knex), transactionKey(settings, id), settings.ctx.now.getTime(), settings.retentionMs);
    }

    const results: BulkActionResult[] = [];
    const pause = slicer();
    for (const [index, read] of reads.entries()) {
        await pause();
        const bulkid = bulkIdOf(raws[index]);
        try {
            if ('error' in read) {
                throw read.error;
            }

            const each = { ...settings, grouped: true, ctx: { ...settings.ctx, transactionId: id === undefined ? undefined : `${id}#${index + 1}` } };
            const outcome = await runWrite(each, (scope) => actIn({ ...req, id: read.item.id }, action, read.payload, select, scope));
            results.push({ ok: true, outcome, bulkid });
        }
        catch (error) {
            results.push({ ok: false, error, bulkid });
        }
    }

    return results;
};
