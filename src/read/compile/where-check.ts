import Knex from 'knex';

import type { Report, StructureCheck } from '../../structures/link';
import { eachObject, type BusinessObject, type Registry, type Structure } from '../../structures/registry';
import { own } from '../../structures/own';
import { didYouMean } from '../../structures/suggest';
import type { Where } from '../parse/ast';
import { parameterNames } from '../parse/params';
import type { QueryError } from '../parse/query-error';
import { parseWhere } from '../parse/where';
import { declaredAttribute } from '../plan/attribute-names';
import { applyWhere } from './compile-where';


// Query text in YAML is parsed at load and its names resolved against the structure with the compiler a request
// uses (./compile-where.ts), so a typo in a where stops the start and `npm run validate` instead of
// failing a client's request (a create that sets a looked-up attribute would get a 400 it did not cause).

// A knex that only builds SQL: it never connects.
const builder = Knex({ client: 'better-sqlite3', useNullAsDefault: true });

// Every parameter has a value at load: null, which every type of attribute takes.
const anyParams: Readonly<Record<string, unknown>> = new Proxy({}, {
    getOwnPropertyDescriptor: () => ({ value: null, writable: false, enumerable: true, configurable: true }),
    get: () => null
});

// The names a name in a where could have meant on the object the compiler's message names.
const namesOf = (registry: Registry, objectName: string): string[] => {

    const names = (structure: Structure, object: BusinessObject) => [...object.attributes.keys(), ...object.children.keys(), ...object === structure.root ? Object.keys(structure.def.relations) : []];
    return registry.list().flatMap((structure) => [...eachObject(structure.root)].filter((object) => object.name === objectName).flatMap((object) => names(structure, object)));
};

// The parser's message without what file:line:column and the path already say (the parameter, the column).
const bare = (error: QueryError) => error.message.replace(/^where: /, '').replace(/ at column \d+$/, '');

const explained = (error: QueryError, registry: Registry): string => {

    const message = bare(error);
    const unknown = /^(\w+) is not an attribute(?:, child object or relationship)? of (\w+)$/.exec(message);
    return unknown ? `${message}${didYouMean(unknown[1]!, namesOf(registry, unknown[2]!))}` : message;
};

// Whether a where follows a relation to a structure that is not there: the link check has said so (or that its
// file did not load), and such a where cannot be compiled; it is checked once the relation's structure loads.
export const followsMissing = (where: Where, registry: Registry, structure: Structure | undefined, object: BusinessObject): boolean => {

    switch (where.kind) {
        case 'and':
        case 'or': return where.terms.some((term) => followsMissing(term, registry, structure, object));
        case 'not': return followsMissing(where.term, registry, structure, object);
        default: {
            const names = where.path.names;
            const hops = where.kind === 'exists' ? names : names.slice(0, -1);
            let current = { structure, object };
            for (const name of hops) {
                const child = current.object.children.get(name);
                const relation = !child && current.structure?.root === current.object ? own(current.structure.def.relations, name) : undefined;
                if (relation && !registry.get(relation.structure)) {
                    return true;
                }

                const target = relation ? registry.get(relation.structure)! : undefined;
                if (!child && !target) {
                    return false;
                }

                current = child ? { structure: undefined, object: child.object } : { structure: target, object: target!.root };
            }

            return where.kind === 'exists' && followsMissing(where.where, registry, current.structure, current.object);
        }
    }
};

/** The where's text parsed and, when `on` is given, its names resolved against that structure's records; each
 * problem reported at its column in the text. Returns the parsed where, if it parsed. */
export const checkWhere = (where: string | undefined, path: string, report: Report, on?: { registry: Registry; structure: Structure }): Where | undefined => {

    if (where === undefined) {
        return undefined;
    }

    let parsed: Where;
    try {
        parsed = parseWhere(where, 'where');
    }
    catch (error) {
        report(path, bare(error as QueryError), (error as QueryError).position);
        return undefined;
    }

    if (!on || followsMissing(parsed, on.registry, on.structure, on.structure.root)) {
        return parsed;
    }

    try {
        const query = builder({ q0: on.structure.root.table });
        applyWhere(query, { registry: on.registry, kind: 'sqlite', parameter: 'where', params: anyParams, structure: on.structure, object: on.structure.root, alias: 'q0', aliases: { next: 0 }, reach: undefined }, parsed);
        // knex runs the callbacks of grouped terms (and, or, not, EXISTS) when it builds the SQL.
        query.toSQL();
    }
    catch (error) {
        // The compiler refuses with a QueryError at a column of the text.
        report(path, explained(error as QueryError, on.registry), (error as QueryError).position);
    }

    return parsed;
};

// The column of a parameter in a where's text (the parsed where keeps the columns of names, not of values).
const columnOf = (where: string, param: string): number => new RegExp(`:${param}\\b`, 'i').exec(where)!.index + 1;

// The objects of a structure whose attributes name a lookup: the record a lookup's `:name` parameters come from.
const lookupUsers = (structure: Structure, lookup: string): BusinessObject[] => [...eachObject(structure.root)].filter((object) => [...object.attributes.values()].some((attr) => attr.lookup === lookup));

// The where clauses of a structure's lookups (on the looked-up structure; `:name` is an attribute of the record
// edited) and saved queries (on the structure; `:name` is one of its params); reports check their own
// (reports/report-check.ts).
export const checkStructureWheres: StructureCheck = (structure, registry, report) => {

    for (const [name, lookup] of Object.entries(structure.def.lookups)) {
        const target = lookup.structure ? registry.get(lookup.structure) : undefined;
        const path = `lookups.${name}.where`;
        const parsed = checkWhere(lookup.where, path, report, target ? { registry, structure: target } : undefined);
        for (const param of parsed ? parameterNames(parsed) : []) {
            for (const object of lookupUsers(structure, name)) {
                if (!declaredAttribute(object, param)) {
                    report(path, `:${param} is not an attribute of ${object.name}, whose ${[...object.attributes.values()].filter((attr) => attr.lookup === name).map((attr) => attr.name).join(', ')} the lookup checks${didYouMean(param, object.attributes.keys())}`, columnOf(lookup.where!, param));
                }
            }
        }
    }

    for (const [name, query] of Object.entries(structure.def.savedQueries)) {
        const path = `savedQueries.${name}.where`;
        const parsed = checkWhere(query.where, path, report, { registry, structure });
        for (const param of parsed ? parameterNames(parsed) : []) {
            if (!Object.hasOwn(query.params, param)) {
                report(path, `:${param} is not declared under savedQueries.${name}.params${didYouMean(param, Object.keys(query.params))}`, columnOf(query.where, param));
            }
        }
    }
};
