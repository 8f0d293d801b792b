import type { Knex } from 'knex';

import type { Db } from '../db/db';
import { loneSurrogate } from '../structures/types';


// System properties, as Maximo's are read and set through its system service: declared (a name, a type, a
// default, what it does), kept in the database (osprey_property) so that every node reads a change at once. A
// read goes to the database each time: a property is read by a service call or by a plugin when it needs it, not
// per record, so a cache would save little and could be stale on another node.

export type PropertyType = 'string' | 'integer' | 'boolean' | 'decimal';
export type PropertyValue = string | number | boolean;

export interface PropertySpec {
    readonly type: PropertyType;
    /** What the property does, or that it is only a setting kept for clients to read. */
    readonly description: string;
    /** The value while none is set; none (null) when not given. */
    readonly default?: PropertyValue;
    /** Never answered by the system service (getProperty refuses it, getProperties leaves it out); only the
     * server (`server.property(name)`) reads it. */
    readonly secret?: boolean;
    /** false: the plugin reads it once, when a node starts, so a change takes effect on each node's next start
     * (liveRefreshProperty refuses it). True when not given: it is read where it is used, so a change holds at once. */
    readonly live?: boolean;
    /** A fixed value this node answers, never stored and never set: what the server is, not a setting. */
    readonly fixed?: () => PropertyValue;
}

export interface DeclaredProperty extends PropertySpec {
    readonly name: string;
    readonly live: boolean;
    readonly secret: boolean;
}

export interface PropertyRow {
    readonly name: string;
    readonly value: string | null;
    readonly changed: number;
    readonly changeby: string;
}

const propertyName = /^[a-z][a-z0-9_.-]{0,99}$/i;
const types: readonly PropertyType[] = ['string', 'integer', 'boolean', 'decimal'];
const booleans = new Map<unknown, string>([[true, '1'], [1, '1'], ['1', '1'], ['true', '1'], [false, '0'], [0, '0'], ['0', '0'], ['false', '0']]);

// The value in the text the table keeps and the system service answers (Maximo answers every property as a
// string; a YORN property as 1 or 0), or a sentence saying why it does not fit the type.
export const propertyText = (type: PropertyType, value: unknown): { text: string } | { problem: string } => {

    switch (type) {
        case 'string':
            // Stored as text on both databases: PostgreSQL refuses NUL, and a lone surrogate is no character.
            return typeof value === 'string' ? (/\u0000/.test(value) ? { problem: 'it is text without NUL characters' } : loneSurrogate.test(value) ? { problem: 'it is well-formed Unicode text (it holds a lone surrogate)' } : { text: value }) :
                typeof value === 'number' || typeof value === 'boolean' ? { text: String(value) } : { problem: 'it is text' };
        case 'integer': {
            const text = typeof value === 'number' ? String(value) : typeof value === 'string' ? value.trim() : '';
            return /^-?\d{1,15}$/.test(text) && Number.isSafeInteger(Number(text)) ? { text: String(Number(text)) } : { problem: `it is a whole number, not ${JSON.stringify(value)}` };
        }

        case 'decimal': {
            const text = typeof value === 'number' ? String(value) : typeof value === 'string' ? value.trim() : '';
            return /^-?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?$/.test(text) && Number.isFinite(Number(text)) ? { text: String(Number(text)) } : { problem: `it is a number, not ${JSON.stringify(value)}` };
        }

        case 'boolean': {
            const text = booleans.get(typeof value === 'string' ? value.trim().toLowerCase() : value);
            return text === undefined ? { problem: `it is 1 or 0 (true or false), not ${JSON.stringify(value)}` } : { text };
        }
    }
};

// The stored text as the type's value, for the server's own use.
const typed = (type: PropertyType, text: string): PropertyValue => (type === 'string' ? text : type === 'boolean' ? text === '1' : Number(text));

export class Properties {

    readonly #declared = new Map<string, DeclaredProperty>();

    constructor(private readonly knex: Knex, private readonly db: Db) { }

    declare(name: string, spec: PropertySpec): DeclaredProperty {

        const label = `The system property ${name}`;
        if (!propertyName.test(name)) {
            throw new Error(`${label}: a property name is a letter, then letters, digits, _, . or -, 100 at most.`);
        }

        if (this.#declared.has(name.toLowerCase())) {
            throw new Error(`${label} is declared twice.`);
        }

        if (!types.includes(spec.type)) {
            throw new Error(`${label}: its type is one of ${types.join(', ')}, not ${String(spec.type)}.`);
        }

        if (typeof spec.description !== 'string' || !spec.description.trim()) {
            throw new Error(`${label} says what it does (description).`);
        }

        if (spec.default !== undefined) {
            const checked = propertyText(spec.type, spec.default);
            if ('problem' in checked) {
                throw new Error(`${label}: its default does not fit its type: ${checked.problem}.`);
            }
        }

        if (spec.fixed !== undefined && (typeof spec.fixed !== 'function' || spec.default !== undefined)) {
            throw new Error(`${label}: a fixed property has a function (fixed) and no default.`);
        }

        const declared: DeclaredProperty = { ...spec, name, live: spec.live ?? true, secret: spec.secret ?? false };
        this.#declared.set(name.toLowerCase(), declared);
        return declared;
    }

    /** Property names are not case-sensitive, as Maximo's are not; each answers by its declared spelling. */
    get(name: string): DeclaredProperty | undefined {

        return this.#declared.get(name.toLowerCase());
    }

    list(): DeclaredProperty[] {

        // By code point; no two names are equal.
        return [...this.#declared.values()].sort((a, b) => (a.name < b.name ? -1 : 1));
    }

    /** The text of each property asked for, as stored (or the default, or null): read in one statement. */
    async texts(properties: readonly DeclaredProperty[]): Promise<Map<string, string | null>> {

        const stored = properties.filter((property) => !property.fixed);
        const rows = stored.length ? await this.db.query('osprey_property').whereIn('name', stored.map((property) => property.name)).select('name', 'value') as PropertyRow[] : [];
        const values = new Map(rows.map((row) => [row.name, row.value]));
        const answer = new Map<string, string | null>();
        for (const property of properties) {
            if (property.fixed) {
                answer.set(property.name, (propertyText(property.type, property.fixed()) as { text: string }).text);
                continue;
            }

            const fallback = property.default === undefined ? null : (propertyText(property.type, property.default) as { text: string }).text;
            answer.set(property.name, values.has(property.name) ? values.get(property.name)! : fallback);
        }

        return answer;
    }

    /** A property's value as its type (a plugin's read): null while it has none. */
    async value(name: string): Promise<PropertyValue | null> {

        const property = this.get(name);
        if (!property) {
            throw new Error(`No system property ${name} is declared.`);
        }

        const text = (await this.texts([property])).get(property.name);
        return text === null || text === undefined ? null : typed(property.type, text);
    }

    /** Stores a value already checked against the type (propertyText). */
    async store(property: DeclaredProperty, text: string, userid: string): Promise<void> {

        await this.knex('osprey_property').insert({ name: property.name, value: text, changed: Date.now(), changeby: userid }).onConflict('name').merge(['value', 'changed', 'changeby']);
    }
}
