import * as Fs from 'node:fs';
import * as Os from 'node:os';
import * as Path from 'node:path';

import * as Code from '@hapi/code';
import * as Lab from '@hapi/lab';
import type { Knex } from 'knex';

import { clientOf, poolDb } from '../../src/db/db';
import { createKnex, createReaderKnex } from '../../src/db/knex';


const { experiment, test } = exports.lab = Lab.script();
const { expect } = Code;

// The read-only connections beside SQLite's writer (src/db/knex.ts) lend one connection to reads without the
// pool (src/db/sqlite-client.ts directConnection). SQLite files only: PostgreSQL's reads share the writer's pool.
experiment('SQLite readers', () => {

    // A SQLite file with its writer and readers, as the server makes them; both closed and the file removed after
    // `work`, which may add checks on the closed readers (`closed`).
    type Files = { options: { databaseUrl: string }; writer: Knex; reader: Knex };
    const withFiles = async (work: (files: Files) => Promise<void>, closed: (reader: Knex) => Promise<void> = () => Promise.resolve()) => {

        const dir = Fs.mkdtempSync(Path.join(Os.tmpdir(), 'osprey-readers-'));
        const options = { databaseUrl: `sqlite:${Path.join(dir, 'r.sqlite')}` };
        const writer = createKnex(options);
        const reader = createReaderKnex(options, writer);
        try {
            await work({ options, writer, reader });
        }
        finally {
            await reader.destroy();
            await writer.destroy();
        }

        try {
            await closed(reader);
        }
        finally {
            Fs.rmSync(dir, { recursive: true, force: true });
        }
    };

    test('lend no connection before the pool has set it up, nor one a transaction holds open', async () => {

        await withFiles(async ({ options, writer, reader }) => {

            await writer.schema.createTable('thing', (t) => t.increments('id'));
            await writer('thing').insert({});
            const db = poolDb(reader);

            // Reads that start a few turns apart while the first connections are being made: each gets the
            // functions knex's afterCreate registers (Osprey's lower() folds beyond ASCII).
            const turns = async (n: number) => {

                for (let i = 0; i < n; ++i) {
                    await Promise.resolve();
                }
            };

            const folded = await Promise.all(Array.from({ length: 40 }, async (_, i) => {

                await turns(i);
                return (await db.rows('select lower(?) as "v"', ['Ü']))[0]!.v;
            }));
            expect(new Set(folded)).to.equal(new Set(['ü']));

            // A read transaction on readers that have one connection, the lent one: it keeps its snapshot, and
            // reads beside it (on a connection of their own) see the writer's commit.
            const single = createReaderKnex(options, writer);
            try {
                const beside = poolDb(single);
                expect((await beside.rows('select count(*) as "n" from "thing"'))[0]!.n).to.equal(1);
                await single.transaction(async (trx) => {

                    expect((await trx('thing').count({ n: '*' }))[0]!.n).to.equal(1);
                    await writer('thing').insert({});
                    for (let i = 0; i < 5; ++i) {
                        expect((await beside.rows('select count(*) as "n" from "thing"'))[0]!.n).to.equal(2);
                    }

                    expect((await trx('thing').count({ n: '*' }))[0]!.n).to.equal(1);
                });
            }
            finally {
                await single.destroy();
            }
        });
    });

    test('read without the pool after the first, never see a write before its commit, and close with the knex', async () => {

        await withFiles(async ({ writer, reader }) => {

            await writer.schema.createTable('thing', (t) => {

                t.increments('id');
                t.string('name');
            });
            await writer('thing').insert({ name: 'a' });

            const client = clientOf(reader);
            const acquire = client.acquireConnection.bind(client);
            let acquired = 0;
            client.acquireConnection = () => (++acquired, acquire());
            const db = poolDb(reader);
            const count = async () => (await db.rows('select count(*) as "n" from "thing"'))[0]!.n;
            expect(await Promise.all([count(), count(), count()])).to.equal([1, 1, 1]);
            const first = acquired;
            expect(first).to.be.between(0, 4);
            for (let i = 0; i < 20; ++i) {
                expect(await count()).to.equal(1);
            }

            expect(acquired).to.equal(first);

            // A write transaction open on the writer: the reader, lent outside the pool, reads the last commit.
            await writer.transaction(async (trx) => {

                await trx('thing').insert({ name: 'b' });
                expect(await count()).to.equal(1);
            });
            expect(await count()).to.equal(2);
        }, async (reader) => {

            // Once destroyed, the lent connection is closed with the others: a read fails.
            await expect(poolDb(reader).rows('select 1')).to.reject();
        });
    });

    test('run the reads asked for in one turn of the event loop together at its end, and a read asked for then in the next turn', async () => {

        await withFiles(async ({ writer, reader }) => {

            await writer.schema.createTable('thing', (t) => {

                t.increments('id');
                t.string('name');
            });
            await writer('thing').insert([{ name: 'a' }, { name: 'b' }]);
            const db = poolDb(reader);
            await db.rows('select 1');

            const client = clientOf(reader);
            const query = client._query.bind(client);
            const seen: string[] = [];
            client._query = (connection, obj) => (seen.push(`statement ${String(obj.bindings[0])}`), query(connection, obj));
            const read = async (name: string) => {

                const rows = await db.rows('select "id" from "thing" where "name" = ?', [name]);
                seen.push(`answer ${name}`);
                return rows.map((row) => row.id);
            };

            setImmediate(() => seen.push('turn ends'));
            const answers = await Promise.all([read('a').then(async (a) => [a, await read('b')]), read('b')]);
            expect(answers).to.equal([[[1], [2]], [2]]);
            expect(seen).to.equal(['turn ends', 'statement a', 'statement b', 'answer a', 'answer b', 'statement b', 'answer b']);
        });
    });

    test('answer a read through the pool (an in-memory file, PostgreSQL, the sqlite3 driver) at the end of the turn its statement ran in', async () => {

        const knex = createKnex({ databaseUrl: 'sqlite::memory:' });
        try {
            const db = poolDb(knex);
            expect(await db.rows('select 1 as "one"')).to.equal([{ one: 1 }]);
            const seen: string[] = [];
            const client = clientOf(knex);
            const query = client._query.bind(client);
            client._query = (connection, obj) => (seen.push('statement'), query(connection, obj));
            const answer = db.rows('select 2 as "two"').then((rows) => seen.push(`answer ${String(rows[0]!.two)}`));
            setImmediate(() => seen.push('turn ends'));
            await answer;
            expect(seen).to.equal(['statement', 'turn ends', 'answer 2']);
        }
        finally {
            await knex.destroy();
        }
    });
});
