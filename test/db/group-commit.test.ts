import * as Fs from 'node:fs';
import * as Os from 'node:os';
import * as Path from 'node:path';

import * as Code from '@hapi/code';
import * as Lab from '@hapi/lab';
import type { Knex } from 'knex';

import { clientOf, type Db } from '../../src/db/db';
import { maxGroup } from '../../src/db/group-commit';
import { createKnex } from '../../src/db/knex';
import { transaction } from '../../src/db/transaction';


const { experiment, test, before, after, beforeEach } = exports.lab = Lab.script();
const { expect } = Code;

// Group commit on SQLite's writer (src/db/group-commit.ts): the transactions that queue while one runs share one
// COMMIT, each in a savepoint of its own, each answered only after that COMMIT.
experiment('group commit', () => {

    let dir: string;
    let knex: Knex;
    const statements: string[] = [];

    before(async () => {

        dir = Fs.mkdtempSync(Path.join(Os.tmpdir(), 'osprey-group-'));
        knex = createKnex({ databaseUrl: `sqlite:${Path.join(dir, 'db.sqlite')}` });
        await knex.raw('create table parent (id integer primary key)');
        await knex.raw('create table t (name text primary key, parent integer references parent (id) deferrable initially deferred)');
        const client = clientOf(knex);
        const query = client._query.bind(client);
        client._query = (connection, obj) => (statements.push(obj.sql), query(connection, obj));
    });

    after(async () => {

        await knex.destroy();
        Fs.rmSync(dir, { recursive: true, force: true });
    });

    beforeEach(async () => {

        await knex('t').delete();
        statements.length = 0;
    });

    // The writes of these tests are short ones, which may share a COMMIT.
    const grouped = <T>(work: (db: Db) => Promise<T>) => transaction(knex, work, { grouped: true });

    const names = async () => (await knex('t').orderBy('name').select('name') as { name: string }[]).map((row) => row.name);
    const insert = (name: string, parent?: number) => {

        return (db: Db) => db.rows('insert into t (name, parent) values (?, ?)', [name, parent ?? null]);
    };

    const settle = (promises: Promise<unknown>[]) => Promise.all(promises.map((promise) => promise.then(() => 'ok', (error: Error) => error.message)));

    test('writes that queue share a COMMIT, at most maxGroup of them, and each is answered after it', async () => {

        const answered: string[] = [];
        const writes = Array.from({ length: 40 }, (_, i) => grouped(insert(`w${String(i).padStart(2, '0')}`)).then(() => answered.push(statements.filter((sql) => sql === 'COMMIT').length ? 'after' : 'before')));
        await Promise.all(writes);
        expect(await names()).to.have.length(40);
        expect(answered.every((when) => when === 'after')).to.be.true();
        // All 40 queue before the first group begins (it lets the event loop turn once): groups of up to maxGroup,
        // each ended early if it has been open groupMs.
        const commits = statements.filter((sql) => sql === 'COMMIT').length;
        expect(commits).to.be.within(Math.ceil(40 / maxGroup), 10);
        expect(statements.filter((sql) => sql === 'SAVEPOINT osprey_write').length).to.equal(40);
    });

    test('a write that fails rolls back to its savepoint; the others of its group are committed', async () => {

        const outcomes = await settle([
            grouped(insert('a')),
            grouped(async (db) => {

                await insert('b')(db);
                throw new Error('refused');
            }),
            grouped(insert('a')),
            grouped(insert('c'))
        ]);
        expect(outcomes).to.equal(['ok', 'refused', 'UNIQUE constraint failed: t.name', 'ok']);
        expect(await names()).to.equal(['a', 'c']);
        expect(statements.filter((sql) => sql === 'COMMIT')).to.equal(['COMMIT']);
    });

    test('a failure that ends the transaction runs the writes that had succeeded in it again', async () => {

        const runs: Record<string, number> = {};
        const counted = (name: string) => {

            return (db: Db) => ((runs[name] = (runs[name] ?? 0) + 1), insert(name)(db));
        };

        const outcomes = await settle([
            grouped(counted('a')),
            grouped(async (db) => {

                await db.rows('rollback');
                throw new Error('the transaction is gone');
            }),
            grouped(counted('c'))
        ]);
        expect(outcomes).to.equal(['ok', 'the transaction is gone', 'ok']);
        expect(await names()).to.equal(['a', 'c']);
        expect(runs).to.equal({ a: 2, c: 1 });
    });

    test('a COMMIT that fails fails every write of its group, and writes nothing of it', async () => {

        await grouped(insert('first'));
        const outcomes = await settle([
            grouped(insert('a')),
            grouped(insert('orphan', 42)),
            grouped(() => Promise.reject(new Error('own error')))
        ]);
        expect(outcomes).to.equal(['FOREIGN KEY constraint failed', 'FOREIGN KEY constraint failed', 'own error']);
        expect(await names()).to.equal(['first']);
        // The writer goes on.
        await grouped(insert('later'));
        expect(await names()).to.equal(['first', 'later']);
    });

    test('a transaction not marked short runs alone, between groups', async () => {

        await Promise.all([grouped(insert('a')), transaction(knex, insert('alone')), grouped(insert('b')), grouped(insert('c'))]);
        expect(await names()).to.equal(['a', 'alone', 'b', 'c']);
        const begins = statements.filter((sql) => /^(BEGIN|COMMIT)/.test(sql));
        expect(begins).to.equal(['BEGIN IMMEDIATE', 'COMMIT', 'BEGIN IMMEDIATE', 'COMMIT', 'BEGIN IMMEDIATE', 'COMMIT']);
    });

    test('a write\'s db refuses statements once its savepoint ended', async () => {

        let kept: Db | undefined;
        await Promise.all([grouped(insert('first')), grouped(async (db) => {

            kept = db;
            await insert('kept')(db);
        }), grouped(insert('next'))]);
        await expect(kept!.rows('select 1')).to.reject(/transaction has ended/);
    });
});
