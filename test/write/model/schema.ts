import * as Fs from 'node:fs';
import * as Path from 'node:path';

import * as Yaml from 'yaml';


// The fixture structures (test/fixtures/model) as the reference model reads them: straight from the YAML, not
// through the server's registry, so that the model does not inherit the server's reading of the files.

export type AttrType = 'upper' | 'aln' | 'integer' | 'bigint' | 'decimal' | 'yorn' | 'datetime';

export interface MAttr {
    readonly name: string;
    readonly type: AttrType;
    readonly length?: number;
    readonly scale?: number;
    readonly required: boolean;
    readonly default?: string | number | boolean;
    readonly generated: boolean;
    readonly readonly: boolean;
    /** false: accepted in writes (a status change's memo), never stored */
    readonly persistent: boolean;
    /** A number given when a create leaves the attribute out. */
    readonly autokey?: { prefix: string; start: number };
}

export interface MObject {
    readonly name: string;
    readonly table: string;
    readonly unique: string;
    readonly key: readonly string[];
    readonly attrs: ReadonlyMap<string, MAttr>;
    readonly children: ReadonlyMap<string, MChild>;
}

export interface MChild {
    readonly name: string;
    readonly object: MObject;
    /** parent attribute → child attribute */
    readonly join: Readonly<Record<string, string>>;
}

export interface MRelation {
    readonly name: string;
    readonly target: string;
    readonly join: Readonly<Record<string, string>>;
    readonly onDelete: 'restrict' | 'cascade' | 'ignore';
}

export interface MStructure {
    /** lower case, as in URLs */
    readonly id: string;
    readonly root: MObject;
    readonly relations: readonly MRelation[];
    /** status → the statuses that may follow it */
    readonly statuses?: Readonly<Record<string, readonly string[]>>;
    readonly statusAttribute: string;
    /** the child that records each status change */
    readonly statusHistory?: string;
}

export const modelFixtures = Path.join(__dirname, '..', '..', 'fixtures', 'model');

const objectOf = (def: any): MObject => {

    const attrs = new Map<string, MAttr>(Object.entries(def.attributes as Record<string, any>).map(([name, attr]) => [name, {
        name,
        type: attr.type,
        length: attr.length,
        scale: attr.scale,
        required: attr.required === true,
        default: attr.default,
        generated: attr.generated === true,
        readonly: attr.readonly === true,
        persistent: attr.persistent !== false,
        autokey: attr.autokey === true ? { prefix: '', start: 1 } : attr.autokey ? { prefix: attr.autokey.prefix ?? '', start: attr.autokey.start ?? 1000 } : undefined
    }]));
    const children = new Map<string, MChild>(Object.entries((def.children ?? {}) as Record<string, any>).map(([name, child]) => [name, { name, object: objectOf(child), join: child.join }]));
    return { name: def.object, table: def.table ?? String(def.object).toLowerCase(), unique: def.uniqueColumn, key: def.primaryKey, attrs, children };
};

export const loadModelStructures = (dir = modelFixtures): Map<string, MStructure> => {

    const structures = new Map<string, MStructure>();
    for (const file of Fs.readdirSync(dir).filter((name) => name.endsWith('.yaml')).sort()) {
        const def = Yaml.parse(Fs.readFileSync(Path.join(dir, file), 'utf8'));
        const relations = Object.entries((def.relations ?? {}) as Record<string, any>).map(([name, relation]) => ({
            name,
            target: String(relation.structure).toLowerCase(),
            join: relation.join,
            onDelete: relation.onDelete ?? (relation.cardinality === 'many' ? 'restrict' : 'ignore')
        }));
        structures.set(String(def.name).toLowerCase(), {
            id: String(def.name).toLowerCase(),
            root: objectOf(def),
            relations,
            statuses: def.statuses,
            statusAttribute: def.statusAttribute ?? 'status',
            statusHistory: def.statusHistory
        });
    }

    return structures;
};

// Every object of a structure, parents before children.
export const objectsOf = function* (object: MObject): Generator<MObject> {

    yield object;
    for (const child of object.children.values()) {
        yield* objectsOf(child.object);
    }
};

// The business columns of a table: every stored attribute but the generated unique id.
export const columnsOf = (object: MObject): string[] => [...object.attrs.values()].filter((attr) => attr.persistent && attr.name !== object.unique).map((attr) => attr.name);
