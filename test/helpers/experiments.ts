import type * as Hapi from '@hapi/hapi';
import type * as Lab from '@hapi/lab';

import { testDatabases, type TestDatabase } from './databases';
import { copyFixture, removeCopy, type FixtureCopy } from './fixtures';
import { startTestServer, type TestServer } from './server';


type Settings = NonNullable<Parameters<typeof startTestServer>[1]>;

export interface OnEachDatabase {
    readonly settings?: Settings;                           // for startTestServer: the demo unless told otherwise
    readonly fixture?: FixtureCopy;                         // structures copied from a fixture folder, removed after the experiment
    readonly timeout?: number;                              // of the experiment
}

// Declares the experiment `${title} (${database name})` once per test database. Each starts its test server before its
// tests and stops it after them; define declares the tests and hooks, and reaches the running server through t.
export function onEachDatabase(lab: Lab.script.Script, title: string, define: (t: TestServer, database: TestDatabase) => void): void;
export function onEachDatabase(lab: Lab.script.Script, title: string, options: OnEachDatabase, define: (t: TestServer, database: TestDatabase) => void): void;
export function onEachDatabase(lab: Lab.script.Script, title: string, ...rest: [OnEachDatabase, (t: TestServer, database: TestDatabase) => void] | [(t: TestServer, database: TestDatabase) => void]): void {

    const [options, define] = rest.length === 2 ? rest : [{}, rest[0]];
    for (const database of testDatabases) {
        lab.experiment(`${title} (${database.name})`, options.timeout ? { timeout: options.timeout } : {}, () => {

            let current: TestServer | undefined;
            let structures: string | undefined;
            const running = (): TestServer => {

                if (!current) {
                    throw new Error(`the test server of "${title} (${database.name})" is not running`);
                }

                return current;
            };

            lab.before(async () => {

                structures = options.fixture ? copyFixture(options.fixture) : undefined;
                current = await startTestServer(database, { ...options.settings, ...(structures ? { structures } : {}) });
            });

            lab.after(async () => {

                await current?.stop();
                current = undefined;
                if (structures) {
                    removeCopy(structures);
                }
            });

            // Stands for the running server, so that the tests read as if they held it.
            const t: TestServer = {
                get server(): Hapi.Server {

                    return running().server;
                },
                get options() {

                    return running().options;
                },
                inject: (request) => running().inject(request),
                stop: () => running().stop()
            };

            define(t, database);
        });
    }
}
