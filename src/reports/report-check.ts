import { checkWhere } from '../read/compile/where-check';
import type { StructureCheck } from '../structures/link';
import { own } from '../structures/own';
import { reportLayout } from './columns';


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
        for (const [j, column] of (def.columns ?? []).entries()) {
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

            const relation = own(structure.def.relations, column.split('.')[0]!);
            return relation !== undefined && !registry.get(relation.structure);
        })) {
            return;
        }

        try {
            reportLayout(registry, structure, def);
        }
        catch (error) {
            report(`reports.${i}.columns`, (error as Error).message);
        }
    });
};
