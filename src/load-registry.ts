import { checkStructureWheres } from './read/parse/where-check';
import { checkReports } from './reports/report-check';
import { loadStructures } from './structures/load';
import type { Registry } from './structures/registry';


// The structures folder with every start-up check: structures/ loads and links the YAML, and the query text
// and report definitions in it are checked by the query and reports modules, passed in here so that
// structures/ depends on neither. Throws a StructureError that lists every problem.
export const loadRegistry = (dir: string): Registry => loadStructures(dir, [checkStructureWheres, checkReports]);
