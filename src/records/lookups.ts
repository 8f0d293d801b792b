import { isPostgres } from '../db/knex';
import type { Where } from '../query/ast';
import { applyWhere } from '../query/compile-where';
import { parseWhere } from '../query/where';
import type { LookupDef } from '../structures/definition';
import type { BusinessObject } from '../structures/registry';
import type { WriteScope } from './context';
import type { Row } from './find';


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

export const checkLookups = async (scope: WriteScope, object: BusinessObject, values: Row, row: Row): Promise<void> => {

    const { registry } = scope.ctx;
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
        const query = scope.trx({ q0: target.root.table }).where(`q0.${column}`, value as string).first(`q0.${column}`);
        const where = whereOf(lookup);
        if (where) {
            applyWhere(query, { registry, kind: kindOf(scope), parameter: 'lookup where', params: row, structure: target, object: target.root, alias: 'q0', aliases: { next: 0 } }, where);
        }

        if (!await query) {
            fail(`${target.name}${lookup.where ? ` where ${lookup.where}` : ''}`);
        }
    }
};

const kindOf = (scope: WriteScope) => (isPostgres(scope.trx) ? 'postgresql' : 'sqlite');
