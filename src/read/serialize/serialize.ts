import type { Knex } from 'knex';

import type { Db } from '../../db/db';
import { rowstampColumn, storedColumns } from '../../db/migrate';
import { maxTuples, selectLinked } from '../../db/statements';
import type { DomainDef } from '../../structures/definition';
import type { Attribute, BusinessObject } from '../../structures/registry';
import { encodeBase64Id } from '../../structures/resource-id';
import { jsonConverter, type JsonValue } from '../../structures/types';
import type { Computed } from '../../structures/computed';
import type { Row } from '../execute/find';
import { domainEntry, internalOf } from './synonyms';
import { limitSettings } from '../plan/cost';
import { renderColumns } from '../plan/render-columns';
import type { AggregatePlan, Link, SelectPlan } from '../plan/select-plan';
import { QueryError } from '../parse/query-error';
import { oncePer } from '../../db/remember';
import { documentsWanted, renderDocuments, type DocumentOptions } from './documents';


export interface SerializeOptions {
    /** The API home hrefs of related records are built on, e.g. http://host/maximo/oslc. */
    readonly home: string;
    readonly dropNulls: boolean;
    readonly collectionRefs: boolean;
    /** `ignorers=1` renders records without `_rowstamp` (false); every object carries it otherwise. */
    readonly rowstamps: boolean;
    /** `internalvalues=1`: attributes of a synonym domain also render their internal value as `{attr}_maxvalue`. */
    readonly internalValues?: boolean;
    readonly domains: ReadonlyMap<string, DomainDef>;
    /** The actions the reader may run on the records of a structure's root object, for `allowedactions`: asked once
     * for the rows of a page (some actions ask the database whether they are open), then per row. */
    readonly allowedActions?: (db: Db, object: BusinessObject, rows: readonly Row[]) => Promise<(row: Row) => Row>;
    /** The value of a secret attribute as this reader may see it; undefined leaves it out. */
    readonly reveal?: (object: BusinessObject, attr: Attribute, row: Row) => string | undefined;
    /** The rows one answer may render, and how many it has (OSPREY_MAX_ANSWER_ROWS); none: any number (a report
     * streams its pages). */
    readonly answerRows?: AnswerRows;
    /** A record's documents (attachments) as the request renders them: inline (inlinedoc=1) or as a link
     * (./documents.ts); none: as a link. */
    readonly documents?: DocumentOptions;
}

export interface AnswerRows {
    readonly limit: number;
    readonly parameter: string;
    used: number;
}

// Counts the rows an answer renders, refusing it as soon as they are more than the limit: linked rows are read
// at most one beyond what is left (loadLinkedRows), so an answer that would be too large never is in memory.
const spend = (budget: AnswerRows | undefined, rows: number): void => {

    if (!budget) {
        return;
    }

    budget.used += rows;
    if (budget.used > budget.limit) {
        throw new QueryError(budget.parameter, 1, `the answer would render more than ${budget.limit} rows (its records with their child and related rows); the limit is ${budget.limit} (${limitSettings.answerRows}): select fewer child or related rows, or ask for a smaller oslc.pageSize`);
    }
};

export const memberId = (object: BusinessObject, row: Row): string => {

    return encodeBase64Id(object.primaryKey.map((key) => (row[key] ?? null) as string | number | null));
};

// How each attribute of a plan renders — its wire form, and the keys of its description and internal value —
// worked out once per plan rather than per attribute of every row (a record's 33 attributes showed in the
// profile of its read). A plan is made once per object for no select, once per request otherwise.
interface RenderStep {
    readonly attr: Attribute;
    readonly key: string;
    readonly computed?: Computed;
    readonly convert: (value: unknown) => JsonValue;
    readonly description: string;
    readonly maxvalue: string;
}

const stepsOf = oncePer((plan: SelectPlan): readonly RenderStep[] => {

    return plan.attributes.map(({ attr, key, computed }) => ({ attr, key, computed, convert: jsonConverter(attr), description: `${key}_description`, maxvalue: `${key}_maxvalue` }));
});

// The keys of an object's child collection links, and their paths below the record, made once per object.
type CollectionRef = readonly [key: string, path: string];

const collectionRefsOf = oncePer((object: BusinessObject): readonly CollectionRef[] => [...object.children.keys()].map((name) => [`${name}_collectionref`, `/${name}`] as const));

