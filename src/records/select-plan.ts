import type { SelectItem } from '../query/ast';
import { QueryError } from '../query/query-error';
import type { Attribute, BusinessObject, Child } from '../structures/registry';


// What a record is rendered with: the attributes (under their alias) and the child collections to embed,
// each with its own plan. Built from a parsed oslc.select / properties, or "everything" when there is none.

export interface SelectPlan {
    readonly object: BusinessObject;
    /** Every attribute and the child collection links: no select, or `*`. */
    readonly all: boolean;
    readonly attributes: readonly { readonly attr: Attribute; readonly key: string }[];
    readonly children: readonly { readonly child: Child; readonly key: string; readonly plan: SelectPlan }[];
}

export interface SelectSettings {
    readonly parameter: string;
    /** Secret attributes (an API key's value) are only rendered where their owner asks for them. */
    readonly secrets?: boolean;
}

// Names the server always renders, or computes without a column.
const alwaysThere = new Set(['href', '_rowstamp', 'localref']);

const visible = (attr: Attribute, settings: SelectSettings) => attr.persistent && (!attr.secret || settings.secrets === true);

export const planSelect = (object: BusinessObject, items: readonly SelectItem[] | undefined, settings: SelectSettings): SelectPlan => {

    const everything = () => object.columns.filter((attr) => !attr.secret).map((attr) => ({ attr, key: attr.name }));
    if (!items) {
        return { object, all: true, attributes: everything(), children: [] };
    }

    const attributes = new Map<string, { attr: Attribute; key: string }>();
    const children: SelectPlan['children'][number][] = [];
    let all = false;
    for (const item of items) {
        if (item.kind === 'star') {
            all = true;
            everything().forEach((entry) => attributes.set(entry.key, entry));
            continue;
        }

        const [name, ...rest] = item.path;
        if (item.kind === 'attr' && !rest.length && alwaysThere.has(name!)) {
            continue;
        }

        const child = !rest.length && item.kind === 'nested' ? object.children.get(name!) : undefined;
        if (child && item.kind === 'nested') {
            children.push({ child, key: item.alias ?? name!, plan: planSelect(child.object, item.select, settings) });
            continue;
        }

        const attr = item.kind === 'attr' && !rest.length ? object.attributes.get(name!) : undefined;
        if (!attr || (attr.secret && !settings.secrets)) {
            throw new QueryError(settings.parameter, item.position, `${item.path.join('.')} is not an attribute or child object of ${object.name}.`);
        }

        if (visible(attr, settings)) {
            attributes.set(item.alias ?? attr.name, { attr, key: item.alias ?? attr.name });
        }
    }

    return { object, all, attributes: [...attributes.values()], children };
};
