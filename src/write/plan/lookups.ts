import type { Knex } from 'knex';

import type { DatabaseKind } from '../../db/knex';
import { remember } from '../../db/remember';
import type { Where } from '../../read/parse/ast';
import { applyWhere } from '../../read/compile/compile-where';
import { parseWhere } from '../../read/parse/where';
import type { LookupDef } from '../../structures/definition';
import type { BusinessObject } from '../../structures/registry';
import type { WriteScope } from '../context';
import type { Row } from '../../read/execute/find';


// An attribute with `lookup:` only takes values its lookup lists for this record: a domain's values, or a
// record of another structure found by the lookup's where, whose `:name` parameters are the record's own
// values (a work order's asset must be an asset of the work order's site).

const parsed = new WeakMap<LookupDef, Where | undefined>();

const whereOf = (lookup: LookupDef) => {

    if (!parsed.has(lookup)) {
        parsed.set(lookup, lookup.where ? parseWhere(lookup.where, 'lookup where') : undefined);
    }

    return parsed.get(lookup);
};

// A lookup's query depends on the record only through the parameters its where reads, so its SQL is compiled
// once per lookup and values of those parameters (building and compiling it with knex was the largest part of
// knex's share of a create's CPU). The value looked up is the first binding: its where comes first.
interface Compiled {
    readonly sql: string;
    readonly rest: readonly Knex.Value[];
}

interface LookupQueries {
    readonly names: readonly string[];
    readonly byParams: Map<string, Compiled>;
}

const compiledLookups = new WeakMap<LookupDef, LookupQueries>();

// The parameter values exactly as the where sees them: absent, undefined, null and a value of each type apart.
const paramValue = (row: Row, name: string) => {

    const value = row[name];
    return !(name in row) ? 'absent' : value === undefined ? 'undefined' : [typeof value, value instanceof Date ? value.toISOString() : value];
};

const paramKey = (kind: DatabaseKind, queries: LookupQueries, row: Row) => JSON.stringify([kind, ...queries.names.map((name) => paramValue(row, name))]);

const compiledQuery = (kind: DatabaseKind, build: (params: Row) => Knex.QueryBuilder, lookup: LookupDef, row: Row): Compiled => {

    let queries = compiledLookups.get(lookup);
    const known = queries && queries.byParams.get(paramKey(kind, queries, row));
    if (known) {
        return known;
    }

    // The parameters the where reads, as it reads them.
    const names = new Set<string>();
    const params = new Proxy(row, {
        get: (target, name) => (names.add(String(name)), target[name as string]),
        has: (target, name) => (names.add(String(name)), name in target)
    });
    const { sql, bindings } = build(params).toSQL();
    if (!queries) {
        queries = { names: [...names], byParams: new Map() };
        compiledLookups.set(lookup, queries);
    }

    return remember(queries.byParams, paramKey(kind, queries, row), { sql, rest: bindings.slice(1) });
};

export const checkLookups = async (scope: WriteScope, object: BusinessObject, values: Row, row: Row): Promise<void> => {

    const { registry } = scope.ctx;
    const { kind } = scope.db;
    for (const [name, value] of Object.entries(values)) {
        const attr = object.attributes.get(name)!;
        const lookup = attr.lookup ? scope.structure.def.lookups[attr.lookup] : undefined;
        if (!lookup || value === null) {
            continue;
        }

        const fail = (list: string) => scope.errors.push({ attribute: name, objectPath: object.path, message: `The value ${JSON.stringify(value)} of ${object.name}.${name.toUpperCase()} is not in its list of values (${list}).` });
        if (lookup.domain) {
            if (!registry.domain(lookup.domain)!.values.some((entry) => String(entry.value) === String(value))) {
                fail(`domain ${lookup.domain}`);
            }

            continue;
        }

        const target = registry.get(lookup.structure!)!;
        const column = lookup.value ?? name;
        const build = (params: Row) => {

            const query = scope.db.knex({ q0: target.root.table }).where(`q0.${column}`, value as string).first(`q0.${column}`);
            const where = whereOf(lookup);
            if (where) {
                applyWhere(query, { registry, kind, parameter: 'lookup where', params, structure: target, object: target.root, alias: 'q0', aliases: { next: 0 }, reach: undefined }, where);
            }

            return query;
        };

        const { sql, rest } = compiledQuery(kind, build, lookup, row);
        if (!(await scope.db.rows(sql, [value as Knex.Value, ...rest])).length) {
            fail(`${target.name}${lookup.where ? ` where ${lookup.where}` : ''}`);
        }
    }
};

