import { requireRight } from '../auth/access';
import { boundModels, type ObjectModel } from '../db/models';
import { maximoError } from '../errors/maximo-error';
import { keyOf } from '../read/execute/find';
import { memberRow } from '../read/execute/member';
import { memberId } from '../read/serialize/serialize';
import type { SelectPlan } from '../read/plan/select-plan';
import type { ResourceRequest } from '../request';
import type { Row } from '../structures/registry';
import { committed, type CommittedAction } from '../write/after-commit';
import { recordHref, renderWritten, writeSelect } from '../write/answer';
import type { WriteScope } from '../write/context';
import { runWrite, throwErrors, writeSettingsOf } from '../write/transaction';
import type { ActionCall } from './call';
import { engineWrites } from './engine-writes';
import type { RegisteredAction } from './registry';
import { resolveAction } from './resolve';


// Runs one action (issue 35, CONTRACT §5): found by name, its right checked and its payload validated before its
// transaction opens; then, in one transaction, the record it acts on is read and locked, the handler runs, and the
// record is rendered with `properties`. Any error rolls all of it back; nothing of a failed action is kept.

export interface ActionOutcome {
    /** What the handler answered (undefined: nothing). */
    readonly result?: unknown;
    /** The record after the action, as `properties` selects it (record actions asked with properties). */
    readonly record?: Row;
    /** The href of the record acted on. */
    readonly location?: string;
}

// A dry run's result, carried out of its transaction by an error so that the transaction rolls back.
class DryRun extends Error {

    constructor(readonly outcome: ActionOutcome) {

        super('dry run');
    }
}

// The payload as the action's Joi schema takes it; without a schema, an action takes none.
export const payloadOf = (action: RegisteredAction, body: unknown): unknown => {

    const schema = action.spec.schema;
    const empty = body === undefined || body === null || (typeof body === 'object' && !Array.isArray(body) && Object.keys(body as object).length === 0);
    if (!schema) {
        if (!empty) {
            throw maximoError('badRequest', `The action ${action.name} takes no payload; send the request without a body.`);
        }

        return undefined;
    }

    // Joi's defaults are what an action takes (stop at the first error, convert): given as options, they were merged
    // into the schema's preferences on every call (1.5–2 µs of a status change's 7.5 µs of validation).
    const { value, error } = schema.validate(body ?? {});
    if (error) {
        const detail = error.details[0]!;
        const field = detail.path.join('.');
        throw maximoError('badRequest', `The payload of the action ${action.name} is refused${field ? ` at ${field}` : ''}: ${detail.message}.`);
    }

    return value;
};

// The right an action needs, before anything runs: a 403 names the action.
const requireActionRight = (req: ResourceRequest, action: RegisteredAction): void => {

    const right = action.spec.right ?? 'actions';
    if (right === 'none') {
        requireRight(req.user, req.structure, 'read');
        return;
    }

    try {
        requireRight(req.user, req.structure, right);
    }
    catch {
        throw maximoError('forbidden', `User ${req.user.userid} is not authorized to run the action ${action.name} on ${req.structure.name} records.`);
    }
};

