import * as Code from '@hapi/code';
import * as Lab from '@hapi/lab';

import { onEachDatabase } from '../helpers/experiments';
import { maxadmin, maxauth, wilson } from '../helpers/server';


const lab = exports.lab = Lab.script();
const { test } = lab;
const { expect } = Code;

// What a merge reads of the child rows already stored (issue 35): only the rows its body names, by key or href, a
// 2,000 keys to a statement; a merge keeps the rest whatever they are, so it has no need of them. Adding one
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

    test('a merge that names more rows than one statement looks up reads them in statements of 2,000 keys, and matches each', async () => {

        const wo = await createWo(range(1, 2100));
        // Every stored task named again (an update of each: an insert of one would break the key's unique index),
        // and one new.
        const named = [...tasks(range(1, 2100), 'again'), { taskid: 2101, description: 'again 2101' }];
        const reads = await readsOf('woactivity', async () => {

            const res = await t.inject({ method: 'POST', url: wo.path, headers: { ...wilson, ...merge }, payload: { woactivity: named } });
            expect(res.statusCode, res.payload).to.equal(204);
        });
        expect(reads).to.equal({ statements: 2, rows: 2100 });
        const stored = await storedTasks(wo.wonum);
        expect(stored.size).to.equal(2101);
        expect([...stored.values()].every((description) => description.startsWith('again '))).to.be.true();

        const twice = await t.inject({ method: 'POST', url: wo.path, headers: { ...wilson, ...merge }, payload: { woactivity: [{ taskid: 2050, description: 'a' }, { taskid: 3, description: 'b' }, { taskid: 2050, description: 'c' }] } });
        expect(twice.statusCode).to.equal(400);
        expect(twice.result.Error.message).to.contain('names the same WOACTIVITY row twice');
    });
});

// A child keyed by two columns: a merge looks its rows up by both, as one row value per key.
const routes = `name: MXTESTROUTE
object: ROUTE
uniqueColumn: routeid
primaryKey: [routenum]
attributes:
  routeid: { type: bigint, generated: true }
  routenum: { type: upper, length: 10, required: true }
children:
  leg:
    object: ROUTELEG
    uniqueColumn: routelegid
    primaryKey: [stop, leg]
    join: { routenum: routenum }
    attributes:
      routelegid: { type: bigint, generated: true }
      routenum: { type: upper, length: 10, readonly: true }
      stop: { type: upper, length: 8, required: true }
      leg: { type: integer, required: true }
      note: { type: aln, length: 20 }
access:
  read: [EVERYONE]
  insert: [EVERYONE]
  update: [EVERYONE]
  delete: [EVERYONE]
`;

onEachDatabase(lab, 'the stored child rows a merge reads by a key of two columns', { settings: { demo: false, adminUser: 'ADMIN', adminPassword: 'admin-secret-1' }, fixture: { only: [], add: { 'mxtestroute.yaml': routes } } }, (t) => {

    const admin = maxauth('admin', 'admin-secret-1');
    const url = '/maximo/oslc/os/mxtestroute';

    test('a merge reads the rows its keys name, updates them, keeps the rest and adds the new ones', async () => {

        const legs = ['A', 'B', 'C'].flatMap((stop) => [1, 2, 3].map((leg) => ({ stop, leg, note: `first ${stop}${leg}` })));
        const created = await t.inject({ method: 'POST', url, headers: admin, payload: { routenum: 'R1', leg: legs } });
        expect(created.statusCode, created.payload).to.equal(201);
        await t.inject({ method: 'POST', url, headers: admin, payload: { routenum: 'R2', leg: legs } });

        let read = { statements: 0, rows: 0 };
        const listener = (response: unknown, query: { sql: string }) => {

            if (/^select .* from [`"]routeleg[`"]/i.test(query.sql)) {
                read = { statements: read.statements + 1, rows: read.rows + (Array.isArray(response) ? response.length : 0) };
            }
        };

        const knex = t.server.app.osprey.knex;
        knex.on('query-response', listener);
        try {
            // B2 (its stop in lower case) and C1 (its leg as text) are stored, as they are in R2; A9 is new.
            const res = await t.inject({ method: 'POST', url: new URL(created.headers.location as string).pathname, headers: { ...admin, ...merge }, payload: { leg: [{ stop: 'b', leg: 2, note: 'changed B2' }, { stop: 'C', leg: '1', note: 'changed C1' }, { stop: 'A', leg: 9, note: 'new A9' }] } });
            expect(res.statusCode, res.payload).to.equal(204);
        }
        finally {
            knex.off('query-response', listener);
        }

        expect(read).to.equal({ statements: 1, rows: 2 });
        const stored = await knex('routeleg').orderBy('routelegid');
        const notes = (routenum: string) => stored.filter((row: any) => row.routenum === routenum).map((row: any) => `${row.stop}${row.leg} ${row.note}`);
        expect(notes('R1')).to.equal(['A1 first A1', 'A2 first A2', 'A3 first A3', 'B1 first B1', 'B2 changed B2', 'B3 first B3', 'C1 changed C1', 'C2 first C2', 'C3 first C3', 'A9 new A9']);
        expect(notes('R2')).to.equal(legs.map((leg) => `${leg.stop}${leg.leg} ${leg.note}`));
    });
});
