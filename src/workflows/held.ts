import type { Knex } from 'knex';

import type { Db } from '../db/db';
import { remember } from '../db/remember';
import { quoted } from '../db/statements';
import { maximoError } from '../errors/maximo-error';
import type { Registry, Row, Structure } from '../structures/registry';


// A record waiting in a workflow is in the workflow's hands: its status moves only through the workflow (the
// completion of its assignments) and it is not deleted while the workflow waits. Before, a user with the update
// right (a supervisor) could PATCH the status around the workflow, which stranded it (its completions then refused
// the transition and its assignments stayed ACTIVE), and deleting the record left ACTIVE assignments of nothing.
// The write engine asks here (src/write/plan/plan.ts, src/write/apply/delete.ts), so this module imports nothing of
// the workflow engine or the actions, which import the write engine.

/** The structure whose records are the assignments of tasks (structures/mxapiwfassignment.yaml). */
export const assignmentStructureName = 'MXAPIWFASSIGNMENT';

/** The attributes the engine writes and reads on an assignment. */
export const assignmentAttributes = ['wfassignmentid', 'assigncode', 'processname', 'nodeid', 'ownertable', 'ownerid', 'description', 'assignstatus', 'startdate', 'enddate', 'duedate', 'memo', 'accepted', 'positiveinstruction', 'negativeinstruction'] as const;

export type AssignStatus = 'ACTIVE' | 'COMPLETE' | 'INACTIVE';

export const assignmentStructure = (registry: Registry): Structure | undefined => {

    const structure = registry.get(assignmentStructureName);
    return structure && assignmentAttributes.every((name) => structure.root.attributes.has(name)) ? structure : undefined;
};

/** A record's keys as people read them (BEDFORD/1000): in messages and assignment descriptions. */
export const keysOf = (structure: Structure, record: Row): string => structure.root.primaryKey.map((key) => String(record[key] ?? '')).join('/');

// Whether any structure over this record's object declares a workflow (assignments name the object, so a workflow
// of another structure over the same table holds the record too): only then is there anything to ask.
const mayBeHeld = (registry: Registry, structure: Structure): boolean => {

    return registry.list().some((other) => other.root.name === structure.root.name && Object.keys(other.def.workflows).length > 0);
};

// The active assignments of a record (of any workflow: a record has at most one active).
export const activeAssignments = async (db: Db, registry: Registry, structure: Structure, record: Row): Promise<Row[]> => {

    const assignments = assignmentStructure(registry);
    if (!assignments) {
        return [];
    }

    // SQL text made once per table and run as is: asked on every status change of a structure with workflows, the
    // query builder's cost (a third of a status PATCH on SQLite in the bench) outweighed the indexed read itself.
    const { table, uniqueColumn } = assignments.root;
    const sql = activeSql.get(table) ?? remember(activeSql, table, `select * from ${quoted(table)} where "ownertable" = ? and "ownerid" = ? and "assignstatus" = 'ACTIVE' order by ${quoted(uniqueColumn)}`);
    return await db.rows(sql, [structure.root.name, record[structure.root.uniqueColumn] as Knex.Value]);
};

const activeSql = new Map<string, string>();

// The unique ids, of these records, of those with an active assignment (allowedactions, once per page).
export const busyAmong = async (db: Db, registry: Registry, structure: Structure, ids: readonly unknown[]): Promise<Set<string>> => {

    const assignments = assignmentStructure(registry);
    if (!assignments || !ids.length || !mayBeHeld(registry, structure)) {
        return new Set();
    }

    const rows = await db.query(assignments.root.table).distinct('ownerid').where({ ownertable: structure.root.name, assignstatus: 'ACTIVE' })
        .whereIn('ownerid', ids as string[]) as Row[];
    return new Set(rows.map((row) => String(row.ownerid)));
};

// The condition that a record is held, as SQL made once per table: an `exists` over its active assignments, which a
// status change's update on PostgreSQL answers as a column of its own statement (src/write/apply/apply.ts), where
// it took a statement of its own; none where no workflow can hold the record.
export const heldCondition = (registry: Registry, structure: Structure, record: Row): { readonly sql: string; readonly bindings: readonly Knex.Value[] } | undefined => {

    const assignments = assignmentStructure(registry);
    if (!assignments || !mayBeHeld(registry, structure)) {
        return undefined;
    }

    const { table } = assignments.root;
    const sql = heldSql.get(table) ?? remember(heldSql, table, `exists (select 1 from ${quoted(table)} where "ownertable" = ? and "ownerid" = ? and "assignstatus" = 'ACTIVE')`);
    return { sql, bindings: [structure.root.name, record[structure.root.uniqueColumn] as Knex.Value] };
};

const heldSql = new Map<string, string>();
const shownAssignees = 5;

/** Refuses `what` (a status change, a delete) of a record while a workflow waits on it, naming the workflow. */
export const refuseWhileHeld = async (db: Db, registry: Registry, structure: Structure, record: Row, what: string): Promise<void> => {

    if (!mayBeHeld(registry, structure)) {
        return;
    }

    const [first, ...others] = await activeAssignments(db, registry, structure, record);
    if (first) {
        const keys = keysOf(structure, record);
        // A few names, then how many more: a group's task has an assignment per member, and the message is not a
        // listing of the group (its members may be more than whoever reads it could list).
        const all = [first, ...others].map((row) => String(row.assigncode));
        const who = all.length > shownAssignees ? `${all.slice(0, shownAssignees).join(', ')} and ${all.length - shownAssignees} more` : all.join(', ');
        throw maximoError('badRequest', `${structure.name} ${keys} waits in the workflow ${String(first.processname)} (at ${String(first.nodeid)}, for ${who}): ${what} while it waits; complete its assignment, which moves the status as the workflow says.`);
    }
};

/** Refuses `what` of a record a statement found held (heldCondition), naming the workflow as refuseWhileHeld does. */
export const refuseHeld = async (db: Db, registry: Registry, structure: Structure, record: Row, what: string): Promise<never> => {

    await refuseWhileHeld(db, registry, structure, record, what);
    // Not reached while the write holds the record's lock (an assignment ends only under it); said all the same.
    throw maximoError('badRequest', `${structure.name} ${keysOf(structure, record)} waits in a workflow: ${what} while it waits.`);
};
