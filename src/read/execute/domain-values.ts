import type { Knex } from 'knex';

import type { DomainDef, StructureDef } from '../../structures/definition';
import { buildStructure, type Structure } from '../../structures/registry';
import { structureSchema } from '../../structures/schema';


// A domain's values listed like records, for a lookup on a domain-bound attribute: the rows of a CTE of bound
// values, aliased q0, so that oslc.where, oslc.orderBy, paging and counts work on them as on any table. They
// are not records of an object structure, so they have neither href nor rowstamp.

const table = 'osprey_domainvalues';

const { value: def } = structureSchema.validate({
    name: 'DOMAINVALUE',
    object: 'DOMAINVALUE',
    table,
    uniqueColumn: 'valueid',
    primaryKey: ['value'],
    attributes: {
        valueid: { type: 'bigint', generated: true, title: 'Position in the domain' },
        value: { type: 'aln', length: 254, title: 'Value' },
        description: { type: 'aln', length: 254, title: 'Description' },
        maxvalue: { type: 'aln', length: 254, title: 'Internal value' }
    }
}) as { value: StructureDef };

export const domainValues: Structure = buildStructure(def, '(built in)');

// Every column is cast, so that PostgreSQL types the bound values (text; the position an integer).
export const domainValuesQuery = (knex: Knex, domain: DomainDef): Knex.QueryBuilder => {

    const tuple = '(cast(? as integer), cast(? as text), cast(? as text), cast(? as text))';
    // A synonym value without a declared maxvalue is its own internal value (as {attr}_maxvalue renders it: README,
    // internal values), so it lists and filters as one; other domains have no internal values.
    const internal = (entry: DomainDef['values'][number]) => entry.maxvalue ?? (domain.type === 'SYNONYM' ? String(entry.value) : null);
    const bindings = domain.values.flatMap((entry, i) => [i + 1, String(entry.value), entry.description, internal(entry)]);
    const values = knex.raw(`values ${domain.values.map(() => tuple).join(', ')}`, bindings);
    return knex.with(table, ['valueid', 'value', 'description', 'maxvalue'], values).from({ q0: table });
};
