import { requireRight } from '../auth/access';
import { boundModels } from '../db/models';
import { payloadOf } from '../actions/dispatch';
import type { ActionCall } from '../actions/call';
import { engineWrites, originOn } from '../actions/engine-writes';
import { findAction } from '../actions/resolve';
import { maximoError } from '../errors/maximo-error';
import { memberRow } from '../read/execute/member';
import { memberId } from '../read/serialize/serialize';
import type { NodeDef } from '../structures/definition';
import { own } from '../structures/own';
import type { Row } from '../structures/registry';
import { adminWrites, assign, assignmentEntry } from './assignments';
import { holds } from './condition';
import { memoAttribute, type FoundWorkflow } from './model';


// Runs a workflow from a node until it waits at a task or ends, inside the action that moves it (its start, or the
// completion of an assignment), so that all of it is one transaction: a node that fails (a status the record
// cannot take, a value a write refuses, a task with nobody to assign) rolls back every node before it, and the
// assignment that was being completed stays active. Every change to the record goes through the write engine
// with the rights of the user who moves the workflow, as their PATCH would.

/** What a workflow's start or an assignment's completion answers: where the workflow is now. */
export interface WorkflowState {
    readonly workflow: string;
    /** The node it waits at (active), or the last node it ran (ended). */
    readonly node: string;
    readonly active: boolean;
    readonly status?: unknown;
    /** The assignments it waits for (none once it ended). */
    readonly assignments: readonly Row[];
}

export interface WorkflowRun {
    /** The action it runs in: the workflow's start on the record, or the completion of one of its assignments. */
    readonly call: ActionCall;
    readonly workflow: FoundWorkflow;
    /** The record, as stored when the run began. */
    readonly record: Row;
    /** The memo of the status changes: the start's, or the completed assignment's. */
    readonly memo?: string;
}

// An action a node names, run on the record as if its user had asked for it, in the same transaction.
const runAction = async (run: WorkflowRun, name: string, node: NodeDef): Promise<void> => {

    const { call, workflow: { structure } } = run;
    // Registered, on one record and not a dry run: checked when the server started (./register.ts).
    const action = findAction(call.req.osprey.actions, structure, node.action!)!;
    const right = action.spec.right ?? 'actions';
    try {
        requireRight(call.user, structure, right === 'none' ? 'read' : right);
    }
    catch {
        throw maximoError('forbidden', `User ${call.user.userid} is not authorized to run the action ${action.name} on ${structure.name} records, which the node ${name} of the workflow ${run.workflow.name} runs.`);
    }

    const id = memberId(structure.root, run.record);
    const { req, scope } = originOn(call.write, structure);
    const record = await memberRow(call.db, call.user, structure, id, { lock: true });
    const payload = payloadOf(action, node.payload);
    await action.spec.handler({
        req: { ...req, id }, name: action.name, payload, structure, record, id, user: call.user, now: call.now,
        db: call.db, models: boundModels(req.osprey.models, call.db), write: engineWrites({ ...req, id }, scope), afterCommit: call.afterCommit
    });
};

// A status node: the record takes the status through the engine (transitions, status date, a history row with the
// memo); a record already in that status is left as it is.
const changeStatus = async (run: WorkflowRun, node: NodeDef): Promise<void> => {

    const { call, workflow: { structure } } = run;
    const attribute = structure.def.statusAttribute;
    const current = await call.write.read(structure.name, run.record);
    if (current[attribute] === node.status) {
        return;
    }

    const memo = run.memo || node.memo;
    const memoName = memoAttribute(structure);
    await call.write.update(structure.name, run.record, { [attribute]: node.status, ...memo && memoName ? { [memoName]: memo } : {} });
};

export const runFrom = async (run: WorkflowRun, start: string | undefined, from: string): Promise<WorkflowState> => {

    const { call, workflow } = run;
    const { req, db } = call;
    const { osprey } = req;
    const { structure } = workflow;
    let last = from;
    let name = start;
    // Every loop of nodes passes a task (checked at load), so this ends.
    while (name !== undefined) {
        const node = own(workflow.def.nodes, name)!;
        last = name;
        if (node.if !== undefined) {
            name = await holds(db, osprey.registry, osprey.kind, structure, node.if, run.record[structure.root.uniqueColumn]) ? node.then : node.else;
            continue;
        }

        if (node.task) {
            const made = await assign({ db, admin: adminWrites(call.write, call.user), workflow: workflow.name, structure, record: run.record, now: call.now }, name, node);
            return await stateOf(run, name, true, made);
        }

        if (node.status !== undefined) {
            await changeStatus(run, node);
        }
        else if (node.set) {
            await call.write.update(structure.name, run.record, { ...node.set });
        }
        else {
            await runAction(run, name, node);
        }

        name = node.next;
    }

    return await stateOf(run, last, false, []);
};

const stateOf = async (run: WorkflowRun, node: string, active: boolean, assignments: readonly Row[]): Promise<WorkflowState> => {

    const { call, workflow: { structure } } = run;
    const record = await call.write.read(structure.name, run.record);
    const { home, osprey } = call.req;
    return { workflow: run.workflow.name, node, active, status: record[structure.def.statusAttribute], assignments: assignments.map((row) => assignmentEntry(home, osprey.registry, row)) };
};