// One stored row as lean JSON: href, _rowstamp (unless ignorers=1), the planned attributes (nulls dropped unless
// asked), domain descriptions and, for a full record, links to its child collections.
const renderRow = (plan: SelectPlan, row: Row, href: string, options: SerializeOptions, child: boolean, actions?: (row: Row) => Row): Row => {

    const record: Row = { href };
    if (options.rowstamps) {
        record._rowstamp = String(row[rowstampColumn]);
    }

    if (child) {
        record.localref = href;
    }

    for (const { attr, key, computed, convert, description, maxvalue } of stepsOf(plan)) {
        const value = attr.secret ? options.reveal?.(plan.object, attr, row) ?? null : computed ? computed.value(row, Date.now()) : convert(row[attr.name]);
        if (value === null && options.dropNulls) {
            continue;
        }

        record[key] = value;
        if (attr.domain && value !== null) {
            const domain = options.domains.get(attr.domain)!;
            const entry = domainEntry(domain, value);
            if (entry) {
                record[description] = entry.description;
                if (options.internalValues && domain.type === 'SYNONYM') {
                    record[maxvalue] = internalOf(entry);
                }
            }
        }
    }

    if (plan.weblink) {
        record[plan.weblink.key] = `${plan.weblink.prefix}${String(row[plan.object.uniqueColumn])}`;
    }

    if (actions) {
        record.allowedactions = actions(row);
    }

    // A record links its child collections ({href}/{child}); a child row's own children (an asset meter's
    // readings) have no route of their own (…/{child}/{childid}/{grandchild} is not served), so a child row links
    // none: a link is given only where it answers. They are read in the record: oslc.select=assetmeter{*,meterreading{*}}.
    if (options.collectionRefs && plan.all) {
        for (const [key, path] of child ? [] : collectionRefsOf(plan.object)) {
            record[key] = `${href}${path}`;
        }

        // A record with attachments links its documents where it links its child collections, as an object
        // (IBM's Java client reads `doclinks.href` of every record it reads whole); inlinedoc=1 puts them in its
        // place as an array (serializeRows).
        if (plan.object.attachments && !options.documents?.inline) {
            record.doclinks = { href: `${href}/doclinks` };
        }
    }

    return record;
};

// The key of a row's values of `names` in the maps that match linked rows to their parents: each value's length
// and text, so that no two tuples share a key, and an integer matches the same number stored as text. Undefined
// when a value is null, which `=` never matches. (JSON.stringify of the values, which it replaces, was 4.5 % of
// a page's CPU with tasks and an asset.)
export const joinKeyOf = (row: Row, names: readonly string[]): string | undefined => {

    let key = '';
    for (const name of names) {
        const value = row[name];
        if (value === null || value === undefined) {
            return undefined;
        }

        const text = String(value);
        key += `${text.length}:${text}`;
    }

    return key;
};

const chunked = <T>(items: readonly T[], size = maxTuples) => Array.from({ length: Math.ceil(items.length / size) }, (_, i) => items.slice(i * size, (i + 1) * size));

// The rows matching any of the parents' join values (and the link's owner filter), restricted by one statement per 500 parents (parameter
// limits), so a page of records costs the same number of statements whatever its size.
const whereLinked = (query: Knex.QueryBuilder, link: Link, tuples: unknown[][]) => {

    const columns = Object.values(link.join);
    // A relation to records kept to their owners (access.owner) reaches the reader's own only (../plan/reach.ts).
    const owned = link.owner ? query.where(link.owner.attribute, link.owner.value) : query;
    return columns.length === 1 ? owned.whereIn(columns[0]!, tuples.map((tuple) => tuple[0]) as Knex.Value[]) : owned.whereIn(columns, tuples as Knex.Value[][]);
};

// The parents' distinct join tuples, to read their linked rows by, and each parent's key (undefined: it has no
// linked rows).
interface Parents {
    readonly tuples: readonly unknown[][];
    readonly keys: readonly (string | undefined)[];
}

const parentsOf = (link: Pick<Link, 'join'>, rows: readonly Row[]): Parents => {

    const names = Object.keys(link.join);
    const seen = new Map<string, unknown[]>();
    const keys = rows.map((row) => {

        const key = joinKeyOf(row, names);
        if (key !== undefined && !seen.has(key)) {
            seen.set(key, names.map((name) => row[name]));
        }

        return key;
    });
    return { tuples: [...seen.values()], keys };
};

