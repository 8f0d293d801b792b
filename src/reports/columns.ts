import { parseSelect } from '../read/parse/select';
import type { Reach } from '../read/plan/reach';
import { planSelect, type SelectPlan } from '../read/plan/select-plan';
import { declaredAttribute } from '../read/plan/attribute-names';
import type { ReportColumnDef, ReportDef } from '../structures/definition';
import type { Attribute, Registry, Structure } from '../structures/registry';
import { own } from '../structures/own';
import { typeTable, type ColumnFamily } from '../structures/types';


// A report's columns (`columns:` in the YAML) are oslc.select terms that give one value each: attributes of the
// record, attributes of a 1:1 related record (`asset.description`) and aggregates (`woactivity._dbcount`). They
// render through the select plan, so a report shows exactly what a query with that select would.

export interface ReportColumn {
    /** The column as declared: the key of CSV and JSON output. */
    readonly name: string;
    readonly title: string;
    /** Where the value sits in a rendered record. */
    readonly path: readonly string[];
    /** The PDF column's width in points, when the YAML declares it; else as wide as its content needs. */
    readonly width?: number;
    readonly numeric: boolean;
    /** How its values print (src/reports/format.ts): an aggregate counts (integer) or computes (decimal). */
    readonly family: ColumnFamily;
    /** A decimal's places: the attribute's scale (2 by default, and for aggregates other than a count). */
    readonly scale?: number;
    /** A date or datetime column's own pattern. */
    readonly format?: string;
}

export interface ReportLayout {
    readonly plan: SelectPlan;
    readonly columns: readonly ReportColumn[];
}

const capitalized = (text: string) => text.charAt(0).toUpperCase() + text.slice(1);

// The heading of a column: the attribute's title; a related one's after the relation's name; an aggregate
// spelled out (`wplabor.regularhrs._dbsum` is "Wplabor regularhrs sum").
const titleOf = (name: string, path: readonly string[], attr: Attribute | undefined) => {

    const aggregate = /^_db(\w+)$/.exec(path[path.length - 1]!);
    if (aggregate) {
        return capitalized([...path.slice(0, -1), aggregate[1]].join(' '));
    }

    const title = attr?.title ?? path[path.length - 1]!.toUpperCase();
    return path.length === 1 ? title : `${capitalized(path[0]!)} ${title.toLowerCase()}`;
};

// A column as the YAML writes it: its name, or { name, title, width, format }.
export const columnName = (def: string | ReportColumnDef): string => (typeof def === 'string' ? def : def.name);

const familyOf = (attr: Attribute | undefined, path: readonly string[]): ColumnFamily => {

    if (attr) {
        return typeTable[attr.type].family;
    }

    return path[path.length - 1] === '_dbcount' ? 'integer' : 'decimal';
};

const column = (structure: Structure, registry: Registry, def: string | ReportColumnDef): ReportColumn => {

    const { name, title: declared, width, format } = typeof def === 'string' ? { name: def } as ReportColumnDef : def;
    const path = name.split('.');
    const aggregate = path[path.length - 1]!.startsWith('_db');
    const related = path.length === 2 && !aggregate ? registry.get(own(structure.def.relations, path[0]!)?.structure ?? '') : undefined;
    // Only its title and width: the columns resolve through the select plan, checked at start (planOf).
    const attr = path.length === 1 ? declaredAttribute(structure.root, name) : related && declaredAttribute(related.root, path[1]!);
    const title = declared ?? titleOf(name, path, attr);
    const family = familyOf(attr, path);
    // An aggregate renders nested under its link (`woactivity._dbcount` → woactivity → _dbcount), without `rel.`.
    const at = related ? path : aggregate ? (path[0] === 'rel' ? path.slice(1) : path) : [name];
    // decimal and amount both default to 2 places (../structures/types.ts), as an aggregate other than a count prints.
    const scale = family === 'decimal' ? attr?.scale ?? typeTable.decimal.defaultScale : undefined;
    return { name, title, path: at, numeric: family === 'integer' || family === 'decimal', family, ...width === undefined ? {} : { width }, ...scale === undefined ? {} : { scale }, ...format === undefined ? {} : { format } };
};

const layouts = new WeakMap<ReportDef, ReportLayout>();

// `computedLater`: planned at load, before the plugins register their computed attributes (./computed-columns.ts
// plans the columns again once they have).
export const planOf = (registry: Registry, structure: Structure, report: ReportDef, reach: Reach | undefined, computedLater = false): SelectPlan => {

    const names = (report.columns ?? []).map(columnName);
    return planSelect(structure.root, parseSelect(names.join(','), `reports.${report.name}.columns`), { parameter: `reports.${report.name}.columns`, registry, structure, reach, computedLater });
};

// Throws a QueryError naming the column when a column cannot be rendered (checked at start, structures/link.ts).
// With `reach`, the columns of related records are planned for that reader (their read right and owner rule,
// ../read/plan/reach.ts): a report for a user follows relations as their read would.
export const reportLayout = (registry: Registry, structure: Structure, report: ReportDef, reach?: Reach): ReportLayout => {

    let layout = layouts.get(report);
    if (!layout) {
        layout = { plan: planOf(registry, structure, report, undefined, true), columns: (report.columns ?? []).map((def) => column(structure, registry, def)) };
        layouts.set(report, layout);
    }

    return reach ? { ...layout, plan: planOf(registry, structure, report, reach) } : layout;
};

// A column's value in a record rendered with the layout's plan; null when the record has none.
export const columnValue = (record: Record<string, unknown>, { path }: ReportColumn): unknown => {

    let value: unknown = record;
    for (const key of path) {
        value = value !== null && typeof value === 'object' ? (value as Record<string, unknown>)[key] : undefined;
    }

    return value ?? null;
};
