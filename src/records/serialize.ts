import { rowstampColumn } from '../db/migrate';
import type { DomainDef } from '../structures/definition';
import type { BusinessObject } from '../structures/registry';
import { encodeBase64Id } from '../structures/resource-id';
import { toJson } from '../structures/types';


export interface SerializeOptions {
    readonly dropNulls: boolean;
    readonly collectionRefs: boolean;
    readonly domains: ReadonlyMap<string, DomainDef>;
    readonly select?: ReadonlySet<string>;
}

export const memberId = (object: BusinessObject, row: Record<string, unknown>): string => {

    return encodeBase64Id(object.primaryKey.map((key) => (row[key] ?? null) as string | number | null));
};

const describe = (domain: DomainDef | undefined, value: unknown) => domain?.values.find((entry) => String(entry.value) === String(value))?.description;

// One stored row as lean JSON: href, _rowstamp, attributes (nulls dropped unless asked), domain descriptions
// and links to child collections.
export const serializeRow = (object: BusinessObject, row: Record<string, unknown>, href: string, options: SerializeOptions): Record<string, unknown> => {

    const record: Record<string, unknown> = { href, _rowstamp: String(row[rowstampColumn]) };
    for (const attr of object.columns) {
        if (options.select && !options.select.has(attr.name)) {
            continue;
        }

        const value = toJson(attr, row[attr.name]);
        if (value === null && options.dropNulls) {
            continue;
        }

        record[attr.name] = value;
        const description = attr.domain && value !== null ? describe(options.domains.get(attr.domain), value) : undefined;
        if (description !== undefined) {
            record[`${attr.name}_description`] = description;
        }
    }

    if (options.collectionRefs && !options.select) {
        for (const child of object.children.keys()) {
            record[`${child}_collectionref`] = `${href}/${child}`;
        }

        if (object.attachments) {
            record.doclinks = { href: `${href}/doclinks` };
        }
    }

    return record;
};
