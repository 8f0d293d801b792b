import type Joi from 'joi';


// The JSON schema allowedactions shows for an action's payload, worked out from its Joi schema's description
// (Joi's `describe()`): the common shapes — objects of strings, numbers, booleans, dates, arrays, enumerations
// and required keys. What has no JSON-schema form here (alternatives, references) is shown as any value.

interface Described {
    readonly type?: string;
    readonly flags?: { presence?: string; description?: string; only?: boolean };
    readonly keys?: Readonly<Record<string, Described>>;
    readonly items?: readonly Described[];
    readonly allow?: readonly unknown[];
}

const simple: Readonly<Record<string, Record<string, unknown>>> = {
    string: { type: 'string' },
    number: { type: 'number' },
    boolean: { type: 'boolean' },
    date: { type: 'string', format: 'date-time' },
    binary: { type: 'string' }
};

const convert = (described: Described): Record<string, unknown> => {

    const schema: Record<string, unknown> = { ...simple[described.type ?? ''] };
    if (described.flags?.description) {
        schema.description = described.flags.description;
    }

    if (described.flags?.only && described.allow) {
        schema.enum = described.allow;
    }

    if (described.type === 'object') {
        const keys = Object.entries(described.keys ?? {});
        schema.type = 'object';
        schema.properties = Object.fromEntries(keys.map(([name, key]) => [name, convert(key)]));
        const required = keys.filter(([, key]) => key.flags?.presence === 'required').map(([name]) => name);
        if (required.length) {
            schema.required = required;
        }
    }

    if (described.type === 'array') {
        schema.type = 'array';
        if (described.items?.length === 1) {
            schema.items = convert(described.items[0]!);
        }
    }

    return schema;
};

export const jsonSchemaOf = (schema: Joi.Schema): Record<string, unknown> => convert(schema.describe() as Described);
