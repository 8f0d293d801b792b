import type { DomainDef, StructureDef } from './definition';
import type { Problem } from './problems';
import { eachObject, Registry, type BusinessObject, type Structure } from './registry';
import { reservedTable } from './reserved-tables';
import { checkSecretUses } from './secret-uses';
import { didYouMean } from './suggest';
import { servedSystemTables } from '../users/tables';


// `within`: the 1-based column of the problem inside the string value at `path` (a where's parser names one).
export type Report = (path: string, message: string, within?: number) => void;

// A check of one structure that belongs to another layer (query text, report definitions): the caller passes
// it in, so that loading the YAML does not depend on the query parser or the reports.
export type StructureCheck = (structure: Structure, registry: Registry, report: Report) => void;

// Cross-file checks: every name a structure uses (keys, joins, relations, lookups, domains) must exist.
// `failed`: the structures of files that did not load (name → file). A reference to one is not checked, and not
// reported as missing; the failed file says once which references wait for it.
export const linkStructures = (structures: readonly Structure[], domains: ReadonlyMap<string, DomainDef>, checks: readonly StructureCheck[], failed: ReadonlyMap<string, string> = new Map()): Problem[] => {

    const problems: Problem[] = [];
    const waiting = new Map<string, string[]>();
    const missing = (name: string, from: Structure, path: string, message: string) => {

        const file = failed.get(name.toUpperCase());
        if (file) {
            waiting.set(file, [...waiting.get(file) ?? [], `${from.file} at ${path}`]);
            return;
        }

        problems.push({ file: from.file, path, message: `${message}${didYouMean(name, [...byName.keys(), ...failed.keys()])}` });
    };

    const byName = new Map(structures.map((structure) => [structure.name, structure]));
    const tables = new Map<string, string>();
    const objectTables = new Map<string, { table: string; structure: string }>();
    // The checks passed in resolve names as requests do (report columns follow relations); a name no
    // structure has is reported here as well.
    const registry = new Registry(structures, domains);

    for (const structure of structures) {
        const report: Report = (path, message, within) => problems.push({ file: structure.file, path, message, ...within === undefined ? {} : { within } });
        const def = structure.def;

        for (const object of eachObject(structure.root)) {
            const prefix = object === structure.root ? '' : `children.${object.path.split('.').slice(1).join('.children.')}.`;
            checkObject(object, prefix, report, domains, def);
            const reserved = reservedTable(object);
            if (reserved) {
                report(`${prefix}table`, reserved);
            }

            const owner = tables.get(object.table);
            // A served user table's rows are one business object's wherever it appears (GROUPUSER of a user and of a group).
            if (owner && owner !== structure.name && !servedSystemTables.has(object.table)) {
                report(`${prefix}table`, `table "${object.table}" is already used by ${owner}; each table belongs to one structure`);
            }

            tables.set(object.table, structure.name);
            // A record's business object is one structure's (its table is, above): its documents, its owners and the
            // lookups by object name (registry.byObject) are the object's, so a second structure of it on another
            // table would share them between unrelated records.
            const served = object === structure.root ? objectTables.get(object.name) : undefined;
            if (served && served.table !== object.table) {
                report('object', `the object ${object.name} is already served by ${served.structure} (table "${served.table}"); its records' documents and owners are that structure's, so another structure cannot serve it (name another object)`);
            }
            else if (object === structure.root && !served) {
                objectTables.set(object.name, { table: object.table, structure: structure.name });
            }

            // Attachments are a record's: a child row's documents would have no route to reach them by.
            if (object !== structure.root && object.attachments) {
                report(`${prefix}children`, `attachments (\`attachments: true\`) belong to the structure's root object ${structure.root.name}, not to the child object ${object.name}`);
            }

            for (const [name, child] of object.children) {
                for (const [parentAttr, childAttr] of Object.entries(child.join)) {
                    if (!object.attributes.has(parentAttr)) {
                        report(`${prefix}children.${name}.join.${parentAttr}`, `join attribute "${parentAttr}" is not an attribute of ${object.name}${didYouMean(parentAttr, object.attributes.keys())}`);
                    }

                    if (!child.object.attributes.has(childAttr)) {
                        report(`${prefix}children.${name}.join.${parentAttr}`, `join attribute "${childAttr}" is not an attribute of ${child.object.name}${didYouMean(childAttr, child.object.attributes.keys())}`);
                    }
                }

                // A child row belongs to one parent row: its join names the parent's whole identity (or its
                // unique id), else the rows of parents that share a join value would be one collection.
                const joined = Object.keys(child.join);
                if (!joined.includes(object.uniqueColumn) && object.identity.some((key) => !joined.includes(key))) {
                    report(`${prefix}children.${name}.join`, `the join must include every key of ${object.name} (${object.identity.join(', ')}) or its unique column ${object.uniqueColumn}, so that a child row belongs to one ${object.name}`);
                }
            }
        }

        for (const [name, relation] of Object.entries(def.relations)) {
            const target = byName.get(relation.structure.toUpperCase());
            if (!target) {
                missing(relation.structure, structure, `relations.${name}.structure`, `structure "${relation.structure}" does not exist`);
                continue;
            }

            for (const [local, remote] of Object.entries(relation.join)) {
                if (!structure.root.attributes.has(local)) {
                    report(`relations.${name}.join.${local}`, `"${local}" is not an attribute of ${structure.name}${didYouMean(local, structure.root.attributes.keys())}`);
                }

                if (!target.root.attributes.has(remote)) {
                    report(`relations.${name}.join.${local}`, `"${remote}" is not an attribute of ${target.name}${didYouMean(remote, target.root.attributes.keys())}`);
                }
            }
        }

        for (const [name, lookup] of Object.entries(def.lookups)) {
            if (lookup.domain && !domains.has(lookup.domain)) {
                report(`lookups.${name}.domain`, `domain "${lookup.domain}" does not exist${didYouMean(lookup.domain, domains.keys())}`);
            }

            if (lookup.structure) {
                const target = byName.get(lookup.structure.toUpperCase());
                if (!target) {
                    missing(lookup.structure, structure, `lookups.${name}.structure`, `structure "${lookup.structure}" does not exist`);
                }
                else if (!target.root.attributes.has(lookup.value!)) {
                    report(`lookups.${name}.value`, `"${lookup.value}" is not an attribute of ${target.name}${didYouMean(lookup.value!, target.root.attributes.keys())}`);
                }
            }
        }

        checkStatuses(structure, report, domains);
        checkOwner(structure, report);
        checkSecretUses(structure, byName, report);
        for (const check of checks) {
            check(structure, registry, report);
        }
    }

    for (const [file, references] of waiting) {
        problems.push({ file, path: '', message: `the structure in this file did not load, so these references to it are not checked: ${references.join('; ')}` });
    }

    return problems;
};

