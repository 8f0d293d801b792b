import * as Path from 'node:path';

import * as Hapi from '@hapi/hapi';

import { databaseKind, sqliteFile } from '../src/db/knex';
import { loadRegistry } from '../src/load-registry';
import { attachmentRoutes } from './baseline-attachments';
import type { BaselineData } from './baseline-data';
import { renderer } from './baseline-json';
import { pgData } from './baseline-pg';
import { baselineRoutes } from './baseline-routes';
import { sqliteData } from './baseline-sqlite';
import { root } from './options';


// Baseline (b), the data-path ceiling: plain hapi routes running the scenario's SQL through the driver's
// prepared statements, with no authentication, no structure planning and no validation beyond the lookup.
const main = async () => {

    const url = process.env.DATABASE_URL!;
    const data: BaselineData = databaseKind(url) === 'sqlite' ? sqliteData(sqliteFile(url), process.env.OSPREY_SQLITE_SYNCHRONOUS ?? 'NORMAL') : pgData(url);
    const registry = loadRegistry(Path.join(root, 'structures'));
    const workorder = registry.get('MXAPIWODETAIL')!.root;
    const render = { workorder: renderer(registry, 'MXAPIWODETAIL'), asset: renderer(registry, 'MXAPIASSET'), task: renderer(registry, 'MXAPIWODETAIL', workorder.children.get('woactivity')!.object) };

    const server = Hapi.server({ port: Number(process.env.PORT), host: '127.0.0.1', debug: { request: ['error'] }, routes: { payload: { maxBytes: 10 * 1024 * 1024 } } });
    server.route(baselineRoutes(data, render, registry.get('MXAPIWODETAIL')!.def.statuses ?? {}));
    server.route(attachmentRoutes());
    await server.start();
    process.stdout.write(`baseline hapi + driver listening on ${server.info.uri}\n`);

    process.on('SIGTERM', () => {

        void server.stop().then(() => data.close()).then(() => process.exit(0));
    });
};

main().catch((err: Error) => {

    process.stderr.write(`${err.stack}\n`);
    process.exit(1);
});
