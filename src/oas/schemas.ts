import type { DomainDef } from '../structures/definition';
import type { Attribute, BusinessObject, Structure } from '../structures/registry';
import { typeTable } from '../structures/types';


// The schemas of one structure in an OpenAPI 3.1 document (JSON Schema 2020-12): a record as it is read, the body
// a write sends, a collection page; each child object under its own name. Names: `{os}`, `{os}.{child}`, …, so
// that a $ref names the object's place in its structure.

export type Schema = Record<string, unknown>;

export const schemaName = (structure: Structure, path: readonly string[] = []): string => [structure.id, ...path].join('.');

export const ref = (name: string): Schema => ({ $ref: `#/components/schemas/${name}` });

// An attribute as JSON Schema: its JSON type (null when it has no value: records drop nulls unless _dropnulls=0),
// length, format, domain values, and whether a write may send it.
export const attributeSchema = (attr: Attribute, domains: ReadonlyMap<string, DomainDef>): Schema => {

    const entry = typeTable[attr.type];
    const schema: Schema = { type: [entry.jsonType, 'null'], title: attr.title ?? attr.name, 'x-maximo-type': attr.type.toUpperCase() };
    if (attr.description) {
        schema.description = attr.description;
    }

    if (entry.family === 'string') {
        schema.maxLength = attr.length ?? entry.defaultLength;
    }

    // A datetime is answered and read as ISO 8601 date-time. A date is answered as the midnight UTC of its day
    // (`2025-03-04T00:00:00+00:00`, as Maximo answers one with an offset) and read from `2025-03-04` too: no JSON
    // Schema format holds both, so a date has none (its Maximo type says DATE).
    if (entry.family === 'datetime') {
        schema.format = 'date-time';
    }

    const domain = attr.domain === undefined ? undefined : domains.get(attr.domain);
    if (domain) {
        schema.enum = [...domain.values.map((value) => value.value), null];
        schema['x-maximo-domain'] = attr.domain;
    }

    if (attr.generated || attr.readonly) {
        schema.readOnly = true;
    }

    // A secret is written and never answered.
    if (attr.secret) {
        schema.writeOnly = true;
    }

    if (attr.default !== undefined) {
        schema.default = attr.default;
    }

    return schema;
};

const text = { type: 'string' };
const uri = { type: 'string', format: 'uri' };

// A record's documents as inlinedoc=1 reads them and a write sends them (src/attachments/inline.ts).
const documents: Schema = {
    type: 'array',
    description: 'The record\'s attached documents: a link ({href}) unless inlinedoc=1 inlines them; a write may send new ones with documentdata (base64).',
    items: {
        type: 'object',
        properties: {
            href: uri, doclinksid: { type: 'integer' }, document: text, description: text, doctype: text, urltype: { type: 'string', enum: ['FILE', 'URL'] },
            urlname: text, contenttype: text, attachmentsize: { type: 'integer' }, documentdata: { type: 'string', contentEncoding: 'base64' }, describedBy: { type: 'object' }
        }
    }
};

// One business object of the structure and its children, each a schema of its own.
const objectSchemas = (structure: Structure, object: BusinessObject, path: readonly string[], domains: ReadonlyMap<string, DomainDef>, into: Record<string, Schema>): void => {

    const properties: Schema = { href: { ...uri, readOnly: true, description: 'The record\'s address (its id is the last segment)' }, _rowstamp: { ...text, readOnly: true, description: 'The row\'s version: send it back on a write to have it checked' } };
    if (path.length) {
        properties.localref = { ...uri, readOnly: true };
    }

    for (const attr of object.attributes.values()) {
        properties[attr.name] = attributeSchema(attr, domains);
        if (attr.domain) {
            properties[`${attr.name}_description`] = { ...text, readOnly: true, description: `The description of ${attr.name}'s domain value` };
        }
    }

    for (const child of object.children.values()) {
        const childPath = [...path, child.name];
        properties[child.name] = { type: 'array', items: ref(schemaName(structure, childPath)), description: `The ${child.object.name} rows of the record (a child collection)` };
        // A record links its child collections; a child row links none (src/read/serialize/serialize.ts).
        if (!path.length) {
            properties[`${child.name}_collectionref`] = { ...uri, readOnly: true };
        }

        objectSchemas(structure, child.object, childPath, domains, into);
    }

    if (object.attachments) {
        properties.doclinks = { oneOf: [{ type: 'object', properties: { href: uri }, readOnly: true }, documents] };
    }

    if (!path.length) {
        for (const [name, relation] of Object.entries(structure.def.relations)) {
            const described = `${relation.description ?? `The related ${relation.structure} records`} (relation ${name}: answered when oslc.select names it, as ${name}.attribute or ${name}{…})`;
            // A relation named as an attribute: the attribute is the key of a record; the relation is selected.
            if (Object.hasOwn(properties, name)) {
                properties[name] = { ...properties[name] as Schema, 'x-osprey-relation': { structure: relation.structure, cardinality: relation.cardinality, description: described } };
                continue;
            }

            const related = { type: 'object', description: `A ${relation.structure} record` };
            properties[name] = {
                ...relation.cardinality === 'many' ? { type: 'array', items: related } : related,
                readOnly: true,
                description: described
            };
        }
    }

    const required = [...object.attributes.values()].filter((attr) => attr.required && !attr.autokey && !attr.generated).map((attr) => attr.name);
    into[schemaName(structure, path)] = {
        type: 'object',
        title: path.length ? `${structure.name} ${path.join('.')} (${object.name})` : `${structure.name} (${object.name})`,
        ...path.length ? {} : { description: structure.def.description ?? structure.def.title ?? structure.name },
        properties,
        'x-primary-key': [...object.primaryKey]
    };
    // A create must send the required attributes (a read answers what oslc.select names, an update what it
    // changes), so they are required on the create's schema only.
    into[`${schemaName(structure, path)}.create`] = { allOf: [ref(schemaName(structure, path)), ...required.length ? [{ required }] : []] };
};

// The schemas of a structure: every object, and its collection page.
export const structureSchemas = (structure: Structure, domains: ReadonlyMap<string, DomainDef>): Record<string, Schema> => {

    const into: Record<string, Schema> = {};
    objectSchemas(structure, structure.root, [], domains, into);
    into[`${structure.id}.collection`] = {
        type: 'object',
        title: `A page of ${structure.name} records`,
        properties: {
            href: uri,
            member: { type: 'array', items: ref(schemaName(structure)) },
            responseInfo: {
                type: 'object',
                properties: {
                    href: uri, pagenum: { type: 'integer' }, totalCount: { type: 'integer' }, totalPages: { type: 'integer' },
                    nextPage: { type: 'object', properties: { href: uri } }, previousPage: { type: 'object', properties: { href: uri } }
                }
            }
        }
    };
    return into;
};
