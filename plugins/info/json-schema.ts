import type { DomainDef } from '../../src/structures/definition';
import type { BusinessObject, Structure } from '../../src/structures/registry';
import { typeTable } from '../../src/structures/types';


// The JSON Schema of an object structure in Maximo's jsonschemas shape (draft-04 with Maximo's extras); of a
// business object alone (jsonmboschemas) without its children, which belong to structures.
const objectSchema = (object: BusinessObject, domains: ReadonlyMap<string, DomainDef>, children = true): Record<string, unknown> => {

    const properties: Record<string, unknown> = {};
    for (const attr of object.attributes.values()) {
        const entry = typeTable[attr.type];
        const property: Record<string, unknown> = {
            type: entry.jsonType,
            subType: attr.type.toUpperCase(),
            title: attr.title ?? attr.name,
            persistent: attr.persistent,
            searchType: attr.search ? 'WILDCARD' : 'EXACT'
        };
        if (attr.description) {
            property.description = attr.description;
        }

        if (entry.family === 'string' && (attr.length ?? entry.defaultLength)) {
            property.maxLength = attr.length ?? entry.defaultLength;
        }

        if (entry.family === 'date' || entry.family === 'datetime') {
            property.format = entry.family === 'date' ? 'date' : 'date-time';
        }

        if (entry.family === 'decimal') {
            property.scale = attr.scale ?? entry.defaultScale;
        }

        if (attr.domain) {
            property.domain = attr.domain;
            property.enum = domains.get(attr.domain)!.values.map((value) => value.value);
        }

        if (attr.generated || attr.readonly) {
            property.readOnly = true;
        }

        if (attr.default !== undefined) {
            property.default = attr.default;
        }

        properties[attr.name] = property;
    }

    for (const child of children ? object.children.values() : []) {
        properties[child.name] = { type: 'array', items: { ...objectSchema(child.object, domains), cardinality: 'UNDEFINED', objectName: child.object.name } };
    }

    // A structure may declare `doclinks`, but attachments are not served yet: no schema advertises them.
    return {
        type: 'object',
        properties,
        required: [...object.attributes.values()].filter((attr) => attr.required && !attr.autokey).map((attr) => attr.name),
        pk: [...object.primaryKey],
        uniqueid: object.uniqueColumn
    };
};

export const jsonSchema = (structure: Structure, domains: ReadonlyMap<string, DomainDef>, href: string): Record<string, unknown> => ({
    $schema: 'http://json-schema.org/draft-04/schema#',
    resource: structure.name,
    title: structure.def.title ?? structure.name,
    description: structure.def.description ?? '',
    href,
    objectName: structure.root.name,
    ...objectSchema(structure.root, domains)
});

export const mboSchema = (object: BusinessObject, domains: ReadonlyMap<string, DomainDef>, href: string): Record<string, unknown> => ({
    $schema: 'http://json-schema.org/draft-04/schema#',
    resource: object.name,
    title: object.name,
    href,
    objectName: object.name,
    ...objectSchema(object, domains, false)
});