const checkObject = (object: BusinessObject, prefix: string, report: Report, domains: ReadonlyMap<string, DomainDef>, def: StructureDef) => {

    const unique = object.attributes.get(object.uniqueColumn);
    if (!unique) {
        report(`${prefix}uniqueColumn`, `"${object.uniqueColumn}" is not an attribute${didYouMean(object.uniqueColumn, object.attributes.keys())}`);
    }
    else if (!['bigint', 'integer'].includes(unique.type)) {
        report(`${prefix}attributes.${object.uniqueColumn}.type`, `the unique column must be bigint or integer, not ${unique.type}`);
    }

    object.primaryKey.forEach((key, index) => {

        if (!object.attributes.has(key)) {
            report(`${prefix}primaryKey.${index}`, `"${key}" is not an attribute${didYouMean(key, object.attributes.keys())}`);
        }
        else if (!object.attributes.get(key)!.persistent) {
            report(`${prefix}primaryKey.${index}`, `"${key}" is not persistent and cannot be a key`);
        }
    });

    for (let i = 0; i < object.indexes.length; ++i) {
        object.indexes[i]!.forEach((name, j) => {

            if (!object.attributes.get(name)?.persistent) {
                report(`${prefix}indexes.${i}.${j}`, `"${name}" is not a persistent attribute and cannot be indexed${object.attributes.has(name) ? '' : didYouMean(name, object.attributes.keys())}`);
            }
        });
    }

    for (const attr of object.attributes.values()) {
        if (attr.domain && !domains.has(attr.domain)) {
            report(`${prefix}attributes.${attr.name}.domain`, `domain "${attr.domain}" does not exist${didYouMean(attr.domain, domains.keys())}`);
        }

        if (attr.lookup && !def.lookups[attr.lookup]) {
            report(`${prefix}attributes.${attr.name}.lookup`, `lookup "${attr.lookup}" is not declared under lookups${didYouMean(attr.lookup, Object.keys(def.lookups))}`);
        }
    }
};

const checkOwner = (structure: Structure, report: Report) => {

    const owner = structure.def.access.owner;
    if (owner && !structure.root.attributes.get(owner)?.persistent) {
        report('access.owner', `"${owner}" is not a stored attribute of ${structure.root.name}${structure.root.attributes.has(owner) ? '' : didYouMean(owner, structure.root.attributes.keys())}`);
    }
};

const checkStatuses = (structure: Structure, report: Report, domains: ReadonlyMap<string, DomainDef>) => {

    const def = structure.def;
    const statusAttr = structure.root.attributes.get(def.statusAttribute);
    if (def.statuses && !statusAttr) {
        report('statusAttribute', `"${def.statusAttribute}" is not an attribute, but statuses are declared${didYouMean(def.statusAttribute, structure.root.attributes.keys())}`);
    }

    const domain = statusAttr?.domain ? domains.get(statusAttr.domain) : undefined;
    if (def.statuses && domain) {
        const known = new Set(domain.values.map((value) => String(value.value)));
        for (const [from, targets] of Object.entries(def.statuses)) {
            for (const status of [from, ...targets]) {
                if (!known.has(status)) {
                    report(`statuses.${from}`, `status "${status}" is not a value of domain ${statusAttr!.domain}${didYouMean(status, known)}`);
                }
            }
        }
    }

    if (def.statusHistory && !structure.root.children.has(def.statusHistory)) {
        report('statusHistory', `"${def.statusHistory}" is not a child of ${structure.name}${didYouMean(def.statusHistory, structure.root.children.keys())}`);
    }
};
