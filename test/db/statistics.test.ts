import * as Fs from 'node:fs';
import * as Os from 'node:os';
import * as Path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';

import * as Code from '@hapi/code';
import * as Lab from '@hapi/lab';
import type { Knex } from 'knex';

import { createKnex } from '../../src/db/knex';
import { keepStatistics } from '../../src/db/statistics';


const { experiment, test } = exports.lab = Lab.script();
const { expect } = Code;

// SQLite's statistics are kept while the server runs (issue 19): PRAGMA optimize every so often analyzes a
// table that has none, or whose size changed much.
experiment('keeping SQLite statistics', () => {

    test('analyzes a table filled while the server runs, until stopped; failures are reported', async () => {

        const dir = Fs.mkdtempSync(Path.join(Os.tmpdir(), 'osprey-statistics-'));
        const knex = createKnex({ databaseUrl: `sqlite:${Path.join(dir, 'db.sqlite')}` });
        const errors: unknown[] = [];
        try {
            await knex.raw('create table t (a integer, b text)');
            await knex.raw('create index t_b on t (b)');
            const stop = keepStatistics(knex, 'sqlite', (error) => errors.push(error), 20);
            await knex('t').insert(Array.from({ length: 200 }, (_, i) => ({ a: i, b: `x${i % 7}` })));
            const analyzed = async () => (await knex.raw('select name from sqlite_master where name = \'sqlite_stat1\'') as unknown[]).length && await knex.raw('select tbl from sqlite_stat1') as { tbl: string }[];
            for (let i = 0; i < 100 && !await analyzed(); ++i) {
                await sleep(20);
            }

            expect(await analyzed()).to.equal([{ tbl: 't' }]);
            stop();
            await knex.raw('delete from sqlite_stat1');
            await sleep(100);
            expect(await analyzed()).to.equal([]);
            expect(errors).to.equal([]);

            // A failure (here: the connection is gone) goes to onError, and the timer goes on.
            const failing = keepStatistics(knex, 'sqlite', (error) => errors.push(error), 10);
            await knex.destroy();
            for (let i = 0; i < 100 && errors.length < 2; ++i) {
                await sleep(10);
            }

            failing();
            expect(errors.length).to.be.at.least(2);
        }
        finally {
            await knex.destroy();
            Fs.rmSync(dir, { recursive: true, force: true });
        }
    });

    test('leaves PostgreSQL to autovacuum', () => {

        const untouched = new Proxy({}, { get: () => {

            throw new Error('PostgreSQL statistics are not Osprey\'s to keep');
        } }) as Knex;
        keepStatistics(untouched, 'postgresql', () => undefined, 1)();
    });
});
