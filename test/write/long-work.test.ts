import { setImmediate as nextTurn } from 'node:timers/promises';

import * as Code from '@hapi/code';
import * as Lab from '@hapi/lab';

import { onEachDatabase } from '../helpers/experiments';
import { wilson } from '../helpers/server';


const lab = exports.lab = Lab.script();
const { test } = lab;
const { expect } = Code;

const wos = '/maximo/oslc/os/mxapiwodetail';
const items = 2000;

interface Connection {
    readonly inTransaction: boolean;
}

// Long work runs in slices of the event loop (src/slices.ts) and reads run beside a write transaction
// (src/db/knex.ts createReaderKnex): while a bulk of thousands of items or a report of thousands of rows runs,
// other requests are answered, and they read the last committed state. Nothing here is timed: the tests check
// the order in which answers come back.
onEachDatabase(lab, 'long work leaves the server to other requests', (t, database) => {

    const total = async () => {

        const res = await t.inject({ url: `${wos}?count=1&oslc.select=wonum&oslc.pageSize=1`, headers: wilson });
        expect(res.statusCode, res.payload).to.equal(200);
        return res.result.totalCount as number;
    };

    // Whether the writer's connection is inside a transaction (SQLite: the one connection of the writer's knex).
    const writing = () => {

        const connections = (t.server.app.osprey.knex.client as { connections?: Set<Connection> }).connections;
        return database.name === 'sqlite' ? [...connections!].some((connection) => connection.inTransaction) : undefined;
    };

    // Sends `probe` again and again until `work` ends; what each answer said, and whether the work was still running.
    const meanwhile = async <W, P>(work: Promise<W>, probe: () => Promise<P>) => {

        let done = false;
        const ended = work.finally(() => {

            done = true;
        });
        const answers: { value: P; during: boolean; writing: boolean | undefined }[] = [];
        while (!done) {
            const value = await probe();
            answers.push({ value, during: !done, writing: writing() });
            await nextTurn();
        }

        return { result: await ended, answers };
    };

    test(`an all-or-nothing bulk of ${items} items: health checks and GETs are answered while it runs, and see nothing of it before it commits`, { timeout: 60_000 }, async () => {

        const before = await total();
        const payload = Array.from({ length: items }, (_, i) => ({ siteid: 'BEDFORD', description: `Long bulk ${i}` }));
        const bulk = t.inject({ method: 'POST', url: wos, headers: { ...wilson, 'x-method-override': 'BULK', allornothing: '1' }, payload });
        const { result, answers } = await meanwhile(bulk, async () => {

            const [health, count] = await Promise.all([t.inject('/maximo/health'), total()]);
            return { health: health.statusCode, count };
        });

        expect(result.statusCode).to.equal(200);
        expect(result.result.every((item: { _responsemeta: { status: string } }) => item._responsemeta.status === '201')).to.be.true();
        // All or nothing: every answer saw none of the items or, once it committed (its answer may still be on its
        // way), all of them; never a part.
        const during = answers.filter((answer) => answer.during);
        expect(during.length).to.be.above(2);
        for (const { value } of during) {
            expect(value.health).to.equal(200);
            expect([before, before + items]).to.include(value.count);
        }

        expect(during.filter(({ value }) => value.count === before).length).to.be.above(1);

        if (database.name === 'sqlite') {
            // Some were answered while the bulk's transaction was open, on the readers' connections.
            expect(during.some((answer) => answer.writing && answer.value.count === before)).to.be.true();
        }

        expect(await total()).to.equal(before + items);
    });

    test(`a bulk of ${items} items that commit one by one: GETs are answered between them`, { timeout: 60_000 }, async () => {

        const before = await total();
        const payload = Array.from({ length: items }, (_, i) => ({ siteid: 'NASHUA', description: `Item bulk ${i}` }));
        const bulk = t.inject({ method: 'POST', url: wos, headers: { ...wilson, 'x-method-override': 'BULK' }, payload });
        const { result, answers } = await meanwhile(bulk, total);
        expect(result.statusCode).to.equal(200);
        const during = answers.filter((answer) => answer.during).map((answer) => answer.value);
        expect(during.length).to.be.above(2);
        // Each saw some number of the items committed so far, never fewer than an earlier answer.
        expect(during.every((count, i) => count >= before && count <= before + items && (i === 0 || count >= during[i - 1]!))).to.be.true();
        expect(await total()).to.equal(before + items);
    });

    test('a PDF report of thousands of rows: health checks are answered while it renders', { timeout: 60_000 }, async () => {

        const rows = await total();
        expect(rows).to.be.above(2 * items);
        const report = t.inject({ url: `${wos}?action=genreport&reportname=woprint.rptdesign&reportformat=pdf`, headers: wilson });
        const { result, answers } = await meanwhile(report, async () => (await t.inject('/maximo/health')).statusCode);
        expect(result.statusCode).to.equal(200);
        expect(result.headers['content-type']).to.equal('application/pdf');
        expect(result.rawPayload.subarray(0, 5).toString()).to.equal('%PDF-');
        const during = answers.filter((answer) => answer.during);
        expect(during.length).to.be.above(2);
        expect(during.every((answer) => answer.value === 200)).to.be.true();
    });

    test('the readers cannot write: a statement that would change data fails at once', async () => {

        const { db, knex } = t.server.app.osprey;
        if (database.name === 'postgresql') {
            // PostgreSQL serves reads and writes from one pool of connections.
            expect(db.knex).to.shallow.equal(knex);
            return;
        }

        expect(db.knex).to.not.shallow.equal(knex);
        await expect(db.query('workorder').where({ wonum: '1001' }).update({ description: 'never' })).to.reject(/readonly/);
    });
});
