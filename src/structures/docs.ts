import * as Yaml from 'yaml';

import { domainFileSchema, structureSchema } from './schema';


// The YAML reference (docs/yaml-reference.md), generated from the Joi schemas so it cannot drift from the loader:
// every mapping a structure file or a domains file can hold gets a section, with each of its keys, its type,
// whether it is required, its default, its description and an example. A mapping met again (a child object's
// attributes are a structure's) refers to its first section.

export interface Description {
    readonly type?: string;
    readonly flags?: { readonly description?: string; readonly presence?: string; readonly default?: unknown; readonly only?: boolean; readonly id?: string };
    readonly keys?: Record<string, Description>;
    readonly patterns?: readonly { readonly rule?: Description }[];
    readonly items?: readonly Description[];
    readonly matches?: readonly { readonly schema?: Description; readonly then?: Description; readonly otherwise?: Description }[];
    readonly shared?: readonly Description[];
    readonly allow?: readonly unknown[];
    readonly examples?: readonly unknown[];
    readonly link?: { readonly ref?: { readonly path?: readonly string[] } };
}

export interface Section {
    readonly path: string;
    readonly description: Description;
    /** The path of the first section with the same keys, if this mapping was met before. */
    readonly sameAs?: string;
    /** A mapping that takes one of several forms: the first key of this one. */
    readonly form?: string;
}

// The forms of alternatives: tried in turn (schema), or chosen by a condition (then, otherwise).
const forms = (item: Description): Description[] => item.matches!.flatMap((match) => [match.schema, match.then, match.otherwise]).filter((form) => form !== undefined);

const flow = (value: unknown) => Yaml.stringify(value, { collectionStyle: 'flow', flowCollectionPadding: false, lineWidth: 0 }).trim();

const typeOf = (item: Description): string => {

    if (item.type === 'alternatives') {
        return [...new Set(forms(item).map(typeOf))].join(' or ');
    }

    if (item.flags?.only) {
        return `one of ${item.allow!.map((value) => `\`${String(value)}\``).join(', ')}`;
    }

    return item.type === 'object' ? 'mapping' : item.type === 'array' ? 'list' : item.type!;
};

const cell = (text: string) => text.replace(/\|/g, '\\|').replace(/\n/g, ' ');

const row = (name: string, item: Description) => {

    const required = item.flags?.presence === 'required' ? 'yes' : '';
    // Joi describes `.default()` on an object as {special: 'deep'}: the defaults of its keys.
    const given = item.flags?.default;
    const fallback = given === undefined ? '' : JSON.stringify(given) === '{"special":"deep"}' ? 'each key\'s' : `\`${cell(flow(given))}\``;
    // Every key has a description and an example (test/structures/reference.test.ts).
    const example = `\`${name}: ${cell(flow(item.examples![0]))}\``;
    return `| \`${name}\` | ${cell(typeOf(item))} | ${required} | ${fallback} | ${cell(item.flags!.description!)} | ${example} |`;
};

// Every mapping of a schema, depth first, by its path in a file (NAME: any name; []: any item of a list).
export const sections = (root: Description): Section[] => {

    const shared = new Map((root.shared ?? []).map((item) => [item.flags!.id!, item]));
    const found: Section[] = [];
    const seen = new Map<string, string>();
    const visit = (item: Description, path: string, linked: ReadonlyMap<string, string>, firstKey?: string): void => {

        if (item.type === 'link') {
            const id = item.link!.ref!.path![0]!;
            const first = linked.get(id);
            if (first !== undefined) {
                return void found.push({ path, description: item, sameAs: first });
            }

            return visit(shared.get(id)!, path, new Map([...linked, [id, path]]));
        }

        if (item.type === 'alternatives') {
            const mappings = forms(item).filter((one) => one.keys).length;
            return forms(item).forEach((one) => visit(one, path, linked, mappings > 1 ? Object.keys(one.keys!)[0] : undefined));
        }

        if (item.type === 'array') {
            return item.items!.forEach((entry) => visit(entry, `${path}[]`, linked));
        }

        for (const pattern of item.patterns ?? []) {
            visit(pattern.rule!, `${path}.NAME`, linked);
        }

        if (!item.keys) {
            return;
        }

        const shape = JSON.stringify(item.keys);
        const first = seen.get(shape);
        if (first) {
            return void found.push({ path, description: item, sameAs: first });
        }

        seen.set(shape, path);
        found.push({ path, description: item, ...firstKey ? { form: firstKey } : {} });
        for (const [name, child] of Object.entries(item.keys)) {
            visit(child, path ? `${path}.${name}` : name, linked);
        }
    };

    visit(root, '', new Map());
    return found;
};

const heading = (section: Section, top: string) => `${section.path ? `\`${section.path}\`` : top}${section.form ? ` with \`${section.form}\`` : ''}`;

// GitHub's anchor of a heading.
const anchor = (title: string) => title.toLowerCase().replace(/[^\w\- ]/g, '').replace(/ /g, '-');

const render = (section: Section, all: readonly Section[], top: string): string => {

    const title = `### ${heading(section, top)}`;
    if (section.sameAs !== undefined) {
        const first = all.find((other) => other.path === section.sameAs)!;
        return `${title}\n\nThe same ${first.form ? 'forms' : 'keys'} as [\`${first.path}\`](#${anchor(heading(first, top))}).`;
    }

    const rows = Object.entries(section.description.keys!).map(([name, item]) => row(name, item));
    const about = section.description.flags?.description;
    return [title, '', ...about ? [`${about[0]!.toUpperCase()}${about.slice(1)}.`, ''] : [], '| key | type | required | default | meaning | example |', '|---|---|---|---|---|---|', ...rows].join('\n');
};

export const yamlReference = (): string => {

    const structure = sections(structureSchema.describe() as Description);
    const domains = sections(domainFileSchema.describe() as Description);
    return [
        '# The YAML reference',
        '',
        '<!-- Generated by `npm run docs` from src/structures/schema.ts; edit the schema\'s descriptions and examples, not this file. -->',
        '',
        'Every key of the files under `structures/`: a file holds one object structure (`name:` at the top, named',
        'after it in lower case) or domains (`domains:` at the top). In a path, `NAME` stands for any name you choose',
        '(an attribute, a child, a relation, a lookup, a saved query, a workflow, a node, a domain) and `[]` for any item',
        'of a list. `npm run validate` checks a folder; each mistake is named at `file:line:column` (README, "Object',
        'structures in YAML").',
        '',
        '## A structure file',
        '',
        ...structure.flatMap((section) => [render(section, structure, 'The top level of a structure file'), '']),
        '## A domains file',
        '',
        ...domains.flatMap((section) => [render(section, domains, 'The top level of a domains file'), ''])
    ].join('\n');
};
