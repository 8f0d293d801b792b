import * as Code from '@hapi/code';
import * as Lab from '@hapi/lab';

import { onEachDatabase } from '../helpers/experiments';
import { maxadmin, wilson } from '../helpers/server';


const lab = exports.lab = Lab.script();
const { test } = lab;
const { expect } = Code;

// What a merge reads of the child rows already stored (issue 35): only the rows its body names, by key or href, a
// few hundred keys to a statement; a merge keeps the rest whatever they are, so it has no need of them. Adding one
// meter reading read every earlier reading of the meter. A replacing update still reads them all: it deletes those
// the body leaves out. Counted by the statements the server's knex runs and the rows they answer, not timed.

const wos = '/maximo/oslc/os/mxapiwodetail';
const merge = { 'x-method-override': 'PATCH', patchtype: 'MERGE' };
const update = { 'x-method-override': 'PATCH' };

const range = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i) => from + i);
const tasks = (ids: readonly number[], text: string) => ids.map((taskid) => ({ taskid, description: `${text} ${taskid}` }));

interface Reads {
    statements: number;
    rows: number;
}

onEachDatabase(lab, 'the stored child rows a merge reads', { timeout: 120_000 }, (t) => {

    const knex = () => t.server.app.osprey.knex;

    // The select statements on `table` that `work` runs through the server's knex (its writes' transactions
    // included), and the rows they answer.
    const readsOf = async (table: string, work: () => Promise<void>): Promise<Reads> => {

        const reads: Reads = { statements: 0, rows: 0 };
        const from = new RegExp(`^select .* from [\`"]${table}[\`"]`, 'i');
        const listener = (response: unknown, query: { sql: string }) => {

            if (from.test(query.sql)) {
                reads.statements += 1;
                reads.rows += Array.isArray(response) ? response.length : 0;
            }
        };

        knex().on('query-response', listener);
        try {
            await work();
        }
        finally {
            knex().off('query-response', listener);
        }

        return reads;
    };

    const createWo = async (ids: readonly number[]) => {

        const res = await t.inject({ method: 'POST', url: wos, headers: { ...wilson, properties: 'wonum' }, payload: { siteid: 'BEDFORD', description: 'merge reads', woactivity: tasks(ids, 'first') } });
        expect(res.statusCode, res.payload).to.equal(201);
        return { path: new URL(res.headers.location as string).pathname, wonum: res.result.wonum as string };
    };

    const storedTasks = async (wonum: string) => new Map((await knex()('woactivity').where({ parent: wonum, siteid: 'BEDFORD' })).map((row: any) => [Number(row.taskid), String(row.description)]));

    test('a reading added to a meter reads none of the meter\'s earlier readings', async () => {

        const assetnum = await knex()('assetmeter').where({ siteid: 'BEDFORD', metername: 'RUNHOURS' }).orderBy('assetnum').first().then((row: any) => row.assetnum as string);
        const earlier = range(1, 40).map((i) => ({ assetnum, siteid: 'BEDFORD', metername: 'RUNHOURS', reading: i, readingdate: new Date(Date.UTC(2025, 0, 1, 0, i)).toISOString(), changeby: 'MAXADMIN' }));
        await knex()('meterreading').insert(earlier);

        const url = `/maximo/oslc/os/mxapiasset/assetnum:${assetnum}|siteid:BEDFORD`;
        const reads = await readsOf('meterreading', async () => {

            const res = await t.inject({ method: 'POST', url, headers: { ...maxadmin, ...merge }, payload: { assetmeter: [{ metername: 'RUNHOURS', newreading: 41 }] } });
            expect(res.statusCode, res.payload).to.equal(204);
        });
        expect(reads).to.equal({ statements: 0, rows: 0 });

        // The reading is recorded as before: one row more, and the meter's last reading.
        const readings = await knex()('meterreading').where({ assetnum, siteid: 'BEDFORD', metername: 'RUNHOURS' }).orderBy('meterreadingid');
        expect(readings.map((row: any) => Number(row.reading))).to.equal(range(1, 41));
        const meter = await knex()('assetmeter').where({ assetnum, siteid: 'BEDFORD', metername: 'RUNHOURS' }).first();
        expect(Number(meter.lastreading)).to.equal(41);
    });

    test('a merge that names one task of forty reads that task only; a replacing update reads all forty', async () => {

        const wo = await createWo(range(1, 40));
        const merged = await readsOf('woactivity', async () => {

            const res = await t.inject({ method: 'POST', url: wo.path, headers: { ...wilson, ...merge }, payload: { woactivity: [{ taskid: 7, description: 'changed 7' }, { taskid: 41, description: 'new 41' }] } });
            expect(res.statusCode, res.payload).to.equal(204);
        });
        expect(merged).to.equal({ statements: 1, rows: 1 });
        const kept = await storedTasks(wo.wonum);
        expect([...kept.keys()].sort((a, b) => a - b)).to.equal(range(1, 41));
        expect(kept.get(7)).to.equal('changed 7');
        expect(kept.get(8)).to.equal('first 8');
        expect(kept.get(41)).to.equal('new 41');

        const replaced = await readsOf('woactivity', async () => {

            const res = await t.inject({ method: 'POST', url: wo.path, headers: { ...wilson, ...update }, payload: { woactivity: [{ taskid: 7, description: 'only 7' }] } });
            expect(res.statusCode, res.payload).to.equal(204);
        });
        expect(replaced.rows).to.equal(41);
        expect([...(await storedTasks(wo.wonum)).entries()]).to.equal([[7, 'only 7']]);
    });

    test('a merge that names more rows than one statement looks up reads them in statements of 500 keys, and matches each', async () => {

        const wo = await createWo(range(1, 1100));
        // Every stored task named again (an update of each: an insert of one would break the key's unique index),
        // and one new.
        const named = [...tasks(range(1, 1100), 'again'), { taskid: 1101, description: 'again 1101' }];
        const reads = await readsOf('woactivity', async () => {

            const res = await t.inject({ method: 'POST', url: wo.path, headers: { ...wilson, ...merge }, payload: { woactivity: named } });
            expect(res.statusCode, res.payload).to.equal(204);
        });
        expect(reads).to.equal({ statements: 3, rows: 1100 });
        const stored = await storedTasks(wo.wonum);
        expect(stored.size).to.equal(1101);
        expect([...stored.values()].every((description) => description.startsWith('again '))).to.be.true();

        const twice = await t.inject({ method: 'POST', url: wo.path, headers: { ...wilson, ...merge }, payload: { woactivity: [{ taskid: 600, description: 'a' }, { taskid: 3, description: 'b' }, { taskid: 600, description: 'c' }] } });
        expect(twice.statusCode).to.equal(400);
        expect(twice.result.Error.message).to.contain('names the same WOACTIVITY row twice');
    });
});
