import type { Knex } from 'knex';

import { rowstampColumn } from '../db/migrate';
import type { DomainDef } from '../structures/definition';
import type { BusinessObject, Child } from '../structures/registry';
import { encodeBase64Id } from '../structures/resource-id';
import { toJson } from '../structures/types';
import type { Row } from './find';
import type { SelectPlan } from './select-plan';


export interface SerializeOptions {
    readonly dropNulls: boolean;
    readonly collectionRefs: boolean;
    readonly domains: ReadonlyMap<string, DomainDef>;
}

export const memberId = (object: BusinessObject, row: Row): string => {

    return encodeBase64Id(object.primaryKey.map((key) => (row[key] ?? null) as string | number | null));
};

const describe = (domain: DomainDef | undefined, value: unknown) => domain?.values.find((entry) => String(entry.value) === String(value))?.description;

// One stored row as lean JSON: href, _rowstamp, the planned attributes (nulls dropped unless asked), domain
// descriptions and, for a full record, links to its child collections.
const renderRow = (plan: SelectPlan, row: Row, href: string, options: SerializeOptions, child: boolean): Row => {

    const record: Row = { href, _rowstamp: String(row[rowstampColumn]) };
    if (child) {
        record.localref = href;
    }

    for (const { attr, key } of plan.attributes) {
        const value = toJson(attr, row[attr.name]);
        if (value === null && options.dropNulls) {
            continue;
        }

        record[key] = value;
        const description = attr.domain && value !== null ? describe(options.domains.get(attr.domain), value) : undefined;
        if (description !== undefined) {
            record[`${key}_description`] = description;
        }
    }

    if (options.collectionRefs && plan.all) {
        for (const name of plan.object.children.keys()) {
            record[`${name}_collectionref`] = `${href}/${name}`;
        }

        if (plan.object.attachments) {
            record.doclinks = { href: `${href}/doclinks` };
        }
    }

    return record;
};

const joinKey = (values: unknown[]) => JSON.stringify(values.map((value) => (value === null || value === undefined ? null : String(value))));

// The child rows of many parents in one statement per child collection (chunked for parameter limits), so a
// page of records costs the same number of queries whatever its size.
export const loadChildRows = async (db: Knex, child: Child, parents: readonly Row[]): Promise<Map<string, Row[]>> => {

    const entries = Object.entries(child.join);
    const columns = entries.map(([, childAttr]) => childAttr);
    const tuples = parents.map((parent) => entries.map(([parentAttr]) => parent[parentAttr] ?? null));
    const byParent = new Map<string, Row[]>();
    for (let i = 0; i < tuples.length; i += 500) {
        const chunk = tuples.slice(i, i + 500);
        const query = db(child.object.table).orderBy(child.object.uniqueColumn);
        const rows = await (columns.length === 1 ? query.whereIn(columns[0]!, chunk.map((tuple) => tuple[0]) as Knex.Value[]) : query.whereIn(columns, chunk as Knex.Value[][])) as Row[];
        for (const row of rows) {
            const key = joinKey(columns.map((column) => row[column]));
            byParent.set(key, [...byParent.get(key) ?? [], row]);
        }
    }

    return byParent;
};

export const parentKey = (child: Child, parent: Row): string => joinKey(Object.keys(child.join).map((parentAttr) => parent[parentAttr]));

export const childHref = (parentHref: string, child: Child, row: Row): string => `${parentHref}/${child.name}/${memberId(child.object, row)}`;

// Rows with their hrefs, rendered with the plan; embedded child collections are loaded per collection.
export const serializeRows = async (db: Knex, plan: SelectPlan, rows: readonly Row[], hrefs: readonly string[], options: SerializeOptions, child = false): Promise<Row[]> => {

    const records = rows.map((row, i) => renderRow(plan, row, hrefs[i]!, options, child));
    for (const { child: link, key, plan: childPlan } of plan.children) {
        const byParent = await loadChildRows(db, link, rows);
        const childRows = rows.map((row) => byParent.get(parentKey(link, row)) ?? []);
        const flat = childRows.flat();
        const flatHrefs = rows.flatMap((row, i) => childRows[i]!.map((childRow) => childHref(hrefs[i]!, link, childRow)));
        const rendered = await serializeRows(db, childPlan, flat, flatHrefs, options, true);
        let next = 0;
        records.forEach((record, i) => {

            record[key] = rendered.slice(next, next + childRows[i]!.length);
            next += childRows[i]!.length;
        });
    }

    return records;
};
