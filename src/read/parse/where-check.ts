import type { Report, StructureCheck } from '../../structures/link';
import { parseWhere } from './where';


// Query text in YAML is parsed at load, so a typo stops the start instead of failing a client's request.
export const checkWhere = (where: string | undefined, path: string, report: Report) => {

    try {
        if (where !== undefined) {
            parseWhere(where, 'where');
        }
    }
    catch (error) {
        report(path, (error as Error).message);
    }
};

// The where clauses of a structure's lookups and saved queries; reports check their own (reports/report-check.ts).
export const checkStructureWheres: StructureCheck = (structure, registry, report) => {

    for (const [name, lookup] of Object.entries(structure.def.lookups)) {
        checkWhere(lookup.where, `lookups.${name}.where`, report);
    }

    for (const [name, query] of Object.entries(structure.def.savedQueries)) {
        checkWhere(query.where, `savedQueries.${name}.where`, report);
    }
};
