import * as Code from '@hapi/code';
import * as Lab from '@hapi/lab';

import { createKnex } from '../../src/db/knex';
import { migrate } from '../../src/db/migrate';
import { dropChangeNotices } from '../../src/db/pg-client';
import { loadRegistry } from '../../src/load-registry';
import { testDatabases } from '../helpers/databases';
import { startTestServer } from '../helpers/server';


const { experiment, test } = exports.lab = Lab.script();
const { expect } = Code;


for (const database of testDatabases) {
    experiment(`a migrated database (${database.name})`, () => {

        test('is only read by the next node\'s migration: no statement that writes or locks a table', async () => {

            const created = await database.create();
            try {
                const first = await startTestServer(database, { demo: false, adminUser: 'boss', adminPassword: 'boss-password', databaseUrl: created.url });
                const { options, server } = first;
                await server.stop();

                // Another node's start, on its own connections.
                const knex = createKnex(options);
                const statements: string[] = [];
                let migrated: boolean | void;
                knex.on('query', (query: { sql: string }) => statements.push(query.sql));
                try {
                    const registry = loadRegistry(options.structures);
                    migrated = await migrate(knex, registry, database.name);
                    if (database.name === 'postgresql') {
                        await dropChangeNotices(knex);
                    }
                }
                finally {
                    await knex.destroy();
                }

                expect(statements.length).to.be.above(0);
                expect(statements.filter((sql) => !/^\s*(select|pragma)\b/i.test(sql))).to.equal([]);
                expect(migrated).to.be.false();
            }
            finally {
                await created.drop();
            }
        });
    });
}
