import type { Aggregate, SelectItem } from '../parse/ast';
import { QueryError } from '../parse/query-error';
import type { Attribute, BusinessObject, Registry, Structure } from '../../structures/registry';
import { typeTable } from '../../structures/types';
import { computedOf, renderedAttributes, type Computed } from '../../structures/computed';
import { reachRelation, type OwnerFilter, type Reach } from './reach';
import { beyond, type CostLimits } from './cost';
import { oncePer } from '../../db/remember';
import { declaredAttribute, namedAttribute } from './attribute-names';
import { documentField, documentFieldNames } from '../../attachments/inline';


// What a record is rendered with: attributes (under their alias), embedded child collections, related records
// (a 1:1 relation renders as a nested object, a 1:n one as an array) and aggregates over children or related
// records. Built from a parsed oslc.select / properties, or "everything" when there is none.

// Rows reached from a row: a child collection or a relation. `join` maps the row's attributes to theirs.
export interface Link {
    readonly name: string;
    readonly object: BusinessObject;
    readonly join: Readonly<Record<string, string>>;
    readonly many: boolean;
    /** The structure of a relation's target (its own relations can be followed); undefined for children. */
    readonly structure?: Structure;
    readonly child: boolean;
    /** A relation's target keeps its records to their owners: the reader's related rows are theirs only. */
    readonly owner?: OwnerFilter;
}

export interface AggregatePlan {
    /**
     * Where the value sits in a rendered record: nested under the link as IBM's guide shows it
     * (`openwo._dbcount` → `{"openwo": {"_dbcount": 17}}`, `openwo.actlabhrs._dbsum` →
     * `{"openwo": {"actlabhrs": {"_dbsum": 2.5}}}`), or at the top under its alias.
     */
    readonly path: readonly string[];
    readonly link: Link;
    readonly fn: Aggregate;
    readonly attr?: Attribute;
    /** The column of the term in the select text. */
    readonly position: number;
}

export interface SelectPlan {
    readonly object: BusinessObject;
    /** Every attribute and the child collection links: no select, or `*`. */
    readonly all: boolean;
    /** `computed`: the attribute is worked out from the row when it renders (src/structures/computed.ts). */
    readonly attributes: readonly { readonly attr: Attribute; readonly key: string; readonly computed?: Computed }[];
    readonly links: readonly { readonly link: Link; readonly key: string; readonly plan: SelectPlan }[];
    readonly aggregates: readonly AggregatePlan[];
    /** `allowedactions` was named: each record lists the actions its reader may run on it now. */
    readonly allowedActions?: boolean;
    /** `_weblink` was named: the record's link into the UI, under `key`, is `prefix` followed by its unique id. */
    readonly weblink?: { readonly key: string; readonly prefix: string };
    /** `doclinks{…}` was named (a root object with attachments): the record's documents as an array under `key`,
     * with these fields (undefined: every one; src/attachments/inline.ts). */
    readonly documents?: { readonly key: string; readonly fields?: readonly string[] };
}

export interface SelectSettings {
    readonly parameter: string;
    readonly registry?: Registry;
    /** The structure whose relations the object's names may follow (root objects only). */
    readonly structure?: Structure;
    /** The select is of a direct read of the structure's own records, whose object reveals its secret attributes
     * (an API key's value) to their owner: names at its top may name them (./attribute-names.ts). */
    readonly secrets?: boolean;
    /** The UI that `_weblink` points into, `{uiBase}/{contextRoot}/ui/`; undefined where none is configured. */
    readonly ui?: string;
    /** Who reads: a relation is followed with their read right and owner rule on its target (./reach.ts). */
    readonly reach?: Reach;
    /** The cost limits the select is held to (./cost.ts); none for the server's own selects. */
    readonly limits?: CostLimits;
    /** Checked before the plugins have registered (a YAML report's columns at load): an attribute that is not
     * stored passes as one a plugin may compute; the check once they have (../../reports/computed-columns.ts) says. */
    readonly computedLater?: boolean;
    /** inlinedoc=1: documents render with their bytes, so `doclinks{documentdata}` is something the answer carries. */
    readonly inlineDocuments?: boolean;
    /** Where a nested select sits: the links that lead to it, and what the whole select has loaded so far. */
    readonly level?: { readonly path: readonly string[]; readonly hops: number; readonly loads: { count: number } };
}

