import Joi from 'joi';

import type { ActionCall } from '../actions/call';
import type { Actions, AvailabilityContext } from '../actions/registry';
import { findAction, UndeclaredHandlerError } from '../actions/resolve';
import { selectOne } from '../db/statements';
import { maximoError } from '../errors/maximo-error';
import { registerHooks } from '../structures/hooks';
import { own } from '../structures/own';
import type { NodeDef } from '../structures/definition';
import type { Registry, Row } from '../structures/registry';
import { activeAssignments, adminWrites, busyAmong, canAssign } from './assignments';
import { keysOf } from './held';
import { holdingFor, holds } from './condition';
import { runFrom, type WorkflowState } from './engine';
import { assignmentStructure, findWorkflow, type AssignStatus, type FoundWorkflow } from './model';


// The workflows of the YAML as actions (issue 35, CONTRACT §5): `workflow:NAME` on the records of the structure
// that declares it starts it, and `wsmethod:completeAssignment` on an MXAPIWFASSIGNMENT record completes a task
// and moves the workflow on. Registered when the server starts, next to the built-in actions.

const startPayload = Joi.object({
    memo: Joi.string().allow('').max(254).description('the memo of the status changes the workflow makes before it waits')
});

const completion = Joi.object({
    accepted: Joi.boolean().strict().required().description('true: the positive route; false: the negative route'),
    memo: Joi.string().allow('').max(254).description('kept with the assignment and with the status changes that follow')
});


const starting = async (workflow: FoundWorkflow, call: ActionCall): Promise<WorkflowState> => {

    const { req, db } = call;
    const { structure, def } = workflow;
    const record = call.record!;
    const active = await activeAssignments(db, req.osprey.registry, structure, record);
    if (active.length) {
        const [first] = active;
        throw maximoError('badRequest', `${structure.name} ${keysOf(structure, record)} already has the workflow ${String(first!.processname)} active (waiting at ${String(first!.nodeid)} for ${active.map((row) => String(row.assigncode)).join(', ')}); workflow:${workflow.name} was not started.`);
    }

    if (def.condition !== undefined && !await holds(db, req.osprey.registry, req.osprey.kind, structure, def.condition, record[structure.root.uniqueColumn])) {
        throw maximoError('badRequest', `The workflow ${workflow.name} does not start on ${structure.name} ${keysOf(structure, record)}: its condition ${def.condition} does not hold; nothing was done.`);
    }

    return await runFrom({ call, workflow, record, memo: call.payload?.memo }, def.start, def.start);
};

// The task a workflow reaches from its start whatever the record holds: through nodes without a condition (a status,
// a value, an action, a plain `next`), up to the first task; none where a condition comes first or it ends before.
const firstTask = (workflow: FoundWorkflow): [string, NodeDef] | undefined => {

    const seen = new Set<string>();
    let name: string | undefined = workflow.def.start;
    while (name !== undefined && !seen.has(name)) {
        seen.add(name);
        const node: NodeDef | undefined = own(workflow.def.nodes, name);
        if (!node || node.if !== undefined) {
            return undefined;
        }

        if (node.task) {
            return [name, node];
        }

        name = node.next;
    }

    return undefined;
};

// Open where the record has no active workflow and the workflow's condition holds: asked once per page. A workflow
// whose first task finds nobody to assign (its groups without an active member) starts on no record: its start
// would be refused, so it is not offered.
const startable = async (workflow: FoundWorkflow, records: readonly Row[], { db, registry, kind, structure }: AvailabilityContext) => {

    const task = firstTask(workflow);
    if (task && !await canAssign(db, task[0], task[1].task!)) {
        return () => false;
    }

    const ids = records.map((record) => record[structure.root.uniqueColumn]);
    const busy = await busyAmong(db, registry, structure, ids);
    const holding = workflow.def.condition === undefined ? undefined : await holdingFor(db, registry, kind, structure, workflow.def.condition, ids);
    return (record: Row): boolean => {

        const id = String(record[structure.root.uniqueColumn]);
        return !busy.has(id) && (holding?.has(id) ?? true);
    };
};

