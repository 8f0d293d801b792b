import type { Knex } from 'knex';

import { isAllowed, ownerRule } from '../../auth/access';
import type { UserProfile } from '../../auth/users';
import type { DatabaseKind } from '../../db/knex';
import { remember } from '../../db/remember';
import { maximoError } from '../../errors/maximo-error';
import type { Where } from '../../read/parse/ast';
import { applyWhere } from '../../read/compile/compile-where';
import { bindingsOf, compileSql, slot, type CompiledSql } from '../../read/compile/compiled-sql';
import { parseWhere } from '../../read/parse/where';
import { reachKey } from '../../read/plan/reach';
import type { LookupDef } from '../../structures/definition';
import type { BusinessObject, Structure } from '../../structures/registry';
import type { WriteScope } from '../context';
import type { Row } from '../../read/execute/find';


// An attribute with `lookup:` only takes values its lookup lists for this record: a domain's values, or a
// record of another structure found by the lookup's where, whose `:name` parameters are the record's own
// values (a work order's asset must be an asset of the work order's site).
//
// The records are read as the writer may read them, as the list of values (src/read/lookups.ts) lists them
// (issue 18): a structure the writer may not read is a 403 whatever the value, before any row is read, and
// records of other owners (access.owner) are not there, so a value naming one is refused exactly as a value
// naming none. Otherwise a write would tell the writer whether a row they may not read exists.

const parsed = new WeakMap<LookupDef, Where | undefined>();

const whereOf = (lookup: LookupDef) => {

    if (!parsed.has(lookup)) {
        parsed.set(lookup, lookup.where ? parseWhere(lookup.where, 'lookup where') : undefined);
    }

    return parsed.get(lookup);
};

// A lookup's query depends on the record only through the parameters its where reads, and on the writer only
// through their reach (read rights and owner rules, ../../read/plan/reach.ts), so its SQL is compiled once per
// lookup, reach and values of those parameters (building and compiling it with knex was the largest part of
// knex's share of a create's CPU). The value looked up and the owner's userid are slots, bound on each run.
interface LookupQueries {
    readonly names: readonly string[];
    readonly byParams: Map<string, CompiledSql>;
}

const compiledLookups = new WeakMap<LookupDef, LookupQueries>();

// The parameter values exactly as the where sees them: absent, undefined, null and a value of each type apart.
const paramValue = (row: Row, name: string) => {

    const value = row[name];
    return !(name in row) ? 'absent' : value === undefined ? 'undefined' : [typeof value, value instanceof Date ? value.toISOString() : value];
};

const paramKey = (kind: DatabaseKind, user: UserProfile, queries: LookupQueries, row: Row) => JSON.stringify([kind, reachKey(user), ...queries.names.map((name) => paramValue(row, name))]);

const compiledQuery = (kind: DatabaseKind, user: UserProfile, build: (params: Row) => Knex.QueryBuilder, lookup: LookupDef, row: Row): CompiledSql => {

    let queries = compiledLookups.get(lookup);
    const known = queries && queries.byParams.get(paramKey(kind, user, queries, row));
    if (known) {
        return known;
    }

    // The parameters the where reads, as it reads them.
    const names = new Set<string>();
    const params = new Proxy(row, {
        get: (target, name) => (names.add(String(name)), target[name as string]),
        has: (target, name) => (names.add(String(name)), name in target)
    });
    const compiled = compileSql(build(params));
    if (!queries) {
        queries = { names: [...names], byParams: new Map() };
        compiledLookups.set(lookup, queries);
    }

    return remember(queries.byParams, paramKey(kind, user, queries, row), compiled);
};

// The writer must be able to read the lookup's structure, as the list of values requires: whatever the value,
// so that the answer says nothing about the rows.
const requireReadable = (user: UserProfile, object: BusinessObject, name: string, target: Structure) => {

    if (!isAllowed(user, target, 'read')) {
        throw maximoError('forbidden', `User ${user.userid} is not authorized to read ${target.name} records, which the list of values of ${object.name}.${name.toUpperCase()} lists.`);
    }
};

export const checkLookups = async (scope: WriteScope, object: BusinessObject, values: Row, row: Row): Promise<void> => {

    const { registry, user } = scope.ctx;
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
        requireReadable(user, object, name, target);
        const column = lookup.value ?? name;
        const owner = ownerRule(user, target);
        const build = (params: Row) => {

            const query = scope.db.query({ q0: target.root.table }).where(`q0.${column}`, slot('value')).select(`q0.${column}`).limit(1, { skipBinding: true });
            const where = whereOf(lookup);
            if (where) {
                // Relations the where follows are followed with the writer's rights and owner rules.
                applyWhere(query, { registry, kind, parameter: 'lookup where', params, structure: target, object: target.root, alias: 'q0', aliases: { next: 0 }, reach: { user, owner: slot('owner') } }, where);
            }

            if (owner) {
                query.where(`q0.${owner.attribute}`, slot('owner'));
            }

            return query;
        };

        const compiled = compiledQuery(kind, user, build, lookup, row);
        if (!(await scope.db.rows(compiled.sql, bindingsOf(compiled, { value, owner: user.userid }))).length) {
            fail(`${target.name}${lookup.where ? ` where ${lookup.where}` : ''}`);
        }
    }
};
