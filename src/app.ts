import type * as Hapi from '@hapi/hapi';
import type { Knex } from 'knex';

import { registerBuiltInActions } from './actions/built-in';
import { registerUserRules } from './users/rules';
import { Actions } from './actions/registry';
import { Attachments } from './attachments/attachments';
import { engineWrites } from './actions/engine-writes';
import { checkDeclaredActions } from './actions/resolve';
import { ApiKeys, apiKeyObject } from './auth/api-keys';
import { stampCredentialChanges } from './auth/credential-stamp';
import { ospreyScheme } from './auth/scheme';
import { Sessions } from './auth/sessions';
import { Users } from './auth/users';
import { Members } from './cluster/members';
import type { OspreyOptions } from './config';
import { version, type Osprey } from './context';
import { poolDb } from './db/db';
import { checkpointsApart, defaultPages, fallbackPages, startCheckpoints, type Checkpointer } from './db/checkpoints';
import { createKnex, createReaderKnex, databaseKind, databaseVersion, sqliteFile, type DatabaseKind } from './db/knex';
import { migrate } from './db/migrate';
import { withMigrationLock } from './db/migration-lock';
import { learnRewrites } from './db/rewrites';
import { dropChangeNotices, sideConnected } from './db/pg-client';
import { analyzeAll, keepStatistics, optimizeStatistics } from './db/statistics';
import { createModels } from './db/models';
import { decorate } from './decorations';
import { ensureUsers } from './demo/users';
import { seedDemoData } from './demo/seed';
import { errorEdge } from './errors/edge';
import { demoExamples, features as firstParty } from './features';
import { parameterGate } from './http/parameters';
import { refuseUnservedStructures, unservedRoutes } from './http/unserved';
import { createLogger, requestLogging, type Logger } from './http/request-log';
import { logs } from './log/logger';
import { countStatements } from './log/statements';
import { requestEdge } from './http/request-edge';
import { loadRegistry } from './load-registry';
import { checkReportRenderers, ReportRenderers } from './reports/renderers';
import { checkComputedColumns } from './reports/computed-columns';
import { loadSecret } from './secret';
import { Properties } from './services/properties';
import { Services } from './services/registry';
import { purgeWhileRunning } from './housekeeping';
import { commitErrorsTo } from './write/after-commit';
import { AttributeWrites } from './write/attribute-writes';
import { purgeTransactionIds } from './write/apply/transaction-ids';
import { pluginName } from './user-plugins';
import { checkWorkflowActions, registerWorkflows } from './workflows/register';


export interface AppOptions {
    options: OspreyOptions;
    log?: Logger;
    /** The first-party feature plugins; all of them (src/features.ts) when not given, with the demo's example
     * plugins when `options.demo` is on. */
    features?: Hapi.Plugin<unknown>[];
    /**
     * User plugins, registered after the features; their routes are theirs, outside the parameter table. The module
     * paths of `options.plugins` are loaded by createServer (src/user-plugins.ts), not here.
     */
    plugins?: Hapi.Plugin<any>[];
}

// Whether a route was added by one of the named plugins, or by a plugin one of them registered.
const addedBy = (names: ReadonlySet<string | undefined>) => {

    return (route: Hapi.RequestRoute): boolean => {

        let realm: Hapi.ServerRealm | null = route.realm;
        while (realm) {
            if (realm.plugin !== undefined && names.has(realm.plugin)) {
                return true;
            }

            realm = realm.parent;
        }

        return false;
    };
};

// SQLite's checkpoints on a worker thread where they can be (db/checkpoints.ts); the writer connection then
// checkpoints by itself only past fallbackPages, and again as SQLite would should the worker end.
const checkpointApart = async (server: Hapi.Server, knex: Knex, options: OspreyOptions, kind: DatabaseKind, version: string): Promise<Checkpointer | undefined> => {

    const file = kind === 'sqlite' ? sqliteFile(options.databaseUrl) : undefined;
    if (file === undefined || !checkpointsApart(options, file, version)) {
        return undefined;
    }

    const pages = (count: number) => knex.raw(`pragma wal_autocheckpoint = ${count}`);
    const checkpoints = startCheckpoints(file, options.sqliteSynchronous, (message) => server.log(['error', 'checkpoint'], message), () => {

        server.log(['error', 'checkpoint'], `The checkpoint worker ended; the writer checkpoints by itself every ${defaultPages} pages.`);
        pages(defaultPages).catch((error: unknown) => server.log(['error', 'checkpoint'], error instanceof Error ? error.message : String(error)));
    });
    try {
        await pages(fallbackPages);
    }
    catch (error) {
        await checkpoints.stop();
        throw error;
    }

    return checkpoints;
};

