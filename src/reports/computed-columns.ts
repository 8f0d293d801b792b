import { computedOf, ComputedError } from '../structures/computed';
import { declaredAttribute } from '../read/plan/attribute-names';
import { QueryError } from '../read/parse/query-error';
import type { Registry } from '../structures/registry';
import { own } from '../structures/own';
import { columnName, planOf } from './columns';


// A YAML report may print an attribute that is not stored if a plugin computes it (server.registerComputed), and
// group by one (`groupBy`) if the plugin gives its SQL: the records are read ordered by the group, and the
// database orders by that expression. Plugins register when the server starts, after the YAML was checked
// (./report-check.ts let such attributes pass), so this is checked then, and by npm run validate.
export const checkComputedColumns = (registry: Registry): void => {

    for (const structure of registry.list()) {
        for (const report of structure.def.reports) {
            const where = `${structure.file}: the report ${report.name} of ${structure.name}`;
            // A column through a relation to a structure that is not there was reported with the links.
            const waiting = (report.columns ?? []).some((column) => {

                const relation = own(structure.def.relations, columnName(column).split('.')[0]!);
                return relation !== undefined && !registry.get(relation.structure);
            });
            if (report.columns && !waiting) {
                try {
                    planOf(registry, structure, report, undefined);
                }
                catch (error) {
                    if (error instanceof QueryError) {
                        // The detail alone: a column of the joined names means nothing to the YAML's author.
                        const detail = error.message.slice(`${error.parameter}: `.length).replace(/ at column \d+$/, '');
                        throw new ComputedError(`${where} cannot print a column: ${detail}; a plugin computes such an attribute with server.registerComputed.`);
                    }

                    throw error;
                }
            }

            const attr = report.groupBy === undefined ? undefined : declaredAttribute(structure.root, report.groupBy);
            if (attr && !attr.persistent && !computedOf(structure.root, attr)?.sql) {
                throw new ComputedError(`${where} groups by ${attr.name}, which is not stored; a report groups by a stored attribute or by one a plugin computes with SQL (server.registerComputed with sql).`);
            }
        }
    }
};
