import * as Fs from 'node:fs';
import * as Os from 'node:os';
import * as Path from 'node:path';

import * as Code from '@hapi/code';
import * as Lab from '@hapi/lab';

import { validateOptions } from '../../src/config';
import { createKnex } from '../../src/db/knex';
import { GenerateError, generateData, readGenerated } from '../../src/demo/generate-data';
import { knexWriter } from '../../src/demo/row-writers';
import { demoStructures } from '../helpers/server';


const { experiment, test } = exports.lab = Lab.script();
const { expect } = Code;

// demo:generate (src/demo/generate-data.ts): the data of a size once per database, and its writers.
experiment('generated data', () => {

    const scratch = () => {

        const dir = Fs.mkdtempSync(Path.join(Os.tmpdir(), 'osprey-generate-'));
        return { url: `sqlite:${Path.join(dir, 'db.sqlite')}`, remove: () => Fs.rmSync(dir, { recursive: true, force: true }) };
    };

    test('is generated once per size, refused at another size and into a database that holds records', async () => {

        const { url, remove } = scratch();
        try {
            const options = validateOptions({ structures: demoStructures, databaseUrl: url, demo: true, logLevel: 'silent' });
            const size = { assets: 40, workorders: 90 };
            const first = await generateData(options, size);
            expect(first.reused).to.be.false();
            expect(first.rows.workorder).to.equal(90);
            const again = await generateData(options, size);
            expect(again).to.equal({ ...first, reused: true });
            await expect(generateData(options, { assets: 40, workorders: 91 })).to.reject(GenerateError, /another size \(40 assets, 90 work orders\)/);

            // Without the marker the rows are still there: another generation would mix with them.
            const knex = createKnex({ databaseUrl: url });
            try {
                await knex('osprey_setting').where({ name: 'osprey.generated' }).delete();
                expect(await readGenerated(knex)).to.be.undefined();
            }
            finally {
                await knex.destroy();
            }

            await expect(generateData(options, size)).to.reject(GenerateError, /already holds records \(table asset\)/);
        }
        finally {
            remove();
        }
    });

    test('the knex writer (PostgreSQL\'s) writes rows in batches of about 30,000 values in one transaction, or none', async () => {

        // A hundred columns make a batch 300 rows, which SQLite's compound SELECT (knex's multi-row insert there) takes.
        const { url, remove } = scratch();
        const knex = createKnex({ databaseUrl: url });
        const columns = Array.from({ length: 100 }, (_, i) => `c${i}`);
        const row = (n: number) => Object.fromEntries(columns.map((column) => [column, n]));
        try {
            expect(await readGenerated(knex)).to.be.undefined();
            await knex.schema.createTable('t', (table) => columns.forEach((column) => table.integer(column)));
            const writer = await knexWriter(knex);
            let flushes = 0;
            for (let i = 0; i < 700; ++i) {
                const pending = writer.add('t', row(i));
                if (pending) {
                    ++flushes;
                    await pending;
                }
            }

            await writer.close();
            expect(flushes).to.equal(2);
            expect(await knex('t').count({ n: '*' })).to.equal([{ n: 700 }]);

            const failing = await knexWriter(knex);
            failing.add('t', row(-1));
            failing.add('missing', { c0: 1 });
            await expect(failing.close()).to.reject(/missing/);
            expect(await knex('t').where({ c0: -1 }).count({ n: '*' })).to.equal([{ n: 0 }]);
        }
        finally {
            await knex.destroy();
            remove();
        }
    });
});
