import { checkStructureWheres } from './read/compile/where-check';
import { checkReports } from './reports/report-check';
import { loadStructures } from './structures/load';
import type { Registry } from './structures/registry';
import { checkWorkflows } from './workflows/check';


// The structures folder with every start-up check: structures/ loads and links the YAML, and the query text,
// report definitions and workflows in it are checked by the query and reports modules and the workflows, passed in here so that
// structures/ depends on neither. Throws a StructureError that lists every problem.
export const loadRegistry = (dir: string): Registry => loadStructures(dir, [checkStructureWheres, checkReports, checkWorkflows]);
