import type * as Hapi from '@hapi/hapi';

import { errorAnswer } from '../../src/errors/edge';
import { maximoError } from '../../src/errors/maximo-error';
import { header } from '../../src/http/headers';
import type { WriteScope } from '../../src/write/context';
import type { Row } from '../../src/read/execute/find';
import { keyValues } from '../../src/write/plan/input';
import type { SelectPlan } from '../../src/read/plan/select-plan';
import { memberId } from '../../src/read/serialize/serialize';
import { runWrite } from '../../src/write/transaction';
import type { Structure } from '../../src/structures/registry';
import { collectionHref, flag, settingsOf, text, writeSelect, type Outcome } from './request';
import { beforeChange, createIn, deleteIn, syncIn, updateIn } from './operations';


// POST {home}/os/{os} + x-method-override: BULK (CONTRACT §4): an array of records, each with its operation.
// Each item commits on its own, as in Maximo, so one bad record does not hold back the others; the answer lists
// every item's outcome in input order and is a 200 whatever they were. With `allornothing: 1` the items run in
// one transaction: when one fails nothing is written, and the answer says which item failed and that the others
// were not written.

type Operation = 'add' | 'update' | 'merge' | 'delete' | 'addchange';

interface Item {
    readonly operation: Operation;
    readonly body: Row;
    readonly id?: string;
    readonly select?: SelectPlan;
}

// The `_action` values of the IBM guide and the TypeScript client, and the `_meta.method` values of IBM's Java
// client, by what they do.
const operations: Record<string, Operation> = {
    add: 'add', create: 'add', post: 'add',
    update: 'update', change: 'update', replace: 'update', patch: 'update', put: 'update',
    merge: 'merge',
    delete: 'delete',
    addchange: 'addchange', sync: 'addchange'
};

const isObject = (value: unknown): value is Row => typeof value === 'object' && value !== null && !Array.isArray(value);