// Names the server always renders, or computes without a column.
const alwaysThere = new Set(['href', '_rowstamp', 'localref']);

const linkOf = (object: BusinessObject, name: string, settings: SelectSettings): Link | undefined => {

    const child = object.children.get(name);
    if (child) {
        return { name, object: child.object, join: child.join, many: true, child: true };
    }

    const reached = settings.structure?.root === object && settings.registry ? reachRelation(settings.registry, settings.structure, name, settings.reach) : undefined;
    if (!reached) {
        return undefined;
    }

    const { relation, target, owner } = reached;
    return { name, object: target.root, join: relation.join, many: relation.cardinality === 'many', structure: target, child: false, ...owner ? { owner } : {} };
};

const fail = (settings: SelectSettings, item: Pick<SelectItem, 'position'>, message: string): never => {

    throw new QueryError(settings.parameter, item.position, message);
};

// `_weblink`: the link of a record into the Maximo UI (CONTRACT §2), `{ui}?event=loadapp&value={app}&uniqueid={id}`,
// for records of a structure that names its application, where a UI is configured to link to.
const weblinkOf = (object: BusinessObject, item: SelectItem, settings: SelectSettings): string => {

    const structure = settings.structure?.root === object ? settings.structure : undefined;
    if (!structure) {
        return fail(settings, item, `_weblink links a record of an object structure into the UI; ${object.name} rows have no link of their own`);
    }

    if (!structure.def.app) {
        return fail(settings, item, `_weblink links a record into its application in the UI, and ${structure.name} names no application (app: in its YAML)`);
    }

    if (!settings.ui) {
        return fail(settings, item, '_weblink links a record into the Maximo UI, and this server serves no UI and is configured with none to link to (OSPREY_UI_BASE)');
    }

    return `${settings.ui}?event=loadapp&value=${encodeURIComponent(structure.def.app.toLowerCase())}&uniqueid=`;
};

// The fields `doclinks{…}` names: `*` is every one (undefined).
const documentFields = (settings: SelectSettings, items: readonly SelectItem[]): readonly string[] | undefined => {

    const named: string[] = [];
    for (const item of items) {
        if (item.kind === 'star') {
            return undefined;
        }

        // href is always there; documentdata is there with inlinedoc=1, and without it would be dropped unsaid.
        if (item.kind === 'attr' && item.path.length === 1 && !item.alias && item.path[0] === 'documentdata' && !settings.inlineDocuments) {
            fail(settings, item, 'documentdata, a document\'s bytes in base64, comes with inlinedoc=1: add inlinedoc=1 to the request, or leave documentdata out of doclinks{…}');
        }

        if (item.kind === 'attr' && item.path.length === 1 && ['href', 'documentdata'].includes(item.path[0]!)) {
            continue;
        }

        const field = item.kind === 'attr' && item.path.length === 1 && !item.alias ? documentField(item.path[0]!) : undefined;
        if (!field) {
            fail(settings, item, `doclinks{…} names fields of a document, and ${item.kind === 'attr' ? item.path.join('.') : 'this'} is not one: name * or some of href, documentdata (with inlinedoc=1), ${documentFieldNames.join(', ')}`);
        }

        if (!named.includes(field!)) {
            named.push(field!);
        }
    }

    return named;
};

const numericFamilies = new Set(['integer', 'decimal']);

// Keys every record carries, which no selected item may take.
const reservedKeys = new Set(['href', '_rowstamp', 'localref']);

// `rel.` is Maximo's marker for a relationship name; it is optional here.
const withoutRel = (path: readonly string[]) => (path[0] === 'rel' && path.length > 1 ? path.slice(1) : path);

// The plan of no select, the same for every read of an object: made once (a record read without a select
// made it again on every request).
export const everythingPlan = oncePer((object: BusinessObject): SelectPlan => {

    const attributes = renderedAttributes(object).map((attr) => Object.freeze({ attr, key: attr.name, computed: computedOf(object, attr) }));
    return Object.freeze({ object, all: true, attributes: Object.freeze(attributes), links: Object.freeze([]), aggregates: Object.freeze([]) });
});

