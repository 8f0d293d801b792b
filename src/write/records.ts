import { requireCredentials } from '../auth/access';
import type { SelectPlan } from '../read/plan/select-plan';
import { maximoError } from '../errors/maximo-error';
import type { ResourceRequest } from '../request';
import { hooksOf } from '../structures/hooks';
import type { Row, Structure } from '../structures/registry';
import { recordHref, renderWritten, writeSelect } from './answer';
import { createIn, deleteIn, noteWritten, syncIn, updateIn, type Written } from './operations';
import { normalName } from './plan/input';
import { requireRights, rightsOf } from './rights';
import { runWrite, writeSettingsOf } from './transaction';


// The write engine's entry points for one record (issue 17): each takes the request value (src/request.ts), never
// a hapi request, and answers a plain outcome the resources plugin turns into HTTP (201 + Location, 200, 204).
// Each checks the rights its write needs once, before its transaction opens (rights.ts), then plans and applies
// the write in one transaction (runWrite), after whose commit the after-commit subscribers hear of it.

export interface WriteOutcome {
    /** The row as stored (for a delete, as it was). A created row carries every column when the write answers
     * a record (properties); else its key, id, unique id and rowstamp, status, and its children's join values. */
    readonly row: Row;
    /** The record as the request's properties select it; none without properties (the answer has no body). */
    readonly record?: Row;
    /** A record was created (a create, or a sync whose keys named none): the answer is a 201 with Location. */
    readonly isNew: boolean;
    /** The href of the written record. */
    readonly location: string;
}

// The body of a single-record write: one JSON object of the record's attributes (and children).
export const recordBody = (body: unknown): Row => {

    const found = body ?? {};
    if (typeof found !== 'object' || Array.isArray(found) || Buffer.isBuffer(found)) {
        throw maximoError('badRequest', 'The body must be a JSON object with the attributes of the record.');
    }

    return found as Row;
};

// A single record's write is short: it may share its COMMIT with others (src/db/group-commit.ts).
const grouped = (req: ResourceRequest) => ({ ...writeSettingsOf(req), grouped: true });

const outcomeOf = (req: ResourceRequest, written: Written): WriteOutcome => ({ ...written, location: recordHref(req, written.row) });

// The beforeChange hook of the structure's object may refuse an update, merge, sync or bulk (an API key is never edited).
export const beforeChange = (structure: Structure): void => {

    hooksOf(structure.root).beforeChange?.(structure);
};

// The record id of a member route.
const idOf = (req: ResourceRequest): string => {

    if (req.id === undefined) {
        throw maximoError('badRequest', `An update or a delete names a ${req.structure.name} record by its id.`);
    }

    return req.id;
};

// POST {home}/os/{os}: a new record. A structure whose object makes its records itself (an API key) does it in
// its create hook, in the write's transaction, in place of the generic create.
export const createRecord = async (req: ResourceRequest): Promise<WriteOutcome> => {

    const { structure } = req;
    requireRights(req, req.osprey.registry, structure, rightsOf('create'));
    requireCredentials(req, structure, 'created');
    const select = writeSelect(req, structure.root);
    const body = recordBody(req.write.body);
    const create = hooksOf(structure.root).create;
    return outcomeOf(req, await runWrite(grouped(req), async (scope) => {

        if (!create) {
            return await createIn(req, scope, body, select);
        }

        const row = await create({ req, body, db: scope.db, now: scope.ctx.now });
        noteWritten(scope, 'create', 'create', row);
        return { row, isNew: true, ...(select ? { record: await renderWritten(req, scope.db, select, row) } : {}) };
    }));
};

// Whether an update's body can only change the record's own row: it names no child, no status (whose change
// adds a history row), no attribute a plugin's handler takes, no `_action` and no transaction id, on a table the database stores as written. Such a
// write is likely one statement (src/db/single-statement.ts); one that proves more is run again in a transaction.
// Its answer may select no child, related record or aggregate: rendered after the statement committed, it must
// read nothing that could fail (an answer too large, a statement timeout) with the write already done.
const ownRowOnly = (req: ResourceRequest, body: Row, select: SelectPlan | undefined): boolean => {

    const { root, def } = req.structure;
    const renderedFromRow = !select || (select.links.length === 0 && select.aggregates.length === 0);
    return renderedFromRow && req.write.transactionId === undefined && req.osprey.db.storesAsWritten(root.table) && Object.keys(body).every((key) => {

        const name = normalName(key);
        // An attribute a plugin's handler takes (attribute-writes.ts) makes the handler write more.
        const attr = root.attributes.get(name);
        const handled = attr !== undefined && !attr.persistent && req.osprey.attributeWrites?.claims(root, name) === true;
        // Inline documents (doclinks) write rows and content of their own.
        return name !== '_action' && name !== 'doclinks' && !root.children.has(name) && !(def.statuses && name === def.statusAttribute) && !handled;
    });
};

// PATCH/PUT {home}/os/{os}/{id}: an update, or a merge (patchtype MERGE); a body `_action: "Delete"` deletes.
export const updateRecord = async (req: ResourceRequest): Promise<WriteOutcome> => {

    const { structure, write } = req;
    const id = idOf(req);
    requireRights(req, req.osprey.registry, structure, rightsOf(write.merge ? 'merge' : 'update', write.body));
    beforeChange(structure);
    const select = writeSelect(req, structure.root);
    const body = recordBody(write.body);
    return outcomeOf(req, await runWrite({ ...grouped(req), single: ownRowOnly(req, body, select) }, (scope) => updateIn(req, scope, id, body, write.merge, select)));
};

// POST {home}/os/{os} + x-method-override: SYNC: updates the record the body's keys name, or creates it.
export const syncRecord = async (req: ResourceRequest): Promise<WriteOutcome> => {

    const { structure, write } = req;
    requireRights(req, req.osprey.registry, structure, rightsOf('sync', write.body));
    beforeChange(structure);
    const select = writeSelect(req, structure.root);
    const body = recordBody(write.body);
    return outcomeOf(req, await runWrite(grouped(req), (scope) => syncIn(req, scope, body, write.merge, select)));
};

// DELETE {home}/os/{os}/{id}: the record and its children. (Named apart from apply/delete.ts's deleteRecord,
// which removes the rows of a planned delete inside the transaction.)
export const removeRecord = async (req: ResourceRequest): Promise<WriteOutcome> => {

    const { structure } = req;
    const id = idOf(req);
    requireRights(req, req.osprey.registry, structure, rightsOf('delete'));
    return outcomeOf(req, await runWrite(grouped(req), (scope) => deleteIn(req, scope, id)));
};
