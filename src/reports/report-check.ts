import { checkWhere } from '../read/compile/where-check';
import { declaredAttribute } from '../read/plan/attribute-names';
import type { StructureCheck } from '../structures/link';
import { own } from '../structures/own';
import { columnName, reportLayout, type ReportLayout } from './columns';


// Report definitions are checked at load, with the same layout a request renders, so that a report that
// cannot be rendered stops the start instead of failing a client's request.

// A report column is one value: an attribute, an attribute of a 1:1 relation, or an aggregate.
const columnShape = /^[a-z]\w*(?:\.[a-z]\w*)?(?:\._db(?:count|sum|avg|min|max))?$/;

export const checkReports: StructureCheck = (structure, registry, report) => {

    const names = new Set<string>();
    structure.def.reports.forEach((def, i) => {

        if (names.has(def.name)) {
            report(`reports.${i}.name`, `a report named ${def.name} is declared twice`);
        }

        names.add(def.name);
        for (const [j, column] of (def.columns ?? []).map(columnName).entries()) {
            const [first, second] = column.split('.');
            const relation = second && !second.startsWith('_db') ? own(structure.def.relations, first!) : undefined;
            if (!columnShape.test(column) || relation?.cardinality === 'many') {
                report(`reports.${i}.columns.${j}`, `"${column}" is not one value: a column is an attribute, an attribute of a 1:1 relation (asset.description) or an aggregate (woactivity._dbcount)`);
            }
        }

        checkWhere(def.where, `reports.${i}.where`, report, { registry, structure });
        // A plugin's renderer (`handler`) is checked when the server starts, once the plugins have registered
        // (src/reports/renderers.ts); its records render with the columns it declares, if any.
        if (def.handler && !def.columns) {
            return;
        }

        // A column through a relation to a structure that is not there waits for it (the link check said so).
        if (def.columns!.some((column) => {

            const relation = own(structure.def.relations, columnName(column).split('.')[0]!);
            return relation !== undefined && !registry.get(relation.structure);
        })) {
            return;
        }

        let layout: ReportLayout;
        try {
            layout = reportLayout(registry, structure, def);
        }
        catch (error) {
            return report(`reports.${i}.columns`, (error as Error).message);
        }

        layout.columns.forEach((column, j) => {

            if (column.format !== undefined && column.family !== 'date' && column.family !== 'datetime') {
                report(`reports.${i}.columns.${j}.format`, `${column.name} is not a date or datetime: only those have a format (YYYY-MM-DD HH:mm)`);
            }
        });

        const columnNames = layout.columns.map((column) => column.name);
        // An attribute that is not stored groups if a plugin computes it with SQL: known once the plugins have
        // registered, so checked when the server starts (computed-columns.ts).
        if (def.groupBy !== undefined && (!columnNames.includes(def.groupBy) || !declaredAttribute(structure.root, def.groupBy))) {
            report(`reports.${i}.groupBy`, `${def.groupBy} is not one of the report's columns that is an attribute of ${structure.name} (${columnNames.join(', ')})`);
        }

        for (const [j, total] of (def.totals ?? []).entries()) {
            if (!layout.columns.some((column) => column.name === total && column.numeric)) {
                report(`reports.${i}.totals.${j}`, `${total} is not one of the report's numeric columns, which a total sums`);
            }
        }
    });
};
