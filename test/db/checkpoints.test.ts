import * as Fs from 'node:fs';
import * as Os from 'node:os';
import * as Path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';

import * as Code from '@hapi/code';
import * as Lab from '@hapi/lab';
import Database from 'better-sqlite3';

import { checkpointsApart, fallbackPages, startCheckpoints } from '../../src/db/checkpoints';
import { sqliteFile } from '../../src/db/knex';
import { testDatabases } from '../helpers/databases';
import { maxadmin, startTestServer } from '../helpers/server';


const { experiment, test } = exports.lab = Lab.script();
const { expect } = Code;

const sqlite = testDatabases.find((database) => database.name === 'sqlite')!;

// The WAL's frames and how many of them were copied back into the database file, asked without checkpointing
// (NOOP, SQLite 3.51+; the first test shows this build's NOOP copies nothing).
const walState = (file: string) => {

    const db = new Database(file);
    try {
        return (db.pragma('wal_checkpoint(NOOP)') as { log: number; checkpointed: number }[])[0]!;
    }
    finally {
        db.close();
    }
};

experiment('checkpoints on a worker thread (db/checkpoints.ts)', () => {

    test('NOOP asks without copying', () => {

        const dir = Fs.mkdtempSync(Path.join(Os.tmpdir(), 'osprey-checkpoints-'));
        try {
            const file = Path.join(dir, 'noop.sqlite');
            const db = new Database(file);
            db.pragma('journal_mode = WAL');
            db.pragma('wal_autocheckpoint = 0');
            db.exec('create table t (a); insert into t values (1)');
            const before = walState(file);
            expect(before.log).to.be.above(0);
            expect(before.checkpointed).to.equal(0);
            db.pragma('wal_checkpoint(PASSIVE)');
            expect(walState(file)).to.equal({ ...before, checkpointed: before.log });
            db.close();
        }
        finally {
            Fs.rmSync(dir, { recursive: true, force: true });
        }
    });

    test('the server\'s writer leaves checkpoints to the worker, which copies the WAL back into the database file', { timeout: 30_000 }, async () => {

        const t = await startTestServer(sqlite);
        try {
            const file = sqliteFile(t.options.databaseUrl);
            const writer = await (t.server.app.osprey.knex as import('knex').Knex).raw('pragma wal_autocheckpoint') as { wal_autocheckpoint: number }[];
            expect(writer[0]!.wal_autocheckpoint).to.equal(fallbackPages);
            const post = await t.inject({ method: 'POST', url: '/maximo/oslc/os/mxapiwodetail', headers: maxadmin, payload: { siteid: 'BEDFORD', description: 'Checkpoints' } });
            const path = new URL(post.headers.location as string).pathname;
            const patch = async (i: number) => expect((await t.inject({ method: 'PATCH', url: path, headers: maxadmin, payload: { description: `Checkpoints ${i}` } })).statusCode).to.equal(204);
            for (let i = 0; i < 50; ++i) {
                await patch(i);
            }

            // Without the worker the writer would not checkpoint these frames before fallbackPages of them.
            let state = walState(file);
            expect(state.log).to.be.above(0);
            for (let i = 0; i < 50 && state.checkpointed < state.log; ++i) {
                await sleep(100);
                state = walState(file);
            }

            expect(state.checkpointed).to.equal(state.log);
        }
        finally {
            await t.stop();
        }
    });

    test('only better-sqlite3 on a file, with a SQLite past the WAL-reset race (3.51.3), checkpoints apart', () => {

        const options = { databaseUrl: 'sqlite:x.sqlite' };
        expect(checkpointsApart(options, 'x.sqlite', '3.53.2')).to.be.true();
        expect(checkpointsApart(options, 'x.sqlite', '3.51.3')).to.be.true();
        expect(checkpointsApart(options, 'x.sqlite', '3.51.2')).to.be.false();
        expect(checkpointsApart(options, 'x.sqlite', '3.45.10')).to.be.false();
        expect(checkpointsApart(options, 'x.sqlite', '4.0')).to.be.true();
        expect(checkpointsApart(options, ':memory:', '3.53.2')).to.be.false();
        expect(checkpointsApart({ ...options, sqliteDriver: 'sqlite3' }, 'x.sqlite', '3.53.2')).to.be.false();
    });

    test('a worker that cannot open the file is reported, and stop ends the worker', async () => {

        const dir = Fs.mkdtempSync(Path.join(Os.tmpdir(), 'osprey-checkpoints-'));
        try {
            const heard: string[] = [];
            let ended = 0;
            const checkpoints = startCheckpoints(Path.join(dir, 'missing', 'no.sqlite'), 'NORMAL', (message) => heard.push(message), () => ++ended);
            for (let i = 0; i < 100 && !ended; ++i) {
                await sleep(20);
            }

            await checkpoints.stop();
            expect(heard.join('\n')).to.match(/unable to open|directory does not exist/i);
            expect(ended).to.equal(1);
            // A worker stopped by the server is not reported as ended.
            const file = Path.join(dir, 'ok.sqlite');
            new Database(file).pragma('journal_mode = WAL');
            const running = startCheckpoints(file, 'NORMAL', (message) => heard.push(message), () => ++ended);
            await sleep(150);
            await running.stop();
            expect(ended).to.equal(1);
        }
        finally {
            Fs.rmSync(dir, { recursive: true, force: true });
        }
    });
});
