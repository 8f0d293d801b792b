import { ActionRegistryError } from './actions/registry';
import { UndeclaredHandlerError } from './actions/resolve';
import { ReportRendererError, UnregisteredRendererError } from './reports/renderers';
import { ComputedError } from './structures/computed';
import { ConfigError, loadOptions, type OspreyOptions } from './config';
import { databaseKind, DriverError, sqliteFile } from './db/knex';
import { MigrationError } from './db/migrate';
import { NoAdministratorError } from './demo/users';
import { announce, createLogger, formatOf } from './log/logger';
import { createServer } from './server';
import { startFailure } from './start-failure';
import { StructureError } from './structures/problems';
import { PluginError } from './user-plugins';


const argValue = (name: string): string | undefined => {

    const index = process.argv.indexOf(name);
    return index >= 0 ? process.argv[index + 1] : process.argv.find((arg) => arg.startsWith(`${name}=`))?.slice(name.length + 1);
};

const known = [ConfigError, StructureError, MigrationError, NoAdministratorError, PluginError, DriverError, UndeclaredHandlerError, ActionRegistryError, UnregisteredRendererError, ReportRendererError, ComputedError];

// The settings read, for what a failed start prints (they are not, when they are what failed).
let settings: OspreyOptions | undefined;

// `npm start`: read the settings, compose the server, listen, and drain requests on SIGTERM/SIGINT.
const main = async () => {

    const options = loadOptions(process.env, argValue('--config'));
    settings = options;
    const format = formatOf({ format: options.logFormat });
    const log = createLogger(options.logLevel, { format });
    const server = await createServer({ options, log });
    await server.start();

    const url = `${server.info.uri}/${options.contextRoot}`;
    const database = databaseKind(options.databaseUrl) === 'sqlite' ? `SQLite ${sqliteFile(options.databaseUrl)}` : `PostgreSQL ${options.databaseUrl.replace(/\/\/([^:@/]+):[^@/]*@/, '//$1:***@')}`;
    const structures = server.app.osprey.registry.list().length;
    announce(format, [
        `Osprey ${server.app.osprey.version} is listening on ${url}`,
        `  database:   ${database}`,
        `  structures: ${structures} from ${options.structures}`,
        `  try:        curl -H "maxauth: $(printf ${options.demo ? 'wilson:wilson' : 'USER:PASSWORD'} | base64)" ${url}/oslc/whoami`,
        options.demo ? '  demo users: MAXADMIN / maxadmin (administrator), WILSON / wilson (planner), SMITH / smith (supervisor)' : ''
    ].filter(Boolean).join('\n'), { url, database, structures, node: server.app.osprey.members.id });

    let stopping = false;
    const stop = async (signal: string) => {

        if (stopping) {
            return;
        }

        stopping = true;
        announce(format, `Osprey received ${signal}, draining requests`, { signal });
        await server.stop({ timeout: 10_000 });
        announce(format, 'Osprey stopped');
        process.exit(0);
    };

    process.on('SIGTERM', () => void stop('SIGTERM'));
    process.on('SIGINT', () => void stop('SIGINT'));
};

main().catch((err: Error) => {

    const debug = (settings?.logLevel ?? process.env.OSPREY_LOG) === 'debug';
    process.stderr.write(known.some((type) => err instanceof type) ? `${err.message}\n` : startFailure(err, settings?.databaseUrl, debug));
    process.exit(1);
});
