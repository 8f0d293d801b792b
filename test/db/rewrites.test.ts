import * as Code from '@hapi/code';
import * as Lab from '@hapi/lab';
import Knex from 'knex';

import { createKnex } from '../../src/db/knex';
import { learnRewrites, storesAsWritten } from '../../src/db/rewrites';
import { testDatabases } from '../helpers/databases';
import { maxadmin, startTestServer, type TestServer } from '../helpers/server';


const { experiment, test } = exports.lab = Lab.script();
const { expect } = Code;

const wos = '/maximo/oslc/os/mxapiwodetail';

// A trigger that changes a column the update does not set.
const triggers = {
    sqlite: ['create trigger wo_touch after update of description on workorder begin update workorder set estdur = 99 where workorderid = new.workorderid; end'],
    postgresql: [
        'create function wo_touch() returns trigger language plpgsql as $$ begin new.estdur := 99; return new; end $$',
        'create trigger wo_touch before update on workorder for each row execute function wo_touch()'
    ]
};

experiment('an update answers the row as stored, triggers or not (db/rewrites.ts)', () => {

    for (const database of testDatabases) {
        test(`returns the set columns where nothing else changes the row, the whole row where a trigger may (${database.name})`, { timeout: 60_000 }, async () => {

            const created = await database.create();
            let t: TestServer | undefined;
            try {
                t = await startTestServer(database, { databaseUrl: created.url });
                const knex = t.server.app.osprey.knex as Knex.Knex;
                expect(storesAsWritten(knex, 'workorder')).to.be.true();
                const post = await t.inject({ method: 'POST', url: wos, headers: { ...maxadmin, properties: '*' }, payload: { siteid: 'BEDFORD', description: 'Rewrites', estdur: 1 } });
                expect(post.statusCode).to.equal(201);
                const path = new URL(post.headers.location as string).pathname;
                // Every other work order and every other table's rows, as stored: the update changes its record only.
                const others = async () => {

                    const db = t!.server.app.osprey.knex as Knex.Knex;
                    return {
                        workorders: await db('workorder').whereNot('workorderid', post.result.workorderid).orderBy('workorderid'),
                        tasks: await db('woactivity').orderBy('woactivityid'),
                        statuses: await db('wostatus').orderBy('wostatusid'),
                        assets: await db('asset').orderBy('assetuid')
                    };
                };

                const patchAndRead = async (description: string) => {

                    const before = await others();
                    const patch = await t!.inject({ method: 'PATCH', url: path, headers: { ...maxadmin, properties: '*' }, payload: { description, wopriority: '2' } });
                    expect(patch.statusCode).to.equal(200);
                    const read = await t!.inject({ url: `${path}?oslc.select=*`, headers: maxadmin });
                    expect(patch.result).to.equal(read.result);
                    expect(await others()).to.equal(before);
                    return patch.result;
                };

                // The answer is the row read under the lock with the set columns as the database stored them
                // ('2' is stored as the integer 2).
                const plain = await patchAndRead('First');
                expect(plain).to.include({ description: 'First', wopriority: 2, estdur: 1 });
                expect(plain).to.equal({ ...post.result, description: 'First', wopriority: 2, _rowstamp: plain._rowstamp, changedate: plain.changedate });

                await t.server.stop();
                t = undefined;
                const raw = createKnex({ databaseUrl: created.url });
                for (const sql of triggers[database.name]) {
                    await raw.raw(sql);
                }

                // Learned at the next start: the trigger's change is in the answer.
                expect(storesAsWritten(raw, 'workorder')).to.be.false();
                await learnRewrites(raw, database.name, ['workorder', 'asset', 'nosuchtable']);
                expect(storesAsWritten(raw, 'workorder')).to.be.false();
                expect(storesAsWritten(raw, 'asset')).to.be.true();
                await raw.destroy();
                t = await startTestServer(database, { databaseUrl: created.url });
                expect(storesAsWritten(t.server.app.osprey.knex as Knex.Knex, 'workorder')).to.be.false();
                expect(storesAsWritten(t.server.app.osprey.knex as Knex.Knex, 'asset')).to.be.true();
                expect(await patchAndRead('Second')).to.include({ description: 'Second', estdur: 99 });
            }
            finally {
                await t?.server.stop();
                await created.drop();
            }
        });
    }
});
