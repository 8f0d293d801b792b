import type * as Hapi from '@hapi/hapi';
import type { Knex } from 'knex';
import { Model, type RelationMapping, type RelationMappings } from 'objection';

import type { BusinessObject, Registry } from '../structures/registry';
import type { Db } from './db';


export type ObjectModel = typeof Model & { readonly businessObject: BusinessObject };

// The name a YAML relation takes among the model's relations: its own, unless an attribute or a child of the
// object has it (WORKORDER's `location` relation beside its `location` column), then `rel_` before it, after
// Maximo's `rel.` marker. Objection keeps a fetched relation in the property of its name, which would hide the
// column's value, and refuses a relation named like one of its join columns.
export const relationName = (object: BusinessObject, name: string): string => {

    return object.attributes.has(name) || object.children.has(name) ? `rel_${name}` : name;
};

const columnsOf = (table: string, names: readonly string[]) => names.map((name) => `${table}.${name}`);

// A mapping per child (HasMany over the child's join) and, for the root object of a structure, per relation of
// that structure (BelongsToOne for `cardinality: one`, HasMany for `many`, over the relation's join).
const relationsOf = (object: BusinessObject, registry: Registry, models: ReadonlyMap<string, ObjectModel>): RelationMappings => {

    const mappings: Record<string, RelationMapping<Model>> = {};
    for (const child of object.children.values()) {
        mappings[child.name] = {
            relation: Model.HasManyRelation,
            modelClass: models.get(child.object.name)!,
            join: { from: columnsOf(object.table, Object.keys(child.join)), to: columnsOf(child.object.table, Object.values(child.join)) }
        };
    }

    const structure = registry.byObject(object.name);
    if (structure?.root.table !== object.table) {
        return mappings;
    }

    for (const [name, relation] of Object.entries(structure.def.relations)) {
        const target = registry.get(relation.structure)!.root;
        mappings[relationName(object, name)] = {
            relation: relation.cardinality === 'many' ? Model.HasManyRelation : Model.BelongsToOneRelation,
            modelClass: models.get(target.name)!,
            join: { from: columnsOf(object.table, Object.keys(relation.join)), to: columnsOf(target.table, Object.values(relation.join)) }
        };
    }

    return mappings;
};

// One Objection model class per business object, generated from the YAML and bound to this server's knex,
// so two servers in one process (tests) never share a connection. `Model.query(trx)` runs it in a knex
// transaction instead. Raw data access: nothing here checks rights, owner rules or values, or stamps rows.
export const createModels = (registry: Registry, knex: Knex): Map<string, ObjectModel> => {

    // Made unbound first, so that every relation finds its model class; binding then binds the related classes
    // too (once per knex: a relation's class is the bound model of the map).
    const unbound = new Map<string, ObjectModel>();
    for (const object of registry.objects()) {
        let mappings: RelationMappings | undefined;
        const model = class extends Model {

            static override tableName = object.table;
            static override idColumn = object.uniqueColumn;
            static readonly businessObject = object;

            static override get relationMappings(): RelationMappings {

                mappings ??= relationsOf(object, registry, unbound);
                return mappings;
            }
        };

        Object.defineProperty(model, 'name', { value: object.name });
        unbound.set(object.name, model as unknown as ObjectModel);
    }

    return new Map([...unbound].map(([name, model]) => [name, model.bindKnex(knex) as unknown as ObjectModel]));
};

// The models of a running server by business-object name (`WORKORDER`, `WOACTIVITY`): the plugin author's data API.
export const modelsOf = (server: Hapi.Server): ReadonlyMap<string, ObjectModel> => server.app.osprey.models;

const bound = new WeakMap<Db, ReadonlyMap<string, ObjectModel>>();

// The models bound to where a Db runs: a transaction's Db (src/db/transaction.ts) gets the models bound to its
// connection, so their queries, the relation queries of withGraphFetched and $relatedQuery included, see the
// transaction's uncommitted rows and are undone with it; the pool's Db gets the models as they are. Made once
// per Db.
export const boundModels = (models: ReadonlyMap<string, ObjectModel>, db: Db): ReadonlyMap<string, ObjectModel> => {

    if (db.connection === undefined) {
        return models;
    }

    let map = bound.get(db);
    if (!map) {
        // The Db's knex runs on its connection, and refuses once its transaction ended (db.ts).
        map = new Map([...models].map(([name, model]) => [name, model.bindKnex(db.knex) as unknown as ObjectModel]));
        bound.set(db, map);
    }

    return map;
};
