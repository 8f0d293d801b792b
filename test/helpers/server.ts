import * as Path from 'node:path';

import type * as Hapi from '@hapi/hapi';

import { validateOptions, type OspreyOptions } from '../../src/config';
import type { Logger } from '../../src/log/logger';
import { createServer } from '../../src/server';
import type { TestDatabase } from './databases';


export const root = Path.join(__dirname, '..', '..');
export const demoStructures = Path.join(root, 'structures');
export const fixtures = Path.join(root, 'test', 'fixtures', 'structures');

export interface TestServer {
    server: Hapi.Server;
    options: OspreyOptions;
    stop: () => Promise<void>;
    inject: (options: Hapi.ServerInjectOptions | string) => Promise<Hapi.ServerInjectResponse<any>>;
}

export const maxauth = (user: string, password: string) => ({ maxauth: Buffer.from(`${user}:${password}`).toString('base64') });
export const wilson = maxauth('wilson', 'wilson');
export const maxadmin = maxauth('maxadmin', 'maxadmin');

// A real server (not started: requests go through server.inject) on a fresh database of the given kind.
// `log`: where its events go (a logger writing to what the test reads); else none are written.
export const startTestServer = async (database: TestDatabase, settings: Partial<Record<keyof OspreyOptions, unknown>> & { databaseUrl?: string } = {}, log?: Logger): Promise<TestServer> => {

    const created = settings.databaseUrl ? { url: settings.databaseUrl, drop: () => Promise.resolve() } : await database.create();
    const options = validateOptions({ structures: demoStructures, demo: true, logLevel: 'silent', dataDir: Path.join(root, 'data', 'test'), heartbeatSeconds: 0.2, ...settings, databaseUrl: created.url });
    let server: Hapi.Server;
    try {
        server = await createServer({ options, ...log ? { log } : {} });
        await server.initialize();
    }
    catch (err) {
        await created.drop();
        throw err;
    }

    return {
        server,
        options,
        inject: (request) => server.inject(request),
        stop: async () => {

            await server.stop();
            await created.drop();
        }
    };
};
