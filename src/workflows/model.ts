import { memoAttribute } from '../actions/built-in';
import type { NodeDef, WorkflowDef } from '../structures/definition';
import { own } from '../structures/own';
import type { Registry, Structure } from '../structures/registry';
import { assignmentAttributes, assignmentStructure, assignmentStructureName, type AssignStatus } from './held';


// The names the workflow engine shares: the structure of the assignments, its attributes, and the routes of a node.

export { assignmentAttributes, assignmentStructure, assignmentStructureName, memoAttribute, type AssignStatus };

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
