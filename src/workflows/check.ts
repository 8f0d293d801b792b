import type { Where } from '../read/parse/ast';
import type { QueryError } from '../read/parse/query-error';
import { parseWhere } from '../read/parse/where';
import type { NodeDef, WorkflowDef } from '../structures/definition';
import type { Report, StructureCheck } from '../structures/link';
import { own } from '../structures/own';
import { didYouMean } from '../structures/suggest';
import type { BusinessObject, Registry, Structure } from '../structures/registry';
import { assignmentAttributes, assignmentStructure, memoAttribute, routesOf } from './model';


// The workflows of a structure's YAML are checked when it loads (at start and by `npm run validate`), so that a
// mistake stops the start with the file and the node named instead of failing a user's request: every route names a
// node, every status is one of the structure's, every condition parses and names what the record has, every
// attribute a node sets is one a client could write, no loop runs without waiting at a task, and tasks have the
// assignment structure to be written to. The actions a node runs are registered by plugins, so they are checked when
// the server starts (./register.ts). Whether an assignee group or user exists is the database's: a task that
// finds nobody to assign is refused when it runs, and the workflow with it.

// The names a where uses resolve against the record as a query would: an attribute, or a child object or a
// relation leading to one.
const checkNames = (where: Where, object: BusinessObject, structure: Structure | undefined, registry: Registry): string | undefined => {

    switch (where.kind) {
        case 'and':
        case 'or': return where.terms.map((term) => checkNames(term, object, structure, registry)).find(Boolean);
        case 'not': return checkNames(where.term, object, structure, registry);
        default: {
            let current = object;
            let owner = structure;
            const names = where.path.names;
            const hops = where.kind === 'exists' ? names : names.slice(0, -1);
            for (const name of hops) {
                const child = current.children.get(name);
                const relation = owner?.root === current ? own(owner.def.relations, name) : undefined;
                const next = child?.object ?? (relation ? registry.get(relation.structure) : undefined);
                if (!next) {
                    const known = [...current.children.keys(), ...owner?.root === current ? Object.keys(owner.def.relations) : []];
                    return `${name} is not a child object or relationship of ${current.name}${didYouMean(name, known)}`;
                }

                owner = child ? undefined : next as Structure;
                current = child ? child.object : (next as Structure).root;
            }

            if (where.kind === 'exists') {
                return checkNames(where.where, current, owner, registry);
            }

            const last = names[names.length - 1]!;
            const attr = current.attributes.get(last);
            return attr?.persistent ? undefined : `${names.join('.')} is not a stored attribute of ${current.name}${attr ? '' : didYouMean(last, current.attributes.keys())}`;
        }
    }
};

const checkCondition = (text: string, structure: Structure, registry: Registry, path: string, report: Report): void => {

    try {
        const problem = checkNames(parseWhere(text, 'workflow condition'), structure.root, structure, registry);
        if (problem) {
            report(path, problem);
        }
    }
    catch (error) {
        // The parser names the column of the mistake in the condition's text: the problem is placed there.
        report(path, (error as QueryError).message, (error as QueryError).position);
    }
};

const checkNode = (structure: Structure, registry: Registry, workflow: WorkflowDef, name: string, node: NodeDef, report: Report): void => {

    const { def, root } = structure;
    for (const [key, target] of routesOf(node)) {
        if (!own(workflow.nodes, target)) {
            report(key, `node ${name} routes to ${target}, which is not a node of the workflow (its nodes: ${Object.keys(workflow.nodes).join(', ')})`);
        }
    }

    if (node.if !== undefined) {
        checkCondition(node.if, structure, registry, 'if', report);
    }

    if (node.status !== undefined) {
        if (!def.statuses) {
            report('status', `node ${name} changes the status, but ${structure.name} declares no statuses`);
        }
        else if (!own(def.statuses, node.status)) {
            report('status', `node ${name} changes the status to ${node.status}, which is not a status of ${structure.name} (${Object.keys(def.statuses).join(', ')})`);
        }
    }

    if (node.memo !== undefined && !memoAttribute(structure)) {
        report('memo', `node ${name} gives a memo, but ${structure.name} keeps none with a status change (it has no memo attribute)`);
    }

    for (const attribute of Object.keys(node.set ?? {})) {
        const attr = root.attributes.get(attribute);
        if (!attr || attr.generated || attr.readonly || attribute === def.statusAttribute || root.primaryKey.includes(attribute)) {
            report(`set.${attribute}`, `node ${name} sets ${attribute}, which ${attr ? 'is not an attribute a write may change here (a key, the status, generated or read-only)' : `is not an attribute of ${root.name}`}`);
        }
    }

    if (node.task && !assignmentStructure(registry)) {
        report('task', `node ${name} is a task, but no structure MXAPIWFASSIGNMENT (${assignmentAttributes.join(', ')}) holds assignments`);
    }
};

// Each loop of nodes must pass a task: a loop of conditions and writes alone would never end.
const checkLoops = (workflow: WorkflowDef, report: Report): void => {

    const done = new Set<string>();
    const visit = (name: string, path: readonly string[]): void => {

        const node = own(workflow.nodes, name);
        if (!node || node.task || done.has(name)) {
            return;
        }

        if (path.includes(name)) {
            report(name, `the nodes ${[...path.slice(path.indexOf(name)), name].join(' → ')} loop without a task to wait at`);
            return;
        }

        for (const [, target] of routesOf(node)) {
            visit(target, [...path, name]);
        }

        done.add(name);
    };

    for (const name of Object.keys(workflow.nodes)) {
        visit(name, []);
    }
};

const reachable = (workflow: WorkflowDef): Set<string> => {

    const seen = new Set<string>();
    const queue = [workflow.start];
    while (queue.length) {
        const name = queue.shift()!;
        const node = own(workflow.nodes, name);
        if (node && !seen.has(name)) {
            seen.add(name);
            queue.push(...routesOf(node).map(([, target]) => target));
        }
    }

    return seen;
};

export const checkWorkflows: StructureCheck = (structure, registry, report) => {

    for (const [name, workflow] of Object.entries(structure.def.workflows)) {
        const path = `workflows.${name}`;
        const other = registry.list().find((each) => each !== structure && each.name < structure.name && own(each.def.workflows, name));
        if (other) {
            report(path, `the workflow ${name} is also declared by ${other.name}; a workflow's name is unique among all structures`);
        }

        if (workflow.condition !== undefined) {
            checkCondition(workflow.condition, structure, registry, `${path}.condition`, report);
        }

        if (!own(workflow.nodes, workflow.start)) {
            report(`${path}.start`, `the workflow starts at ${workflow.start}, which is not one of its nodes (${Object.keys(workflow.nodes).join(', ')})`);
            continue;
        }

        for (const [nodeName, node] of Object.entries(workflow.nodes)) {
            checkNode(structure, registry, workflow, nodeName, node, (key, message) => report(`${path}.nodes.${nodeName}.${key}`, message));
        }

        checkLoops(workflow, (node, message) => report(`${path}.nodes.${node}`, message));
        const reached = reachable(workflow);
        for (const nodeName of Object.keys(workflow.nodes).filter((each) => !reached.has(each))) {
            report(`${path}.nodes.${nodeName}`, `node ${nodeName} is never reached from the start node ${workflow.start}`);
        }
    }
};
