import type { BusinessObject, Registry } from '../src/structures/registry';
import { encodeBase64Id } from '../src/structures/resource-id';
import { typeTable } from '../src/structures/types';


// The JSON Osprey answers (hrefs, _rowstamp, typed values, domain descriptions, collection refs), written the
// way a hand-coded route would: one converter per column chosen up front, no select planning.

export type Row = Record<string, unknown>;

type Convert = (value: unknown) => unknown;

// SQLite hands back the stored ISO text, node-pg a Date; both become Osprey's wire form.
const datetime: Convert = (value) => `${(value instanceof Date ? value.toISOString() : String(value)).slice(0, 19)}+00:00`;

const converters: Record<string, Convert> = {
    string: (value) => String(value),
    integer: (value) => Number(value),
    decimal: (value) => Number(value),
    boolean: (value) => value === true || value === 1,
    date: (value) => `${String(value).slice(0, 10)}T00:00:00+00:00`,
    datetime,
    text: (value) => String(value)
};

interface Column {
    name: string;
    convert: Convert;
    descriptions?: Map<string, string>;
}

export interface Renderer {
    object: BusinessObject;
    id: (row: Row) => string;
    render: (row: Row, href: string, select?: readonly string[]) => Row;
}

export const renderer = (registry: Registry, structure: string, object = registry.get(structure)!.root): Renderer => {

    const columns = new Map<string, Column>(object.columns.map((attr) => {

        const domain = attr.domain ? registry.domain(attr.domain) : undefined;
        const descriptions = domain ? new Map(domain.values.map((entry) => [String(entry.value), String(entry.description)])) : undefined;
        return [attr.name, { name: attr.name, convert: converters[typeTable[attr.type].family]!, descriptions }];
    }));
    const all = [...columns.keys()];
    const children = [...object.children.keys()];

    return {
        object,
        id: (row) => encodeBase64Id(object.primaryKey.map((key) => (row[key] ?? null) as string | null)),
        render: (row, href, select) => {

            const record: Row = { href, _rowstamp: String(row.rowstamp) };
            for (const name of select ?? all) {
                const column = columns.get(name)!;
                const value = row[name];
                if (value === null || value === undefined) {
                    continue;
                }

                record[name] = column.convert(value);
                const description = column.descriptions?.get(String(value));
                if (description !== undefined) {
                    record[`${name}_description`] = description;
                }
            }

            if (!select) {
                for (const child of children) {
                    record[`${child}_collectionref`] = `${href}/${child}`;
                }

                if (object.attachments) {
                    record.doclinks = { href: `${href}/doclinks` };
                }
            }

            return record;
        }
    };
};

const csvField = (value: unknown) => {

    const text = value === null || value === undefined ? '' : String(value);
    return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
};

export const csv = (columns: readonly string[], rows: readonly Row[]): string => [columns.join(','), ...rows.map((row) => columns.map((column) => csvField(row[column])).join(','))].join('\r\n') + '\r\n';
