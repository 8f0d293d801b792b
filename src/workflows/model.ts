import { memoAttribute } from '../actions/built-in';
import type { NodeDef, WorkflowDef } from '../structures/definition';
import { own } from '../structures/own';
import type { Registry, Structure } from '../structures/registry';


// The names the workflow engine shares: the structure of the assignments, its attributes, and the routes of a node.

export { memoAttribute };

/** The structure whose records are the assignments of tasks (structures/mxapiwfassignment.yaml). */
export const assignmentStructureName = 'MXAPIWFASSIGNMENT';

/** The attributes the engine writes and reads on an assignment. */
export const assignmentAttributes = ['wfassignmentid', 'assigncode', 'processname', 'nodeid', 'ownertable', 'ownerid', 'description', 'assignstatus', 'startdate', 'enddate', 'duedate', 'memo', 'accepted', 'positiveinstruction', 'negativeinstruction'] as const;

export type AssignStatus = 'ACTIVE' | 'COMPLETE' | 'INACTIVE';

export const assignmentStructure = (registry: Registry): Structure | undefined => {

    const structure = registry.get(assignmentStructureName);
    return structure && assignmentAttributes.every((name) => structure.root.attributes.has(name)) ? structure : undefined;
};

// The nodes a node may lead to, each with the key that names it.
export const routesOf = (node: NodeDef): [key: string, target: string][] => {

    const routes: [string, string | undefined][] = [['then', node.then], ['else', node.else], ['next', node.next], ['positive.next', node.positive?.next], ['negative.next', node.negative?.next]];
    return routes.filter((route): route is [string, string] => route[1] !== undefined);
};

export interface FoundWorkflow {
    readonly name: string;
    readonly structure: Structure;
    readonly def: WorkflowDef;
}

// A workflow by its name, which is unique among all structures (checked at load).
export const findWorkflow = (registry: Registry, name: string): FoundWorkflow | undefined => {

    const upper = name.toUpperCase();
    for (const structure of registry.list()) {
        const def = own(structure.def.workflows, upper);
        if (def) {
            return { name: upper, structure, def };
        }
    }

    return undefined;
};