// The application as a hapi plugin: it loads the structures, prepares the database, and then registers the
// feature plugins, then the user plugins. src/server.ts only composes it; tests compose it the same way.
export const app: Hapi.Plugin<AppOptions> = {
    name: 'osprey',
    version,
    register: async (server, { options, log = createLogger(options.logLevel, { format: options.logFormat }), features, plugins = [] }) => {

        const registry = loadRegistry(options.structures);
        const secret = loadSecret(options.secret, options.dataDir);
        const kind = databaseKind(options.databaseUrl);
        const knex = createKnex(options);
        const users = new Users(knex, registry.byObject(apiKeyObject)?.root.table);
        let dbVersion: string;
        let checkpoints: Checkpointer | undefined;
        try {
            // One node at a time: nodes started together on an empty database would each create the same tables
            // and seed the demo (migration-lock.ts).
            await withMigrationLock(options.databaseUrl, log, async () => {

                const changed = await migrate(knex, registry, kind, (summary) => log('info', { msg: 'schema migrated', ...summary }));
                if (!changed) {
                    log('info', { msg: 'schema up to date' });
                }

                await stampCredentialChanges(knex, kind, registry.byObject(apiKeyObject)?.root.table);
                await learnRewrites(knex, kind, [...new Set(registry.objects().map((object) => object.table))]);
                if (kind === 'postgresql') {
                    await dropChangeNotices(knex);
                    // The connection of the credential stamp's reads, up before the first request (pg-client.ts).
                    await sideConnected(knex);
                }

                const fresh = await ensureUsers(users, options);
                if (fresh && options.demo) {
                    const seeded = await seedDemoData(knex, registry);
                    await analyzeAll(knex);
                    log('info', { msg: 'demo data seeded', records: seeded });
                }
                else {
                    await optimizeStatistics(knex, kind);
                }
            });

            dbVersion = await databaseVersion(knex, kind);
            checkpoints = await checkpointApart(server, knex, options, kind, dbVersion);
        }
        catch (err) {
            await knex.destroy();
            throw err;
        }

        const reader = createReaderKnex(options, knex);
        const stopStatistics = keepStatistics(knex, kind, (error) => server.log(['error', 'statistics'], error instanceof Error ? error.message : String(error)));
        server.ext('onPostStop', async () => {

            stopStatistics();
            await checkpoints?.stop();
            await knex.destroy();
            if (reader !== knex) {
                await reader.destroy();
            }
        });
        const db = poolDb(reader);
        const osprey: Osprey = {
            options,
            secret,
            registry,
            knex,
            db,
            kind,
            deadlines: kind === 'sqlite' && options.sqliteDriver !== 'sqlite3' && options.statementTimeoutMs > 0,
            likeAny: kind === 'postgresql' || options.sqliteDriver !== 'sqlite3',
            databaseVersion: dbVersion,
            models: createModels(registry, knex),
            users,
            apiKeys: new ApiKeys(knex, registry, secret),
            sessions: new Sessions(knex, options.sessionMinutes, secret),
            members: new Members(knex, options.heartbeatSeconds, version, log),
            actions: new Actions(),
            reportRenderers: new ReportRenderers(),
            // A service routed as one Osprey does not provide (service/logging) answers 501 on its own route.
            services: new Services(new Set(unservedRoutes.flatMap((route) => (route.root ? [] : /^\/service\/([a-z0-9_.-]+)$/.exec(route.path)?.[1] ?? [])))),
            properties: new Properties(knex, db),
            attributeWrites: new AttributeWrites(engineWrites),
            log,
            attachments: new Attachments(knex, options, (message) => server.log(['error', 'attachments'], message)),
            started: new Date(),
            version,
            products: [{ name: 'Osprey', version, description: 'Open server for the Maximo REST/JSON API' }]
        };
        server.app.osprey = osprey;
        decorate(server);
        registerBuiltInActions(osprey.actions);
        registerUserRules(osprey);
        registerWorkflows(osprey.actions, registry);
        // Every plugin has registered its actions by then: a YAML action whose handler nobody registered stops the
        // start, and so does a workflow node that runs one.
        server.ext('onPreStart', () => {

            checkDeclaredActions(osprey.actions, registry);
            checkWorkflowActions(osprey.actions, registry);
        });
        // And a YAML report whose renderer nobody registered.
        server.ext('onPreStart', () => checkReportRenderers(osprey.reportRenderers, registry));
        // And a report that prints an attribute no plugin computes, or groups by one not computed in SQL.
        server.ext('onPreStart', () => checkComputedColumns(registry));

        server.auth.scheme('osprey', ospreyScheme);
        server.auth.strategy('osprey', 'osprey');
        server.auth.default('osprey');

        // A structure of a Maximo service Osprey does not provide is refused first (501), whatever is asked of it;
        // then parameters, headers and actions whose meaning is not carried out, before any handler runs.
        refuseUnservedStructures(server);
        parameterGate(server, addedBy(new Set(plugins.map(pluginName))));
        server.ext('onPreResponse', errorEdge);
        requestEdge(server);
        requestLogging(server, log, registry);
        if (logs(log, 'debug')) {
            countStatements(server, log, [knex, reader]);
        }


        // The write engine's housekeeping: an after-commit subscriber that fails is the server's to log (the write it
        // heard of stays committed), and transaction ids are forgotten after their retention.
        commitErrorsTo(osprey, (error) => server.log(['error', 'after-commit'], error instanceof Error ? { message: error.message, stack: error.stack } : String(error)));
        const retentionMs = options.transactionRetentionHours * 3600_000;
        purgeWhileRunning(server, retentionMs, () => purgeTransactionIds(knex, Date.now(), retentionMs));
        // The content of deleted documents and of uploads a stopped node left (src/attachments/sweep.ts).
        purgeWhileRunning(server, 3600_000, () => osprey.attachments.sweeper.soon());

        server.ext('onPreStart', () => osprey.members.join(`http://${options.host}:${options.port}/${options.contextRoot}`));
        server.ext('onPreStop', () => osprey.members.leave());

        // The demo's example plugins (src/features.ts) come with the first-party features, before the user plugins.
        for (const feature of features ?? [...firstParty(), ...(options.demo ? demoExamples(registry) : [])]) {
            await server.register(feature);
        }

        for (const plugin of plugins) {
            await server.register(plugin);
        }
    }
};