// The member id an item's href (or `_meta.uri`) ends with; an href with /os/ must be a record of this structure.
const idOf = (structure: Structure, href: unknown): string | undefined => {

    if (href === undefined || href === null) {
        return undefined;
    }

    const refused = () => maximoError('badRequest', `${JSON.stringify(href)} is not the href of a ${structure.name} record.`);
    const segments = typeof href === 'string' ? href.split(/[?#]/)[0]!.split('/').filter(Boolean) : [];
    const os = segments.findIndex((segment) => segment.toLowerCase() === 'os');
    if (!segments.length || (os >= 0 && (segments.length !== os + 3 || segments[os + 1]!.toLowerCase() !== structure.id))) {
        throw refused();
    }

    try {
        return decodeURIComponent(segments[segments.length - 1]!);
    }
    catch {
        throw refused();
    }
};

const operationOf = (name: unknown, fallback: Operation): Operation => {

    if (name === undefined) {
        return fallback;
    }

    const operation = operations[String(name).toLowerCase()];
    if (!operation) {
        throw maximoError('badRequest', `The bulk operation ${JSON.stringify(name)} is not one of Add, Update, Merge, Delete, AddChange.`);
    }

    return operation;
};

// One item in either form: `{...record, _action, href}` or `{_data: {...}, _meta: {method, uri, properties}}`.
const itemOf = (request: Hapi.Request, structure: Structure, raw: unknown, select: SelectPlan | undefined): Item => {

    if (!isObject(raw)) {
        throw maximoError('badRequest', 'Each item of a bulk is a JSON object: a record with _action, or {"_data": …, "_meta": …}.');
    }

    if ('_data' in raw || '_meta' in raw) {
        const data = raw._data ?? {};
        const meta = raw._meta ?? {};
        if (!isObject(data) || !isObject(meta)) {
            throw maximoError('badRequest', '_data and _meta of a bulk item are JSON objects.');
        }

        const method = operationOf(meta.method, 'add');
        const merge = method === 'update' && String(meta.patchtype ?? '').toUpperCase() === 'MERGE';
        const properties = typeof meta.properties === 'string' ? meta.properties : undefined;
        return { operation: merge ? 'merge' : method, body: data, id: idOf(structure, meta.uri), select: properties ? writeSelect(request, structure.root, {}, properties) : select };
    }

    const { _action: action, ...body } = raw;
    const item: Item = { operation: operationOf(action, 'add'), body, id: idOf(structure, body.href), select };
    // An item without _action is an Add, and an Add writes a new record whatever href it carries: one that names a
    // record (as the npm client's BulkOperationBuilder.action builds) would create another instead of changing it.
    if (action === undefined && item.id !== undefined) {
        throw maximoError('badRequest', 'A bulk item that names a record by href needs an _action (Update, Merge, Delete or AddChange); without one it would be created anew.');
    }

    return item;
};

const bulkIdOf = (raw: unknown) => (isObject(raw) ? raw._bulkid ?? (isObject(raw._meta) ? raw._meta._bulkid : undefined) : undefined);

// Runs one item in a write scope; an update names its record by href, or else by the key values it carries.
const runItem = async (request: Hapi.Request, scope: WriteScope, item: Item): Promise<{ status: number; outcome: Outcome }> => {

    const { operation, body, id, select } = item;
    if (operation === 'add') {
        return { status: 201, outcome: await createIn(request, scope, body, select) };
    }

    if (operation === 'addchange' && id === undefined) {
        const outcome = await syncIn(request, scope, body, false, select);
        return { status: outcome.isNew ? 201 : outcome.record ? 200 : 204, outcome };
    }

    const target = id ?? keyId(scope.structure, body);
    if (operation === 'delete') {
        await deleteIn(request, scope, target);
        return { status: 204, outcome: {} };
    }

    const outcome = await updateIn(request, scope, target, body, operation === 'merge', select);
    return { status: outcome.record ? 200 : 204, outcome };
};

// The keys are read as their attributes store them (an upper-case key is upper-cased), as SYNC reads them.
const keyId = (structure: Structure, body: Row): string => {

    const root = structure.root;
    const keys = keyValues(root, body);
    if (!keys) {
        throw maximoError('badRequest', `A bulk update or delete names its ${root.name} by href, or by all of its keys (${root.primaryKey.join(', ')}).`);
    }

    return memberId(root, keys);
};

const success = (request: Hapi.Request, structure: Structure, status: number, outcome: Outcome, bulkid: unknown): Row => {

    const meta: Row = { status: String(status) };
    if (status === 201) {
        meta.Location = `${collectionHref(request, structure)}/${memberId(structure.root, outcome.row!)}`;
    }

    if (bulkid !== undefined) {
        meta._bulkid = bulkid;
    }

    return outcome.record ? { _responsemeta: meta, _responsedata: outcome.record } : { _responsemeta: meta };
};

const failure = (request: Hapi.Request, error: unknown, bulkid: unknown): Row => {

    const { error: boom, body } = errorAnswer(request, error);
    const meta: Row = { status: String(boom.output.statusCode) };
    if (bulkid !== undefined) {
        meta._bulkid = bulkid;
    }

    return { _responsemeta: meta, _responsedata: body };
};

// In one transaction. When an item fails nothing is written, and the answer is still the array (200), as Maximo's:
// the failing item carries its error, and every other item a 424 saying it was not written because of that one,
// so a client reads which item to correct (the npm client reads a bulk's answer as an array). A failure before the
// first item (a repeated transactionid) is the request's own error.
const allOrNothing = async (request: Hapi.Request, structure: Structure, raws: unknown[], select: SelectPlan | undefined): Promise<Row[]> => {

    let failed: number | undefined;
    try {
        return await runWrite(settingsOf(request, structure), async (scope) => {

            const results: Row[] = [];
            for (const [index, raw] of raws.entries()) {
                try {
                    const { status, outcome } = await runItem(request, scope, itemOf(request, structure, raw, select));
                    results.push(success(request, structure, status, outcome, bulkIdOf(raw)));
                }
                catch (error) {
                    failed = index + 1;
                    throw error;
                }
            }

            return results;
        });
    }
    catch (error) {
        if (failed === undefined) {
            throw error;
        }

        // The error as runWrite throws it: a database's refusal (a duplicate key) is turned into Maximo's there.
        const notWritten = maximoError('bulkNotWritten', `Not written: bulk item ${failed} of ${raws.length} failed, and the bulk is all or nothing (allornothing: 1).`);
        return raws.map((raw, index) => failure(request, index + 1 === failed ? error : notWritten, bulkIdOf(raw)));
    }
};

export const bulk = async (request: Hapi.Request, structure: Structure): Promise<Row[]> => {

    // A structure's beforeChange hook may refuse a bulk (API keys are made one at a time and never edited).
    beforeChange(structure);

    const raws = request.payload;
    if (!Array.isArray(raws)) {
        throw maximoError('badRequest', 'The body of a BULK request is a JSON array of records.');
    }

    // The properties header applies to every item that names none of its own.
    const select = writeSelect(request, structure.root);
    if (flag(header(request, 'allornothing') ?? text(request.query.allornothing))) {
        return await allOrNothing(request, structure, raws, select);
    }

    // A transactionid stands for the whole bulk: it is recorded first, on its own, so that a repeat is refused
    // even after some items committed; the items then commit one by one.
    const settings = settingsOf(request, structure);
    if (settings.ctx.transactionId !== undefined) {
        await runWrite(settings, () => Promise.resolve());
    }

    const each = { ...settings, ctx: { ...settings.ctx, transactionId: undefined } };
    const results: Row[] = [];
    for (const raw of raws) {
        try {
            const item = itemOf(request, structure, raw, select);
            const { status, outcome } = await runWrite(each, (scope) => runItem(request, scope, item));
            results.push(success(request, structure, status, outcome, bulkIdOf(raw)));
        }
        catch (error) {
            results.push(failure(request, error, bulkIdOf(raw)));
        }
    }

    return results;
};