const loadLinkedRows = async (db: Db, link: Link, plan: SelectPlan, tuples: readonly unknown[][], budget?: AnswerRows): Promise<Map<string, Row[]>> => {

    const columns = Object.values(link.join);
    // The linked rows' columns the plan renders, with those that match them to their parents.
    const selected = renderColumns(link.object, plan, columns);
    const stored = storedColumns(link.object);
    // A select of every column reads what whole rows read, by the same statement.
    const narrowed = selected !== undefined && selected.length < stored.length;
    const byParent = new Map<string, Row[]>();
    let read = 0;
    const owner = link.owner ? { column: link.owner.attribute, value: link.owner.value } : undefined;
    for (const chunk of chunked(tuples)) {
        // One row more than the answer may still hold tells that it would hold too many (spend, in serializeRows).
        const limit = budget ? Math.max(budget.limit - budget.used - read, 0) + 1 : undefined;
        const rows = await selectLinked(db, link.object.table, selected ?? stored, columns, chunk as Knex.Value[][], { owner, orderBy: link.object.uniqueColumn, limit, narrowed });
        read += rows.length;
        if (budget && budget.used + read > budget.limit) {
            spend(budget, read);
        }

        for (const row of rows) {
            const key = joinKeyOf(row, columns)!;
            const list = byParent.get(key);
            if (list) {
                list.push(row);
            }
            else {
                byParent.set(key, [row]);
            }
        }
    }

    return byParent;
};

const loadAggregate = async (db: Db, aggregate: AggregatePlan, tuples: readonly unknown[][]): Promise<Map<string, number | null>> => {

    const { link, fn, attr } = aggregate;
    const columns = Object.values(link.join);
    const values = new Map<string, number | null>();
    for (const chunk of chunked(tuples)) {
        const query = db.query(link.object.table).select(columns).groupBy(columns);
        const measured = fn === 'count' ? query.count({ v: attr ? attr.name : '*' }) : query[fn]({ v: attr!.name });
        for (const row of await whereLinked(measured, link, chunk) as Row[]) {
            values.set(joinKeyOf(row, columns)!, row.v === null ? null : Number(row.v));
        }
    }

    return values;
};

// Sets a value at a path of nested objects, making the objects on the way (an aggregate under its link's name).
const setPath = (record: Row, path: readonly string[], value: unknown) => {

    let target = record;
    for (const key of path.slice(0, -1)) {
        target = (target[key] ??= {}) as Row;
    }

    target[path[path.length - 1]!] = value;
};

export const childHref = (parentHref: string, child: Pick<Link, 'name' | 'object'>, row: Row): string => `${parentHref}/${child.name}/${memberId(child.object, row)}`;

// Rows with their hrefs, rendered with the plan; linked rows and aggregates are loaded per link, for all rows.
export const serializeRows = async (db: Db, plan: SelectPlan, rows: readonly Row[], hrefs: readonly string[], options: SerializeOptions, child = false): Promise<Row[]> => {

    spend(options.answerRows, rows.length);
    const actions = plan.allowedActions && options.allowedActions ? await options.allowedActions(db, plan.object, rows) : undefined;
    const records = rows.map((row, i) => renderRow(plan, row, hrefs[i]!, options, child, actions));
    for (const { link, key, plan: linkedPlan } of plan.links) {
        const parents = parentsOf(link, rows);
        const byParent = await loadLinkedRows(db, link, linkedPlan, parents.tuples, options.answerRows);
        // Every parent's linked rows in one list, rendered at once, then handed back to each in turn.
        const linkedRows: Row[] = [];
        const linkedHrefs: string[] = [];
        const counts = parents.keys.map((parentKey, i) => {

            const mine = parentKey === undefined ? undefined : byParent.get(parentKey);
            for (const linked of mine ?? []) {
                linkedRows.push(linked);
                linkedHrefs.push(link.child ? childHref(hrefs[i]!, link, linked) : `${options.home}/os/${link.structure!.id}/${memberId(link.object, linked)}`);
            }

            return mine?.length ?? 0;
        });
        const rendered = await serializeRows(db, linkedPlan, linkedRows, linkedHrefs, options, link.child);
        let next = 0;
        records.forEach((record, i) => {

            const count = counts[i]!;
            if (link.many) {
                record[key] = rendered.slice(next, next + count);
            }
            else if (count) {
                record[key] = rendered[next];
            }

            next += count;
        });
    }

    const documents = documentsWanted(plan, options.documents);
    if (documents) {
        const budget = options.answerRows;
        await renderDocuments(db, plan, rows, records, hrefs, documents, options.documents, {
            left: () => (budget ? Math.max(budget.limit - budget.used, 0) : Infinity),
            spend: (count) => spend(budget, count)
        });
    }

    for (const aggregate of plan.aggregates) {
        const parents = parentsOf(aggregate.link, rows);
        const values = await loadAggregate(db, aggregate, parents.tuples);
        records.forEach((record, i) => {

            const parentKey = parents.keys[i];
            setPath(record, aggregate.path, (parentKey === undefined ? undefined : values.get(parentKey)) ?? (aggregate.fn === 'count' ? 0 : null));
        });
    }

    return records;
};