// If-Match on a record action: the record must still have the rowstamp the client read.
const checkIfMatch = (req: ResourceRequest, record: Row): void => {

    const expected = req.write.ifMatch?.replace(/^W\//, '').replace(/"/g, '').trim();
    if (expected && expected !== '*' && expected !== String(record.rowstamp)) {
        throw maximoError('preconditionFailed', `The ${req.structure.root.name} record has changed since ETag ${expected}. Read it again and retry.`);
    }
};

// An action's scope must be the request's: a record action names a record, a collection action none.
export const checkScope = (req: ResourceRequest, action: RegisteredAction, onRecord: boolean): void => {

    const { structure } = req;
    const scope = action.spec.scope ?? 'record';
    if (onRecord && scope === 'collection') {
        throw maximoError('badRequest', `The action ${action.name} acts on the ${structure.name} collection: send it to …/os/${structure.id}?action=${action.name}, without a record id.`);
    }

    if (!onRecord && scope === 'record') {
        throw maximoError('badRequest', `The action ${action.name} acts on one ${structure.name} record: send it to …/os/${structure.id}/{id}?action=${action.name}.`);
    }
};

// What is checked before an action's transaction opens: its scope, its right, and the `properties` it answers with.
export const prepareAction = (req: ResourceRequest, action: RegisteredAction, onRecord: boolean): SelectPlan | undefined => {

    checkScope(req, action, onRecord);
    requireActionRight(req, action);
    // The record after a record action, as `properties` (header or query) or, on a GET, oslc.select names it.
    const selected = req.read.select?.text;
    if (selected !== undefined && req.write.properties !== undefined) {
        throw maximoError('badRequest', `properties and ${req.read.select!.parameter} both name what the action ${action.name} answers with; send one of them.`);
    }

    const select = onRecord ? writeSelect(req, req.structure.root, req.write.properties ?? selected) : undefined;
    if (action.spec.dryRun && (select || req.write.transactionId !== undefined)) {
        throw maximoError('badRequest', `The action ${action.name} answers a question and changes nothing; ${select ? 'properties' : 'transactionid'} is not carried out with it.`);
    }

    return select;
};

// Runs an action in a write scope (a transaction already open): the record it acts on (the request's id, if any)
// is read and locked there, the handler runs, and the record is rendered as `select` asks.
export const actIn = async (req: ResourceRequest, action: RegisteredAction, payload: unknown, select: SelectPlan | undefined, writeScope: WriteScope): Promise<ActionOutcome> => {

    const { structure } = req;
    const record = req.id !== undefined ? await memberRow(writeScope.db, req.user, structure, req.id, { lock: action.spec.lock !== false }) : undefined;
    if (record) {
        checkIfMatch(req, record);
    }

    // A handler that reaches the transaction's db or models may change the record unseen by the write engine, which
    // then reads it again for the handler's update (engine-writes.ts); one that does not is spared that read.
    let reached = false;
    let models: ReadonlyMap<string, ObjectModel> | undefined;
    const call: ActionCall = {
        req, name: action.name, payload, structure, record, id: req.id, user: req.user, now: writeScope.ctx.now,
        get db() {

            reached = true;
            return writeScope.db;
        },
        get models() {

            reached = true;
            return (models ??= boundModels(req.osprey.models, writeScope.db));
        },
        // Only a row read under its lock may stand for the stored one (an action with lock: false takes its own).
        write: engineWrites(req, writeScope, record && action.spec.lock !== false ? { row: record, copy: { ...record }, untouched: () => !reached } : undefined),
        afterCommit: (then) => {

            writeScope.committed?.push(then);
        }
    };
    const result = await action.spec.handler(call);
    throwErrors(writeScope);
    // The answer is made after the commit: a result that is no JSON (a cycle, a BigInt) fails here, in the
    // transaction, so that the action's writes roll back with it rather than being kept behind a 500.
    if (result !== undefined) {
        try {
            JSON.stringify(result);
        }
        catch (error) {
            throw new Error(`The action ${action.name} answered a result that is no JSON: ${(error as Error).message}`);
        }
    }

    // The after-commit subscribers (events) hear of the action beside what it wrote.
    writeScope.actions.push(committed<CommittedAction>(structure, { name: action.name, ...(record ? { id: memberId(structure.root, record), key: keyOf(structure.root, record) } : {}) }));
    const rendered = record && select ? await renderWritten(req, writeScope.db, select, await memberRow(writeScope.db, req.user, structure, req.id!)) : undefined;
    return { result, record: rendered, location: record ? recordHref(req, record) : undefined };
};

// Runs `action` on the request's record (req.id) or, without one, on its collection, in its own transaction.
export const runResolved = async (req: ResourceRequest, action: RegisteredAction, body: unknown): Promise<ActionOutcome> => {

    const select = prepareAction(req, action, req.id !== undefined);
    const payload = payloadOf(action, body);
    const dryRun = action.spec.dryRun === true;
    try {
        return await runWrite({ ...writeSettingsOf(req), grouped: !dryRun }, async (writeScope) => {

            const outcome = await actIn(req, action, payload, select, writeScope);
            if (dryRun) {
                throw new DryRun(outcome);
            }

            return outcome;
        });
    }
    catch (error) {
        if (error instanceof DryRun) {
            return error.outcome;
        }

        throw error;
    }
};

// `?action=NAME` on a record or a collection of the request's structure.
export const runAction = (req: ResourceRequest, name: string, body: unknown): Promise<ActionOutcome> => runResolved(req, resolveAction(req, name), body);
