import type { DomainDef } from '../../structures/definition';
import type { Attribute, BusinessObject, Structure } from '../../structures/registry';
import type { SelectPlan } from '../plan/select-plan';
import { typeTable } from '../../structures/types';


type Schema = Record<string, unknown>;

// One attribute in Maximo's jsonschemas shape (draft-04 with Maximo's extras).
const attributeSchema = (attr: Attribute, domains: ReadonlyMap<string, DomainDef>): Schema => {

    const entry = typeTable[attr.type];
    const property: Schema = {
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

    // A datetime is answered and read as ISO 8601 date-time. A date is answered as the midnight UTC of its day
    // (`2025-03-04T00:00:00+00:00`, as Maximo answers one with an offset) and read from `2025-03-04` too: no JSON
    // Schema format holds both, so a date has none (its Maximo type says DATE).
    if (entry.family === 'datetime') {
        property.format = 'date-time';
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

    return property;
};

const required = (attributes: Iterable<Attribute>) => [...attributes].filter((attr) => attr.required && !attr.autokey).map((attr) => attr.name);

// The JSON Schema of an object structure in Maximo's jsonschemas shape (draft-04 with Maximo's extras); of a
// business object alone (jsonmboschemas) without its children, which belong to structures.
const objectSchema = (object: BusinessObject, domains: ReadonlyMap<string, DomainDef>, children = true): Schema => {

    const properties: Schema = {};
    for (const attr of object.attributes.values()) {
        properties[attr.name] = attributeSchema(attr, domains);
    }

    for (const child of children ? object.children.values() : []) {
        properties[child.name] = { type: 'array', items: { ...objectSchema(child.object, domains), cardinality: 'UNDEFINED', objectName: child.object.name } };
    }

    // A structure with attachments: its records' documents, as a write sends them and inlinedoc=1 reads them.
    if (children && object.attachments) {
        properties.doclinks = documentsSchema(true);
    }

    return {
        type: 'object',
        properties,
        required: required(object.attributes.values()),
        pk: [...object.primaryKey],
        uniqueid: object.uniqueColumn
    };
};

// A record's documents (src/attachments/inline.ts): an array of DOCLINKS-named fields; `data`: with documentdata.
const documentsSchema = (data: boolean, named?: readonly string[]): Schema => {

    const string = { type: 'string' };
    const all: Schema = {
        href: { type: 'string', format: 'uri' }, doclinksid: { type: 'integer' }, document: string, description: string, doctype: string,
        urltype: { type: 'string', enum: ['FILE', 'URL'] }, urlname: string, contenttype: string, attachmentsize: { type: 'integer' }, ownertable: string,
        ownerid: { type: 'integer' }, createby: string, createdate: { type: 'string', format: 'date-time' }, changeby: string,
        changedate: { type: 'string', format: 'date-time' }, describedBy: { type: 'object' },
        ...data ? { documentdata: { type: 'string', contentEncoding: 'base64' } } : {}
    };
    const properties = named ? Object.fromEntries(Object.entries(all).filter(([key]) => key === 'href' || key === 'documentdata' || named.includes(key))) : all;
    return { type: 'array', items: { type: 'object', properties, objectName: 'DOCLINKS' } };
};

const header = (structure: Structure, object: BusinessObject, href: string | undefined): Schema => ({
    $schema: 'http://json-schema.org/draft-04/schema#',
    resource: structure.name,
    title: structure.def.title ?? structure.name,
    description: structure.def.description ?? '',
    ...href === undefined ? {} : { href },
    objectName: object.name
});

export const jsonSchema = (structure: Structure, domains: ReadonlyMap<string, DomainDef>, href: string): Schema => ({
    ...header(structure, structure.root, href),
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

// What an answer carries besides the selected attributes: it shapes the schema of a selection as it shapes the
// records (ignorers, internalvalues, ignorecollectionref), and domain values are no records (no href, rowstamp).
export interface AnswerShape {
    readonly domains: ReadonlyMap<string, DomainDef>;
    readonly records: boolean;
    readonly rowstamps: boolean;
    readonly internalValues: boolean;
    readonly collectionRefs: boolean;
    /** inlinedoc=1: documents render inline, with their bytes. */
    readonly inlineDocuments?: boolean;
}

const text = { type: 'string' };

// The schema of the objects a select plan renders (src/read/serialize/serialize.ts), key for key: its attributes under
// their keys, with their `_description` (and `_maxvalue`); child rows and 1:n related records as arrays, a 1:1
// related record as an object; aggregates nested under their link as they render; href and the rest.
const planSchema = (plan: SelectPlan, shape: AnswerShape, child: boolean): Schema => {

    const properties: Schema = {};
    if (shape.records) {
        properties.href = text;
        if (shape.rowstamps) {
            properties._rowstamp = text;
        }

        if (child) {
            properties.localref = text;
        }
    }

    for (const { attr, key } of plan.attributes) {
        properties[key] = attributeSchema(attr, shape.domains);
        if (attr.domain) {
            properties[`${key}_description`] = text;
            if (shape.internalValues && shape.domains.get(attr.domain)?.type === 'SYNONYM') {
                properties[`${key}_maxvalue`] = text;
            }
        }
    }

    if (plan.weblink) {
        properties[plan.weblink.key] = { type: 'string', format: 'uri' };
    }

    if (plan.allowedActions) {
        properties.allowedactions = { type: 'object' };
    }

    if (shape.records && shape.collectionRefs && plan.all) {
        // Child rows link no collections of their own (serialize.ts says why).
        for (const name of child ? [] : plan.object.children.keys()) {
            properties[`${name}_collectionref`] = text;
        }

        if (plan.object.attachments && !shape.inlineDocuments) {
            properties.doclinks = { type: 'object', properties: { href: { type: 'string', format: 'uri' } } };
        }
    }

    if (shape.records && (plan.documents || (plan.all && plan.object.attachments && shape.inlineDocuments))) {
        properties[plan.documents?.key ?? 'doclinks'] = documentsSchema(shape.inlineDocuments === true, plan.documents?.fields);
    }

    for (const { link, key, plan: linked } of plan.links) {
        const schema = { ...planSchema(linked, shape, link.child), objectName: link.object.name };
        properties[key] = link.many ? { type: 'array', items: schema } : schema;
    }

    for (const { path, fn } of plan.aggregates) {
        let target = properties;
        for (const key of path.slice(0, -1)) {
            const nested = (target[key] ??= { type: 'object', properties: {} }) as Schema;
            target = nested.properties as Schema;
        }

        target[path[path.length - 1]!] = { type: fn === 'count' ? 'integer' : 'number' };
    }

    return {
        type: 'object',
        properties,
        required: plan.attributes.filter(({ attr }) => attr.required && !attr.autokey).map(({ key }) => key),
        pk: [...plan.object.primaryKey],
        uniqueid: plan.object.uniqueColumn
    };
};

// The schema of what a select answers (jsonschemas with oslc.select, addschema=1): the structure's header, the
// selected object's keys; `plan` undefined is a collection's members without a select, which carry only href.
export const selectionSchema = (structure: Structure, object: BusinessObject, plan: SelectPlan | undefined, shape: AnswerShape, options: { href?: string; child?: boolean } = {}): Schema => {

    const body = plan ? planSchema(plan, shape, options.child ?? false) : { type: 'object', properties: { href: text }, required: [], pk: [...object.primaryKey], uniqueid: object.uniqueColumn };
    return { ...header(structure, object, options.href), ...body };
};
