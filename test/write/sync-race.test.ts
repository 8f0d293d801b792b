import * as Code from '@hapi/code';
import * as Lab from '@hapi/lab';

import { onEachDatabase } from '../helpers/experiments';
import { wilson } from '../helpers/server';
import { changes, snapshot } from '../helpers/tables';


const lab = exports.lab = Lab.script();
const { test } = lab;
const { expect } = Code;

const wos = '/maximo/oslc/os/mxapiwodetail';
const syncs = 20;

// Concurrent SYNCs of one key the database does not hold yet (issue 34). On PostgreSQL transactions run side by
// side: each found no record, and every insert after the first met the key's unique index, answering a 400
// "already exists" where Maximo creates the record once and updates it with the others. SQLite runs one write
// at a time, so there each one after the first finds the record.
onEachDatabase(lab, 'concurrent syncs of a new key', (t) => {

    const sync = (payload: object, headers: object = {}) => t.inject({ method: 'POST', url: wos, headers: { ...wilson, 'x-method-override': 'SYNC', properties: 'wonum,description', ...headers }, payload });

    test(`${syncs} SYNCs of one new key create one record and update it with the others, each answering a success`, async () => {

        const before = await snapshot(t);
        const answers = await Promise.all(Array.from({ length: syncs }, (_, i) => sync({ wonum: 'RACE-1', siteid: 'BEDFORD', description: `sync ${i}`, woactivity: [{ taskid: 10, description: `task of ${i}` }, { taskid: 20 }] })));
        expect(answers.map((res) => res.statusCode).sort()).to.equal([...Array(syncs - 1).fill(200), 201].sort());
        expect(answers.every((res) => res.result.wonum === 'RACE-1')).to.be.true();

        // One record, its description one of the bodies', with the two tasks of the collection every body
        // replaced, and the one status history row its create wrote.
        const after = await snapshot(t);
        const workorders = changes(before.workorder!, after.workorder!, 'workorderid');
        expect(workorders.removed).to.equal([]);
        expect(workorders.changed).to.equal([]);
        expect(workorders.added.map((row) => [row.wonum, row.siteid])).to.equal([['RACE-1', 'BEDFORD']]);
        const last = workorders.added[0]!.description as string;
        expect(answers.map((res) => res.result.description)).to.include(last);

        const tasks = changes(before.woactivity!, after.woactivity!, 'woactivityid');
        expect(tasks.removed).to.equal([]);
        expect(tasks.changed).to.equal([]);
        expect(after.woactivity!.filter((row) => row.parent === 'RACE-1').map((row) => [row.siteid, row.taskid, row.description])).to.equal([['BEDFORD', '10', `task of ${last.slice('sync '.length)}`], ['BEDFORD', '20', null]]);
        const history = changes(before.wostatus!, after.wostatus!, 'wostatusid');
        expect(history.added.map((row) => [row.wonum, row.status])).to.equal([['RACE-1', 'WAPPR']]);
        expect(history.removed.length + history.changed.length).to.equal(0);
        for (const table of Object.keys(before).filter((name) => !['workorder', 'woactivity', 'wostatus'].includes(name))) {
            expect(after[table], table).to.equal(before[table]);
        }
    });

    test(`${syncs} merging SYNCs of one new key each add their task to the one record`, async () => {

        const answers = await Promise.all(Array.from({ length: syncs }, (_, i) => sync({ wonum: 'RACE-2', siteid: 'BEDFORD', woactivity: [{ taskid: i + 1 }] }, { patchtype: 'MERGE' })));
        expect(answers.map((res) => res.statusCode).sort()).to.equal([...Array(syncs - 1).fill(200), 201].sort());
        const knex = t.server.app.osprey.knex;
        expect(await knex('workorder').where({ wonum: 'RACE-2' }).select('siteid')).to.equal([{ siteid: 'BEDFORD' }]);
        const tasks = await knex('woactivity').where({ parent: 'RACE-2', siteid: 'BEDFORD' }).orderBy('taskid').select('taskid') as { taskid: number | string }[];
        expect(tasks.map((row) => Number(row.taskid))).to.equal(Array.from({ length: syncs }, (_, i) => i + 1));
    });
});