export const planSelect = (object: BusinessObject, items: readonly SelectItem[] | undefined, settings: SelectSettings): SelectPlan => {

    const everything = () => everythingPlan(object).attributes;
    if (!items) {
        return everythingPlan(object);
    }

    const attributes = new Map<string, SelectPlan['attributes'][number]>();
    const links: { link: Link; key: string; plan: SelectPlan }[] = [];
    const aggregates: AggregatePlan[] = [];
    // 1:1 related attributes (`asset.description`, `asset.status`) gather into one nested select per relation.
    const nested = new Map<string, { link: Link; items: SelectItem[]; position: number }>();
    const level = settings.level ?? { path: [], hops: 0, loads: { count: 0 } };
    // Each link and aggregate is a statement per level of the answer: the select's fan-out (./cost.ts).
    const load = (item: Pick<SelectItem, 'position'>) => {

        if (settings.limits && ++level.loads.count > settings.limits.selectCollections) {
            fail(settings, item, `the select loads more than ${settings.limits.selectCollections} child collections, related records and aggregates; ${beyond(settings.limits, 'selectCollections')}`);
        }
    };

    // Only the top of a direct read's select may name a secret attribute: never a nested select, a related or child
    // row, an aggregate (./attribute-names.ts).
    const reveal = settings.secrets === true && !settings.level && settings.structure?.root === object;
    const at = (item: Pick<SelectItem, 'position'>) => ({ parameter: settings.parameter, position: item.position });
    let all = false;
    let allowedActions = false;
    let weblink: SelectPlan['weblink'];
    let documents: SelectPlan['documents'];
    // Every key of the answer has one owner: an alias, a link, `_weblink` or an aggregate may not land on
    // another's key (it would overwrite it, or nest into a value), nor on a key every record carries.
    const owners = new Map<string, { owner: string; text: string }>();
    const claim = (key: string, owner: string, item: Pick<SelectItem, 'position'>, text = key) => {

        // A key set on a record: "__proto__" would replace the record's prototype, and the value would be lost.
        if (key === '__proto__') {
            fail(settings, item, '"__proto__" cannot be a key of a record; give it another alias');
        }

        const earlier = owners.get(key);
        if (!reservedKeys.has(key) && (earlier === undefined || earlier.owner === owner)) {
            owners.set(key, { owner, text });
            return;
        }

        const nesting = `aggregates of ${key}`;
        if (earlier && [owner, earlier.owner].includes(nesting)) {
            const [aggregate, other] = owner === nesting ? [text, earlier.owner] : [earlier.text, owner];
            const what = other.startsWith('the rows') ? 'its related rows' : other.startsWith('attribute') ? 'its value' : other;
            fail(settings, item, `${aggregate} would nest in "${key}", which the select also names for ${what}; give the aggregate an alias (${aggregate}--name)`);
        }

        fail(settings, item, `"${key}" ${reservedKeys.has(key) ? 'is a key every record carries' : 'is named twice in the select'}; give one of them another alias`);
    };

    for (const item of items) {
        if (item.kind === 'star') {
            all = true;
            everything().forEach((entry) => {

                claim(entry.key, `attribute ${entry.attr.name}`, item);
                attributes.set(entry.key, entry);
            });
            continue;
        }

        const path = withoutRel(item.path);
        const [name, ...rest] = path;
        if (name === 'doclinks' && !rest.length && item.kind !== 'aggregate' && !declaredAttribute(object, name) && !linkOf(object, name, settings)) {
            if (!object.attachments) {
                fail(settings, item, `doclinks are a record's attachments, and ${object.name} records of this structure have none (no \`doclinks: { attachments: true }\` in its YAML)`);
            }

            const key = item.alias ?? name;
            claim(key, 'the documents', item);
            load(item);
            documents = { key, fields: item.kind === 'nested' ? documentFields(settings, item.select) : undefined };
            continue;
        }

        if (item.kind === 'aggregate') {
            const link = linkOf(object, name!, settings) ?? fail(settings, item, `${name} is not a child object or relationship of ${object.name}`);
            const attr = rest.length ? namedAttribute(link.object, rest[0]!, at(item)) : undefined;
            if (rest.length > 1 || (rest.length && !attr?.persistent) || (item.aggregate !== 'count' && !attr)) {
                fail(settings, item, `${item.path.join('.')}._db${item.aggregate} needs an attribute of ${link.object.name} (or _dbcount alone)`);
            }

            // Sums, averages and extremes are of numbers: other types answer nonsense (SQLite) or fail (PostgreSQL).
            if (attr && item.aggregate !== 'count' && !numericFamilies.has(typeTable[attr.type].family)) {
                fail(settings, item, `${item.path.join('.')}._db${item.aggregate} needs a number, and ${link.object.name}.${attr.name.toUpperCase()} is of type ${attr.type}`);
            }

            const aggregatePath = item.alias ? [item.alias] : [link.name, ...attr ? [attr.name] : [], `_db${item.aggregate}`];
            claim(aggregatePath[0]!, item.alias ? `aggregate ${item.alias}` : `aggregates of ${aggregatePath[0]}`, item, item.alias ?? `${[name!, ...rest].join('.')}._db${item.aggregate}`);
            load(item);
            aggregates.push({ path: aggregatePath, link, fn: item.aggregate, attr, position: item.position });
            continue;
        }

        if (item.kind === 'attr' && !rest.length && alwaysThere.has(name!)) {
            continue;
        }

        if (item.kind === 'nested' || rest.length) {
            const link = linkOf(object, name!, settings) ?? fail(settings, item, `${name} is not a child object or relationship of ${object.name}`);
            const inner: SelectItem[] = item.kind === 'nested' ? (rest.length ? [{ ...item, path: rest }] : item.select) : [{ ...item, path: rest }];
            const key = item.kind === 'nested' && !rest.length ? item.alias ?? name! : name!;
            claim(key, `the rows of ${link.name}`, item);
            const entry = nested.get(key) ?? { link, items: [], position: item.position };
            entry.items.push(...inner);
            nested.set(key, entry);
            continue;
        }

        const attr = namedAttribute(object, name!, at(item), reveal);
        // A bare child name (`assetmeter`, as IBM's own tests send it) is its collection, whole: `assetmeter{*}`.
        if (item.kind === 'attr' && !attr && object.children.has(name!)) {
            const key = item.alias ?? name!;
            claim(key, `the rows of ${name!}`, item);
            const entry = nested.get(key) ?? { link: linkOf(object, name!, settings)!, items: [], position: item.position };
            entry.items.push({ kind: 'star', position: item.position });
            nested.set(key, entry);
            continue;
        }

        if (!attr && name === 'allowedactions' && settings.structure?.root === object) {
            // Each record lists its actions under allowedactions, as Maximo's do: an alias would be left unused.
            if (item.alias !== undefined) {
                fail(settings, item, `allowedactions takes no alias (--${item.alias}): each record lists its actions under allowedactions`);
            }

            claim('allowedactions', 'allowedactions', item);
            allowedActions = true;
            continue;
        }

        if (!attr && name === '_weblink') {
            claim(item.alias ?? name, '_weblink', item);
            weblink = { key: item.alias ?? name, prefix: weblinkOf(object, item, settings) };
            continue;
        }

        if (!attr) {
            fail(settings, item, `${item.path.join('.')} is not an attribute or child object of ${object.name}`);
        }

        // A transient attribute (a status change's memo) is written, never stored: a record has no value of it.
        const computed = computedOf(object, attr!);
        if (!attr!.persistent && !computed && !settings.computedLater) {
            fail(settings, item, `${object.name}.${attr!.name} is not stored (persistent: false): writes accept it, and a record has no value of it to answer`);
        }

        claim(item.alias ?? attr!.name, `attribute ${attr!.name}`, item);
        attributes.set(item.alias ?? attr!.name, { attr: attr!, key: item.alias ?? attr!.name, computed });
    }

    for (const [key, { link, items: inner, position }] of nested) {
        const path = [...level.path, link.name];
        const hops = level.hops + (link.child ? 0 : 1);
        const { limits } = settings;
        if (limits && path.length > limits.selectDepth) {
            fail(settings, { position }, `${path.join('.')} nests ${path.length} levels of child or related rows; ${beyond(limits, 'selectDepth')}`);
        }

        if (limits && hops > limits.relationHops) {
            fail(settings, { position }, `${path.join('.')} follows ${hops} relationships; ${beyond(limits, 'relationHops')}`);
        }

        load({ position });
        links.push({ link, key, plan: planSelect(link.object, inner, { ...settings, structure: link.structure, level: { path, hops, loads: level.loads } }) });
    }

    return { object, all, attributes: [...attributes.values()], links, aggregates, allowedActions, weblink, ...documents ? { documents } : {} };
};
