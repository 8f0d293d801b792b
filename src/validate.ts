import { loadRegistry } from './load-registry';
import { StructureError } from './structures/problems';


// `npm run validate [dir]`: checks a structures folder without starting a server or touching a database.
const dir = process.argv[2] ?? process.env.OSPREY_STRUCTURES ?? './structures';
try {
    const registry = loadRegistry(dir);
    process.stdout.write(`${dir}: ${registry.list().length} object structures and ${registry.domains().size} domains are valid\n`);
}
catch (err) {
    process.stderr.write(`${err instanceof StructureError ? err.message : (err as Error).stack}\n`);
    process.exitCode = 1;
}