const completeAssignment = async (call: ActionCall): Promise<WorkflowState> => {

    const { req, db, structure: assignments, payload } = call;
    // Locks in one order: the record the workflow runs on, then this assignment (read again, locked). Two members
    // of a group completing their sibling assignments at once then queue on the record, and the second finds its
    // own assignment INACTIVE, instead of each holding its own assignment and waiting for the other's (a deadlock
    // on PostgreSQL). The dispatcher read the assignment without a lock (lock: false below).
    const target = findWorkflow(req.osprey.registry, String(call.record!.processname))?.structure;
    if (target) {
        await selectOne(db, target.root.table, { [target.root.uniqueColumn]: call.record!.ownerid }, { columns: [target.root.uniqueColumn], lock: db.kind === 'postgresql' });
    }

    const assignment = await call.write.read(assignments.name, call.record!, { lock: true });
    const status = String(assignment.assignstatus) as AssignStatus;
    if (status !== 'ACTIVE') {
        throw maximoError('badRequest', `The assignment ${String(assignment.wfassignmentid)} is ${status} already; only an ACTIVE assignment is completed.`);
    }

    const workflow = findWorkflow(req.osprey.registry, String(assignment.processname));
    const node = workflow && own(workflow.def.nodes, String(assignment.nodeid));
    if (!workflow || !node?.task || workflow.structure.root.name !== assignment.ownertable) {
        throw maximoError('badRequest', `The assignment ${String(assignment.wfassignmentid)} is at ${String(assignment.nodeid)} of the workflow ${String(assignment.processname)}, which the structures no longer declare as a task; an administrator closes it.`);
    }

    const { structure } = workflow;
    const record = await db.query(structure.root.table).where(structure.root.uniqueColumn, assignment.ownerid as number).first() as Row | undefined;
    if (!record) {
        throw maximoError('badRequest', `The ${structure.name} record of the assignment ${String(assignment.wfassignmentid)} no longer exists; an administrator closes the assignment.`);
    }

    const admin = adminWrites(call.write, call.user);
    const memo = payload.memo || undefined;
    await admin.update(assignments.name, assignment, { assignstatus: 'COMPLETE', accepted: payload.accepted, memo: memo ?? null, enddate: call.now.toISOString() });
    // One completes a group's task for all: the others' assignments close.
    for (const other of await activeAssignments(db, req.osprey.registry, structure, record)) {
        await admin.update(assignments.name, other, { assignstatus: 'INACTIVE', enddate: call.now.toISOString() });
    }

    const route = payload.accepted ? node.positive! : node.negative!;
    return await runFrom({ call, workflow, record, memo }, route.next, String(assignment.nodeid));
};

// The routes of an assignment as IBM's guide shows them: [{instruction, ispositive}], negative first.
const wfactionOf = (row: Row): Row[] => [
    { instruction: row.negativeinstruction ?? null, ispositive: false },
    { instruction: row.positiveinstruction ?? null, ispositive: true }
];

export const registerWorkflows = (actions: Actions, registry: Registry): void => {

    for (const structure of registry.list()) {
        for (const [name, def] of Object.entries(structure.def.workflows)) {
            const workflow: FoundWorkflow = { name, structure, def };
            actions.register(structure.name, `workflow:${name}`, {
                handler: (call) => starting(workflow, call),
                schema: startPayload,
                description: def.description ?? `Start the workflow ${name}`,
                availableAmong: (records, context) => startable(workflow, records, context)
            });
        }
    }

    const assignments = assignmentStructure(registry);
    if (!assignments) {
        return;
    }

    actions.register(assignments.name, 'wsmethod:completeAssignment', {
        handler: completeAssignment,
        schema: completion,
        lock: false,
        description: 'Complete the assignment: the positive (accepted: true) or negative route of its task',
        available: (row) => row.assignstatus === 'ACTIVE'
    });
    registerHooks(assignments.root.name, {
        computed: {
            wfaction: { value: wfactionOf, query: 'is worked out from positiveinstruction and negativeinstruction when an assignment is read, so it cannot filter, sort or group: use those' }
        }
    });
};

// The actions the workflows' nodes run must be registered, on one record, and change something: checked when the
// server starts, after every plugin registered its actions (as the YAML's declared actions are).
export const checkWorkflowActions = (actions: Actions, registry: Registry): void => {

    for (const structure of registry.list()) {
        for (const [name, def] of Object.entries(structure.def.workflows)) {
            for (const [nodeName, node] of Object.entries(def.nodes)) {
                if (node.action === undefined) {
                    continue;
                }

                const action = findAction(actions, structure, node.action);
                const problem = !action ? 'which no plugin registered' : action.kind === 'workflow' ? 'a workflow (a record has one active workflow at a time)'
                    : action.spec.scope === 'collection' ? 'an action on the collection, not on the record' : action.spec.dryRun ? 'a question that changes nothing' : undefined;
                if (problem) {
                    throw new UndeclaredHandlerError(`${structure.file}: the node ${nodeName} of the workflow ${name} of ${structure.name} runs the action ${node.action}, ${problem}.`);
                }
            }
        }
    }
};
