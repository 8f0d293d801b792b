import { attributeSchema, structureSchema } from './schema';


interface Description {
    type?: string;
    flags?: { description?: string; presence?: string; default?: unknown };
    keys?: Record<string, Description>;
    allow?: unknown[];
}

const row = (name: string, item: Description) => {

    const required = item.flags?.presence === 'required' ? 'yes' : '';
    // Joi describes `.default()` on an object as {special: 'deep'}: the defaults of its keys.
    const given = item.flags?.default;
    const fallback = given === undefined ? '' : JSON.stringify(given) === '{"special":"deep"}' ? 'each key\'s' : `\`${JSON.stringify(given)}\``;
    const text = (item.flags?.description ?? '').replace(/\|/g, '\\|');
    return `| \`${name}\` | ${item.type ?? ''} | ${required} | ${fallback} | ${text} |`;
};

const table = (description: Description) => {

    const rows = Object.entries(description.keys ?? {}).map(([name, item]) => row(name, item));
    return ['| key | type | required | default | meaning |', '|---|---|---|---|---|', ...rows].join('\n');
};

// The YAML format reference, generated from the Joi schemas so the README cannot drift from the loader.
export const structureFormatDocs = (): string => {

    const structure = table(structureSchema.describe() as Description);
    const attribute = table(attributeSchema.describe() as Description);
    return ['### Top-level keys of a structure file', '', structure, '', '### Keys of an attribute (`attributes.NAME`)', '', attribute].join('\n');
};
