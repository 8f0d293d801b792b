import * as Boom from '@hapi/boom';

import type { UserProfile } from '../auth/users';
import type { EngineWrites } from '../actions/call';
import { writesAs } from '../actions/engine-writes';
import type { Db } from '../db/db';
import { maximoError } from '../errors/maximo-error';
import { memberId } from '../read/serialize/serialize';
import type { NodeDef, TaskDef } from '../structures/definition';
import type { Registry, Row, Structure } from '../structures/registry';
import { activeAssignments, busyAmong, keysOf } from './held';
import { assignmentStructureName, type AssignStatus } from './model';


export { activeAssignments, busyAmong };


// The assignments of a workflow's tasks (MXAPIWFASSIGNMENT records): made when a workflow reaches a task, one per
// assignee, and closed when one of them completes it. Users may not write assignments (the structure grants no
// insert, update or delete), so the workflow writes them through the engine as an administrator, in its own
// transaction: the same validation, rowstamps and events as an administrator's PATCH.

// Assignments are the server's own writes: the user's profile, with an administrator's rights.
export const adminWrites = (write: EngineWrites, user: UserProfile): EngineWrites => writesAs(write, { ...user, isAdmin: true });

// The active users a task names: its users, and every active member of its groups; each once, in order. A group or
// user that does not exist, or a task that finds nobody, is refused: the workflow would wait for no one.
const assigneesOf = async (db: Db, node: string, task: TaskDef): Promise<string[]> => {

    const groups = task.groups.length ? await db.query('osprey_group').whereIn('groupname', task.groups).select('groupname') as Row[] : [];
    const missingGroup = task.groups.find((group) => !groups.some((row) => row.groupname === group));
    if (missingGroup) {
        throw maximoError('badRequest', `The task ${node} is assigned to the group ${missingGroup}, which does not exist; nothing was done.`);
    }

    const members = task.groups.length ? await db.query({ gu: 'osprey_groupuser' }).join({ u: 'osprey_user' }, 'u.userid', 'gu.userid')
        .whereIn('gu.groupname', task.groups).andWhere('u.status', 'ACTIVE').orderBy('gu.userid').select('gu.userid') as Row[] : [];
    const users = task.users.length ? await db.query('osprey_user').whereIn('userid', task.users).andWhere('status', 'ACTIVE').select('userid') as Row[] : [];
    const missingUser = task.users.find((userid) => !users.some((row) => row.userid === userid));
    if (missingUser) {
        throw maximoError('badRequest', `The task ${node} is assigned to the user ${missingUser}, who does not exist or is not active; nothing was done.`);
    }

    const assignees = [...new Set([...task.users, ...members.map((row) => String(row.userid))])];
    if (!assignees.length) {
        throw maximoError('badRequest', `The task ${node} is assigned to ${task.groups.join(', ')}, which ${task.groups.length === 1 ? 'has' : 'have'} no active member; nothing was done.`);
    }

    return assignees;
};

// Whether the task would find someone to assign now (allowedactions: register.ts).
export const canAssign = async (db: Db, node: string, task: TaskDef): Promise<boolean> => {

    try {
        await assigneesOf(db, node, task);
        return true;
    }
    catch (error) {
        if (!Boom.isBoom(error)) {
            throw error;
        }

        return false;
    }
};

export interface Assigning {
    readonly db: Db;
    readonly admin: EngineWrites;
    readonly workflow: string;
    readonly structure: Structure;
    readonly record: Row;
    readonly now: Date;
}

// Makes the assignments of the task `name` on the record: one per assignee.
export const assign = async ({ db, admin, workflow, structure, record, now }: Assigning, name: string, node: NodeDef): Promise<Row[]> => {

    const task = node.task!;
    const { root } = structure;
    const keys = keysOf(structure, record);
    const common: Row = {
        processname: workflow,
        nodeid: name,
        ownertable: root.name,
        ownerid: record[root.uniqueColumn],
        description: `${task.description} (${structure.name} ${keys})`.slice(0, 254),
        assignstatus: 'ACTIVE' satisfies AssignStatus,
        startdate: now.toISOString(),
        ...task.dueHours !== undefined ? { duedate: new Date(now.getTime() + task.dueHours * 3600_000).toISOString() } : {},
        positiveinstruction: node.positive!.instruction,
        negativeinstruction: node.negative!.instruction
    };
    const made: Row[] = [];
    for (const assigncode of await assigneesOf(db, name, task)) {
        // The engine answers the stored row's keys and rowstamp.
        made.push({ ...common, assigncode, ...await admin.create(assignmentStructureName, { ...common, assigncode }) });
    }

    return made;
};

// An assignment as the answer of a workflow names it.
export const assignmentEntry = (home: string, registry: Registry, row: Row): Row => {

    const structure = registry.get(assignmentStructureName)!;
    return { wfassignmentid: Number(row.wfassignmentid), assigncode: row.assigncode, href: `${home}/os/${structure.id}/${memberId(structure.root, row)}` };
};
