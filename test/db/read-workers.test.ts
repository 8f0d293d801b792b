import * as Fs from 'node:fs';
import * as Os from 'node:os';
import * as Path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';

import * as Code from '@hapi/code';
import * as Lab from '@hapi/lab';
import type { Knex } from 'knex';

import { poolDb } from '../../src/db/db';
import { createKnex, createReaderKnex } from '../../src/db/knex';
import { Together } from '../../src/db/read-workers';
import { readWorkersOf } from '../../src/db/sqlite-client';
import { StatementTimeout } from '../../src/db/sqlite-deadline';


const { experiment, test } = exports.lab = Lab.script();
const { expect } = Code;

// The read workers of a SQLite file (src/db/read-workers.ts): SQLite only, since PostgreSQL runs statements on
// its server and cancels them itself. Nothing is timed: the statements that must outlast their deadline count
// 3 million rows, a second or more on any machine, far past the 100 ms they are given.

const counting = (n: number) => `with recursive c(x) as (select 1 union all select x + 1 from c where x < ${n}) select count(*) as "n" from c`;
// A plain statement: it never calls JavaScript, so only the main thread can end it (its thread, abandoned, ends
// with it).
const plain = counting(3_000_000);
// One that calls lower() per row: its worker ends it at the deadline.
const folding = `${plain} where lower('X' || x) like 'x%'`;
const client = { shapes: 'client' } as const;

