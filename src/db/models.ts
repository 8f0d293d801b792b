import type { Knex } from 'knex';
import { Model } from 'objection';

import type { BusinessObject, Registry } from '../structures/registry';


export type ObjectModel = typeof Model & { readonly businessObject: BusinessObject };

// One Objection model class per business object, generated from the YAML and bound to this server's knex,
// so two servers in one process (tests) never share a connection.
export const createModels = (registry: Registry, knex: Knex): Map<string, ObjectModel> => {

    const models = new Map<string, ObjectModel>();
    for (const object of registry.objects()) {
        const model = class extends Model {

            static override tableName = object.table;
            static override idColumn = object.uniqueColumn;
            static readonly businessObject = object;
        };

        Object.defineProperty(model, 'name', { value: object.name });
        models.set(object.name, model.bindKnex(knex) as unknown as ObjectModel);
    }

    return models;
};
