import { requireCredentials, requireRight } from '../auth/access';
import type { UserProfile } from '../auth/users';
import { memberRow } from '../read/execute/member';
import { memberId } from '../read/serialize/serialize';
import type { ResourceRequest } from '../request';
import { hooksOf } from '../structures/hooks';
import type { Row, Structure } from '../structures/registry';
import type { WriteScope } from '../write/context';
import { createIn, deleteIn, noteWritten, syncIn, updateIn } from '../write/operations';
import { checkInvariants, enterInvariant } from '../write/transaction';
import { beforeChange, recordBody } from '../write/records';
import { requireRights, rightsOf, type WriteKind } from '../write/rights';
import type { EngineWrites, RecordRef } from './call';


// The writes an action's handler makes (call.ts EngineWrites): each is the write engine's own create, update,
// merge, sync or delete (src/write/operations.ts) in the action's scope, as the request's user, with the rights of
// that write checked first, so a handler can do nothing through them that the user could not do with a PATCH.

const structureNamed = (req: ResourceRequest, name: string): Structure => {

    const structure = req.osprey.registry.get(name);
    if (!structure) {
        // A handler's own mistake (it names its structures in code), not the client's: the action fails whole.
        throw new Error(`An action wrote to ${name}, which is not an object structure of this server.`);
    }

    return structure;
};

const idOf = (structure: Structure, record: RecordRef): string => (typeof record === 'string' ? record : memberId(structure.root, record));

// The request value of a write the action makes: the same user and home, on the structure it names, with none of
// the action request's own headers (If-Match, properties) applying to it.
const requestOn = (req: ResourceRequest, structure: Structure, id: string | undefined, merge: boolean): ResourceRequest => {

    return { ...req, structure, id, write: { ...req.write, merge, ifMatch: undefined, properties: undefined, body: undefined } };
};

// The record an action read and locked (dispatch.ts actIn): `row` as its handler was given it, `copy` as it was
// read (the handler may change its own object), `untouched` whether the handler has not reached the transaction's
// db or models, through which it could have changed the stored row unseen.
export interface LockedRecord {
    readonly row: Row;
    readonly copy: Row;
    readonly untouched: () => boolean;
}

// Where each EngineWrites writes: its request and scope, for the server's own writes in the same transaction
// (writesOf: a workflow's assignments, written as an administrator; an action a workflow runs on another record).
const origins = new WeakMap<EngineWrites, { readonly req: ResourceRequest; readonly scope: WriteScope }>();

export const engineWrites = (req: ResourceRequest, scope: WriteScope, locked?: LockedRecord): EngineWrites => {

    const writes = writesIn(req, scope, locked);
    origins.set(writes, { req, scope });
    return writes;
};

// The writes of the same transaction as `write`, by `user` in place of the request's.
export const writesAs = (write: EngineWrites, user: UserProfile): EngineWrites => {

    const { req, scope } = origins.get(write)!;
    return engineWrites({ ...req, user }, { ...scope, ctx: { ...scope.ctx, user } });
};

// The invariants' checks of what `write`'s transaction did so far, which the commit would run: a trial that rolls
// back (system:candelete) answers what they refuse too.
export const checkInvariantsOf = (write: EngineWrites): Promise<void> => checkInvariants(origins.get(write)!.scope);

// The request and scope of `write`, on `structure` (an action a workflow runs on its record).
export const originOn = (write: EngineWrites, structure: Structure): { req: ResourceRequest; scope: WriteScope } => {

    const { req, scope } = origins.get(write)!;
    return { req: { ...req, structure }, scope: { ...scope, structure } };
};

const writesIn = (req: ResourceRequest, scope: WriteScope, locked?: LockedRecord): EngineWrites => {

    // The action's record is read once: when the handler's first write is an update of that record (the very row
    // object it was given, on the action's structure) and nothing could have written to it since it was read and
    // locked, the row as read is the update's current row (wsmethod:changeStatus). Any other first write, and every
    // write after the first, reads its record in the transaction as a PATCH does.
    let held = locked;
    const heldFor = (structure: Structure, record: RecordRef): Row | undefined => {

        const usable = held && structure === req.structure && record === held.row && held.untouched() ? held.copy : undefined;
        held = undefined;
        return usable;
    };

    const scopeOn = (structure: Structure): WriteScope => ({ ...scope, structure });
    // The structure a write names, once the user may write it; its invariant is entered (transaction.ts).
    const checked = async (name: string, kind: WriteKind, body?: Row) => {

        const structure = structureNamed(req, name);
        requireRights(req, req.osprey.registry, structure, rightsOf(kind, body));
        if (kind !== 'create' && kind !== 'delete') {
            beforeChange(structure);
        }

        await enterInvariant(scope, structure);
        return structure;
    };

    const change = async (name: string, record: RecordRef, body: Row, merge: boolean, asOf?: Date): Promise<Row> => {

        const structure = await checked(name, merge ? 'merge' : 'update', body);
        const id = idOf(structure, record);
        const on = scopeOn(structure);
        const stamped = asOf ? { ...on, ctx: { ...on.ctx, statusAsOf: asOf } } : on;
        return (await updateIn(requestOn(req, structure, id, merge), stamped, id, recordBody(body), merge, undefined, heldFor(structure, record))).row;
    };

    return {
        create: async (name, body) => {

            held = undefined;
            const structure = await checked(name, 'create');
            requireCredentials(req, structure, 'created');
            const sub = requestOn(req, structure, undefined, false);
            const create = hooksOf(structure.root).create;
            if (!create) {
                return (await createIn(sub, scopeOn(structure), recordBody(body), undefined)).row;
            }

            const row = await create({ req: sub, body: recordBody(body), db: scope.db, now: scope.ctx.now });
            noteWritten(scopeOn(structure), 'create', 'create', row);
            return row;
        },
        update: (name, record, body, options = {}) => change(name, record, body, false, options.asOf),
        merge: (name, record, body) => change(name, record, body, true),
        sync: async (name, body) => {

            held = undefined;
            const structure = await checked(name, 'sync', body);
            return (await syncIn(requestOn(req, structure, undefined, true), scopeOn(structure), recordBody(body), true, undefined)).row;
        },
        remove: async (name, record) => {

            held = undefined;
            const structure = await checked(name, 'delete');
            const id = idOf(structure, record);
            return (await deleteIn(requestOn(req, structure, id, false), scopeOn(structure), id)).row;
        },
        read: (name, record, options = {}) => {

            const structure = structureNamed(req, name);
            requireRight(req.user, structure, 'read');
            return memberRow(scope.db, req.user, structure, idOf(structure, record), { lock: options.lock === true });
        }
    };
};