experiment('SQLite read workers', () => {

    const withFiles = async (timeoutMs: number, work: (files: { writer: Knex; reader: Knex }) => Promise<void>) => {

        const dir = Fs.mkdtempSync(Path.join(Os.tmpdir(), 'osprey-read-workers-'));
        const options = { databaseUrl: `sqlite:${Path.join(dir, 'r.sqlite')}`, statementTimeoutMs: timeoutMs };
        const writer = createKnex(options);
        const reader = createReaderKnex(options, writer);
        try {
            await writer.schema.createTable('thing', (t) => {

                t.increments('id');
                t.string('name');
            });
            await writer('thing').insert([{ name: 'a' }, { name: 'b' }]);
            await work({ writer, reader });
        }
        finally {
            await reader.destroy();
            await writer.destroy();
            Fs.rmSync(dir, { recursive: true, force: true });
        }
    };

    const replaced = async (reader: Knex, count: number) => {

        while (readWorkersOf(reader.client)!.replaced < count) {
            await sleep(10);
        }
    };

    test('end a plain statement at its deadline, replace its worker, and go on reading', { timeout: 30_000 }, async () => {

        await withFiles(100, async ({ reader }) => {

            const db = poolDb(reader);
            expect(await db.rows('select count(*) as "n" from "thing"', [], client)).to.equal([{ n: 2 }]);
            const before = readWorkersOf(reader.client)!.threadIds;
            await expect(db.rows(plain, [], client)).to.reject(StatementTimeout, /OSPREY_STATEMENT_TIMEOUT_MS/);
            await replaced(reader, 1);
            const after = readWorkersOf(reader.client)!.threadIds;
            expect(after).to.have.length(2);
            expect(after.filter((id) => !before.includes(id))).to.have.length(1);
            const answers = await Promise.all(Array.from({ length: 8 }, (_, i) => db.rows('select "name" from "thing" where "id" = ?', [1 + i % 2], client)));
            expect(answers.map((rows) => rows[0]!.name)).to.equal(['a', 'b', 'a', 'b', 'a', 'b', 'a', 'b']);
            // The statements that call JavaScript end at the deadline too, and a knex builder's statement is a
            // client's shape like any.
            await expect(db.rows(folding, [], client)).to.reject(StatementTimeout);
            await expect(reader.raw(plain)).to.reject(StatementTimeout);
            expect(await reader('thing').count({ n: '*' })).to.equal([{ n: 2 }]);
        });
    });

    test('hand back every value as a read on the event loop gives it, whether its rows cross as JSON or not', async () => {

        await withFiles(0, async ({ writer, reader }) => {

            const db = poolDb(reader);
            // Text JSON spells (quotes, a lone surrogate, beyond the BMP), numbers, null; then values it does not
            // spell exactly (a blob, -0, an infinity), which send the rows as they are.
            const spelled = 'select \'a "b"\' || char(10) as "t", char(55296) as "s", \'東京 🚀\' as "u", 12.5 as "r", 9007199254740991 as "i", null as "z"';
            const unspelled = `${spelled}, x'00ff' as "b", -0.0 as "m", 1e999 as "inf"`;
            for (const sql of [spelled, unspelled]) {
                const direct = await writer.raw(sql) as Record<string, unknown>[];
                const rows = await db.rows(sql, [], client);
                expect(rows).to.equal(direct);
                expect(Object.keys(rows[0]!)).to.equal(Object.keys(direct[0]!));
            }

            const [row] = await db.rows(unspelled, [], client);
            expect(Buffer.isBuffer(row!.b)).to.be.true();
            expect(Object.is(row!.m, -0)).to.be.true();
            expect(row!.inf).to.equal(Infinity);
        });
    });

    test('answer a short read while another worker holds a long one', { timeout: 30_000 }, async () => {

        await withFiles(0, async ({ reader }) => {

            const db = poolDb(reader);
            const seen: string[] = [];
            const long = db.rows(plain, [], client).then((answer) => seen.push(`long ${String(answer[0]!.n)}`));
            expect(await db.rows('select "name" from "thing" where "id" = ?', [2], client)).to.equal([{ name: 'b' }]);
            seen.push('short');
            // A point read (a shape Osprey made) runs on the event loop, beside both.
            expect(await db.rows('select "name" from "thing" where "id" = ?', [1])).to.equal([{ name: 'a' }]);
            seen.push('point');
            expect(seen).to.equal(['short', 'point']);
            await long;
            expect(seen).to.equal(['short', 'point', 'long 3000000']);
        });
    });

    test('run statements asked for together in one read transaction, and see a commit made just before', async () => {

        await withFiles(1000, async ({ writer, reader }) => {

            const db = poolDb(reader);
            for (let i = 0; i < 5; ++i) {
                await writer('thing').insert({ name: `c${i}` });
                const together = new Together(2);
                const [count, rows] = await Promise.all([
                    db.rows('select count(*) as "n" from "thing"', [], { ...client, together }),
                    db.rows('select "name" from "thing" order by "id" desc limit 1', [], { ...client, together })
                ]);
                expect(count).to.equal([{ n: 3 + i }]);
                expect(rows).to.equal([{ name: `c${i}` }]);
            }

            // A failing statement fails both, and the worker goes on.
            const together = new Together(2);
            const both = await Promise.allSettled([db.rows('select nothing from "thing"', [], { ...client, together }), db.rows('select 1 as "one"', [], { ...client, together })]);
            expect(both.map((each) => each.status)).to.equal(['rejected', 'rejected']);
            expect(await db.rows('select 1 as "one"', [], client)).to.equal([{ one: 1 }]);
            // The readers cannot write, on a worker either.
            await expect(db.rows('insert into "thing" ("name") values (?)', ['never'], client)).to.reject(/readonly/);
            expect(await writer('thing').count({ n: '*' })).to.equal([{ n: 7 }]);
        });
    });

    test('run a statement the workers found cheap three times in a row on the event loop, and any other on them', async () => {

        await withFiles(1000, async ({ writer, reader }) => {

            const db = poolDb(reader);
            expect(await db.rows('select 1 as "one"', [], client)).to.equal([{ one: 1 }]);
            const workers = readWorkersOf(reader.client)!;
            const run = workers.run.bind(workers);
            const sent: string[] = [];
            workers.run = (statements) => (sent.push(...statements.map((statement) => String(statement.bindings[0]))), run(statements));
            const name = async (id: number) => (await db.rows('select "name" from "thing" where "id" = ?', [id], client))[0]?.name;
            for (let i = 0; i < 5; ++i) {
                expect(await name(1)).to.equal('a');
            }

            expect(await name(2)).to.equal('b');
            // The same statement with other bindings is another read: the workers run it first.
            expect(sent).to.equal(['1', '1', '1', '2']);
            // On the event loop it still reads the last commit.
            await writer('thing').where({ id: 1 }).update({ name: 'z' });
            expect(await name(1)).to.equal('z');
            expect(sent).to.have.length(4);
        });
    });

    test('stop with the knex: a read after fails', async () => {

        let closed: Knex | undefined;
        await withFiles(1000, async ({ reader }) => {

            expect(await poolDb(reader).rows('select 1 as "one"', [], client)).to.equal([{ one: 1 }]);
            closed = reader;
        });
        await expect(poolDb(closed!).rows('select 1 as "one"', [], client)).to.reject(/destroyed/);
        expect(readWorkersOf(closed!.client)).to.not.exist();
    });
});
