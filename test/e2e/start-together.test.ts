import * as Http from 'node:http';

import * as Code from '@hapi/code';
import * as Lab from '@hapi/lab';
import Knex from 'knex';

import { demoRows } from '../../src/demo/seed';
import { testDatabases } from '../helpers/databases';
import { dataDir, startProcess, type RunningServer } from '../helpers/process';


const { experiment, test } = exports.lab = Lab.script();
const { expect } = Code;


const health = (port: number): Promise<number> => new Promise((resolve, reject) => {


    Http.get({ host: '127.0.0.1', port, path: '/maximo/health' }, (res) => {

        res.resume();
        res.on('end', () => resolve(res.statusCode!));
    }).on('error', reject);
});

const count = async (knex: Knex.Knex, table: string) => Number((await knex(table).count({ n: '*' }))[0]!.n);

for (const database of testDatabases) {
    experiment(`nodes started together (${database.name})`, { timeout: 120_000 }, () => {

        test('three processes started at the same moment on one empty database all come up, and the demo is seeded once', async () => {

            const created = await database.create();
            const dir = dataDir();
            // The same moment: the three are spawned before any of them is waited for.
            const starts = await Promise.allSettled([0, 1, 2].map(() => startProcess({ DATABASE_URL: created.url, OSPREY_DATA: dir, OSPREY_LOG: 'info' })));
            const running = starts.flatMap((start) => (start.status === 'fulfilled' ? [start.value] : []));
            const knex = Knex(database.name === 'sqlite' ? { client: 'better-sqlite3', connection: { filename: created.url.slice('sqlite:'.length) }, useNullAsDefault: true } : { client: 'pg', connection: created.url });
            try {
                const failures = starts.flatMap((start) => (start.status === 'rejected' ? [String(start.reason)] : []));
                expect(failures).to.equal([]);
                expect(await Promise.all(running.map((node) => health(node.port)))).to.equal([200, 200, 200]);

                const outputs = running.map((node: RunningServer) => node.output());
                outputs.forEach((output) => expect(output).to.contain('"msg":"migration lock taken"'));
                expect(outputs.filter((output) => output.includes('"msg":"demo data seeded"'))).to.have.length(1);
                // The nodes after the first find the schema made and change nothing.
                expect(outputs.filter((output) => output.includes('"msg":"schema up to date"'))).to.have.length(2);

                const rows = demoRows();
                for (const table of ['person', 'locations', 'asset', 'workorder', 'wostatus']) {
                    expect(await count(knex, table), table).to.equal(rows[table]!.length);
                }

                expect(await knex('osprey_user').orderBy('userid').pluck('userid')).to.equal(['MAXADMIN', 'SMITH', 'WILSON']);
            }
            finally {
                await knex.destroy();
                await Promise.all(running.map((node) => node.stop()));
                await created.drop();
            }
        });
    });
}
