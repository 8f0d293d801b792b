import type { AttributeDef, ChildObjectDef, DomainDef, ObjectDef, StructureDef } from './definition';
import { isAttachments } from './definition';
import { withoutPrototypes } from './null-prototype';


// A row of a table, keyed by column: what the drivers answer and what records are rendered from.
export type Row = Record<string, unknown>;


export interface Attribute extends AttributeDef {
    readonly name: string;
}

export interface BusinessObject {
    readonly name: string;
    readonly table: string;
    readonly uniqueColumn: string;
    readonly primaryKey: readonly string[];
    /**
     * The columns that name one row in its table: the primary key, and for a child first its join columns, so
     * that a child's key (a task number) names the row of one parent only. Every statement on a stored row
     * (update, delete, rowstamp check, autokey scope) and the unique index are built from it.
     */
    readonly identity: readonly string[];
    readonly attributes: ReadonlyMap<string, Attribute>;
    readonly columns: readonly Attribute[];
    /** Database indexes over several attributes (`indexes:` in the YAML). */
    readonly indexes: readonly (readonly string[])[];
    readonly children: ReadonlyMap<string, Child>;
    readonly attachments: boolean;
    /** The YAML's `doclinks: { attachments: true, maxSize }`: the largest document of one record, if it says. */
    readonly attachmentMaxSize?: number;
    readonly path: string;
}

export interface Child {
    readonly name: string;
    readonly object: BusinessObject;
    readonly join: Readonly<Record<string, string>>;
}

export interface Structure {
    readonly name: string;
    readonly id: string;
    readonly file: string;
    readonly def: StructureDef;
    readonly root: BusinessObject;
}

const buildObject = (def: ObjectDef, path: string, parentJoin: readonly string[] = []): BusinessObject => {

    const attributes = new Map<string, Attribute>(Object.entries(def.attributes).map(([name, attr]) => [name, { ...attr, name }]));
    const children = new Map<string, Child>();
    let attachments = false;
    let attachmentMaxSize: number | undefined;
    for (const [name, child] of Object.entries(def.children ?? {})) {
        if (isAttachments(child)) {
            attachments = true;
            attachmentMaxSize = child.maxSize;
            continue;
        }

        const join = (child as ChildObjectDef).join;
        children.set(name, { name, object: buildObject(child, `${path}.${name}`, Object.values(join)), join });
    }

    return {
        name: def.object,
        table: def.table ?? def.object.toLowerCase(),
        uniqueColumn: def.uniqueColumn,
        primaryKey: def.primaryKey,
        identity: [...new Set([...parentJoin, ...def.primaryKey])],
        attributes,
        columns: [...attributes.values()].filter((attr) => attr.persistent),
        indexes: def.indexes,
        children,
        attachments,
        ...attachmentMaxSize === undefined ? {} : { attachmentMaxSize },
        path
    };
};

// Every structure is built here, so its definition's maps (savedQueries, relations, lookups, statuses, the
// attributes and children of its objects, a saved query's params, a join) are objects without a prototype from
// here on: any consumer that indexes one with a name from a request finds the name or nothing (issue 34).
export const buildStructure = (yaml: StructureDef, file: string): Structure => {

    const def = withoutPrototypes(yaml);
    return { name: def.name, id: def.name.toLowerCase(), file, def, root: buildObject(def, def.name) };
};

export const eachObject = function* (object: BusinessObject): Generator<BusinessObject> {

    yield object;
    for (const child of object.children.values()) {
        yield* eachObject(child.object);
    }
};

// The in-memory catalog of object structures and domains, built once at start.
export class Registry {

    readonly #structures = new Map<string, Structure>();
    readonly #domains: ReadonlyMap<string, DomainDef>;
    readonly #byObject = new Map<string, Structure>();

    constructor(structures: readonly Structure[], domains: ReadonlyMap<string, DomainDef>) {

        for (const structure of structures) {
            this.#structures.set(structure.name.toUpperCase(), structure);
        }

        // Looked up per request (select plans), so computed once; the first structure by name wins.
        for (const structure of this.list()) {
            if (!this.#byObject.has(structure.root.name)) {
                this.#byObject.set(structure.root.name, structure);
            }
        }

        this.#domains = new Map([...domains].map(([name, domain]) => [name, withoutPrototypes(domain)]));
    }

    // OS names in URLs are case-insensitive.
    get(name: string): Structure | undefined {

        return this.#structures.get(name.toUpperCase());
    }

    list(): Structure[] {

        return [...this.#structures.values()].sort((a, b) => a.name.localeCompare(b.name));
    }

    domain(name: string): DomainDef | undefined {

        return this.#domains.get(name);
    }

    domains(): ReadonlyMap<string, DomainDef> {

        return this.#domains;
    }

    byObject(objectName: string): Structure | undefined {

        return this.#byObject.get(objectName);
    }

    // Every table the structures need, each once (children included), in creation order.
    objects(): BusinessObject[] {

        const seen = new Map<string, BusinessObject>();
        for (const structure of this.list()) {
            for (const object of eachObject(structure.root)) {
                seen.set(object.table, seen.get(object.table) ?? object);
            }
        }

        return [...seen.values()];
    }
}
