import type Joi from 'joi';


// The keys a Joi schema allows at a path of a YAML file, read from its description: what a misspelt key is
// compared with. Patterns (attribute names, children) stand for any name; alternatives (a child is an object or
// `attachments: true`) offer the keys of each; a link (`#child`) is the shared schema it names.

interface Described {
    readonly type?: string;
    readonly keys?: Record<string, Described>;
    readonly patterns?: readonly { readonly rule?: Described }[];
    readonly items?: readonly Described[];
    readonly matches?: readonly { readonly schema?: Described; readonly then?: Described; readonly otherwise?: Described }[];
    readonly shared?: readonly (Described & { flags?: { id?: string } })[];
    readonly flags?: { readonly id?: string };
    readonly link?: { readonly ref?: { readonly path?: readonly string[] } };
}

const expand = (description: Described, shared: ReadonlyMap<string, Described>): Described[] => {

    if (description.type === 'link') {
        return expand(shared.get(description.link!.ref!.path![0]!)!, shared);
    }

    if (description.type === 'alternatives') {
        // Each form: tried in turn (schema), or chosen by a condition (then, otherwise).
        return description.matches!.flatMap((match) => [match.schema, match.then, match.otherwise]).filter((item) => item !== undefined).flatMap((item) => expand(item, shared));
    }

    return [description];
};

const step = (description: Described, segment: string): Described[] => {

    const key = description.keys?.[segment];
    if (key) {
        return [key];
    }

    if (description.type === 'array') {
        return [...description.items!];
    }

    return (description.patterns ?? []).map((pattern) => pattern.rule!);
};

export const keysAt = (schema: Joi.Schema, path: readonly (string | number)[]): string[] => {

    const root = schema.describe() as Described;
    const shared = new Map((root.shared ?? []).map((item) => [item.flags!.id!, item]));
    let current = expand(root, shared);
    for (const segment of path) {
        current = current.flatMap((description) => step(description, String(segment))).flatMap((description) => expand(description, shared));
    }

    return [...new Set(current.flatMap((description) => Object.keys(description.keys ?? {})))];
};
