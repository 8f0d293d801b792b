import { randomBytes } from 'node:crypto';

import { ActionRegistryError } from './actions/registry';
import { UndeclaredHandlerError } from './actions/resolve';
import { ConfigError, loadOptions } from './config';
import { loadRegistry } from './load-registry';
import { createServer } from './server';
import { ComputedError } from './structures/computed';
import { StructureError } from './structures/problems';
import { PluginError } from './user-plugins';
import { ReportRendererError, UnregisteredRendererError } from './reports/renderers';


// `npm run validate [dir]`: checks a structures folder without starting a server or touching its database. The
// YAML alone is checked first; then the server is composed with the configured plugins (OSPREY_PLUGINS) on an
// empty database in memory, so that what only the plugins can answer is checked too: every action a YAML names
// as its handler must be one a plugin (or Osprey) registered, and every report renderer a YAML report names.
const known = [StructureError, ConfigError, PluginError, UndeclaredHandlerError, ActionRegistryError, UnregisteredRendererError, ReportRendererError, ComputedError];

const validate = async (dir: string): Promise<string> => {

    const registry = loadRegistry(dir);
    const options = loadOptions({
        ...process.env,
        OSPREY_STRUCTURES: dir,
        DATABASE_URL: 'sqlite::memory:',
        OSPREY_DEMO: '0',
        OSPREY_ADMIN_USER: 'VALIDATE',
        OSPREY_ADMIN_PASSWORD: randomBytes(16).toString('hex'),
        OSPREY_LOG: 'error'
    });
    const server = await createServer({ options });
    try {
        await server.initialize();
    }
    finally {
        await server.stop();
    }

    return `${dir}: ${registry.list().length} object structures and ${registry.domains().size} domains are valid, and every action and report renderer they name is registered\n`;
};

validate(process.argv[2] ?? process.env.OSPREY_STRUCTURES ?? './structures').then((message) => process.stdout.write(message), (err: Error) => {

    process.stderr.write(`${known.some((type) => err instanceof type) ? err.message : err.stack}\n`);
    process.exitCode = 1;
});
