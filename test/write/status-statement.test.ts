import * as Code from '@hapi/code';
import * as Lab from '@hapi/lab';
import type { Knex } from 'knex';

import { createKnex } from '../../src/db/knex';
import { testDatabases } from '../helpers/databases';
import { watchSql as watch } from '../helpers/sent-sql';
import { maxadmin, startTestServer, type TestServer } from '../helpers/server';


const { experiment, test, before, after } = exports.lab = Lab.script();
const { expect } = Code;

// On PostgreSQL a status change's update, its history row and the workflow hold's check are one statement
// (src/write/apply/apply.ts, src/db/statements.ts updateReturningWith): BEGIN, the read under the record's lock, that
// statement, COMMIT, where the check and the history row took a round trip each. SQLite runs them one by one.
const postgres = testDatabases.filter((database) => database.name === 'postgresql');

const wos = '/maximo/oslc/os/mxapiwodetail';

// What each statement is; the node's own heartbeat (src/cluster/members.ts) shares the pool and may land between a
// test's statements, so it is left out.
const label = (sql: string) => {

    if (/for update$/.test(sql)) {
        return 'read for update';
    }

    if (sql.startsWith('with "osprey_updated" as (update "workorder" ') && /insert into "wostatus"/.test(sql) && /exists \(select 1 from "wfassignment"/.test(sql)) {
        return 'update, history row and hold';
    }

    return sql.split(';')[0]!.slice(0, 40);
};

const ours = (sent: string[]) => sent.filter((sql) => !/"osprey_member"/.test(sql)).map(label);

for (const database of postgres) {
    experiment(`a status change is one statement between its read and its COMMIT (${database.name})`, () => {

        let t: TestServer;
        before(async () => {

            t = await startTestServer(database);
        });

        after(async () => {

            await t.stop();
        });

        const knexOf = () => t.server.app.osprey.knex as Knex;

        const created = async () => {

            const post = await t.inject({ method: 'POST', url: wos, headers: { ...maxadmin, properties: 'workorderid,wonum,siteid' }, payload: { siteid: 'BEDFORD', description: 'Status' } });
            expect(post.statusCode).to.equal(201);
            return { path: new URL(post.headers.location as string).pathname, row: post.result as Record<string, unknown> };
        };

        const stored = async (row: Record<string, unknown>) => ({
            record: await knexOf()('workorder').where({ workorderid: row.workorderid }).first('status', 'rowstamp', 'changeby'),
            history: (await knexOf()('wostatus').where({ siteid: row.siteid, wonum: row.wonum }).orderBy('wostatusid').select('status', 'changeby', 'memo'))
        });

        test('a PATCH of status and wsmethod:changeStatus each send BEGIN, the locked read, one statement and COMMIT, and write the status and its history row', async () => {

            const { path, row } = await created();
            let patch: Awaited<ReturnType<typeof t.inject>> | undefined;
            const patched = await watch(knexOf(), async () => {

                patch = await t.inject({ method: 'PATCH', url: path, headers: maxadmin, payload: { status: 'APPR', memo: 'By PATCH' } });
            });
            expect(patch!.statusCode).to.equal(204);
            expect(ours(patched)).to.equal(['BEGIN', 'read for update', 'update, history row and hold', 'COMMIT']);

            let action: Awaited<ReturnType<typeof t.inject>> | undefined;
            const acted = await watch(knexOf(), async () => {

                action = await t.inject({ method: 'POST', url: `${path}?action=wsmethod:changeStatus`, headers: maxadmin, payload: { status: 'INPRG', memo: 'By action' } });
            });
            expect(action!.statusCode).to.equal(204);
            expect(ours(acted)).to.equal(ours(patched));

            const { record, history } = await stored(row);
            expect(record).to.include({ status: 'INPRG', changeby: 'MAXADMIN' });
            expect(history).to.equal([
                { status: 'WAPPR', changeby: 'MAXADMIN', memo: null },
                { status: 'APPR', changeby: 'MAXADMIN', memo: 'By PATCH' },
                { status: 'INPRG', changeby: 'MAXADMIN', memo: 'By action' }
            ]);
        });

        test('a record a workflow holds is refused by that statement, which rolls back, and nothing of the change is kept', async () => {

            const { path, row } = await created();
            const started = await t.inject({ method: 'POST', url: `${path}?action=workflow:WOAPPROVE`, headers: maxadmin, payload: {} });
            expect(started.statusCode).to.equal(200);
            const earlier = await stored(row);

            let patch: Awaited<ReturnType<typeof t.inject>> | undefined;
            const sent = await watch(knexOf(), async () => {

                patch = await t.inject({ method: 'PATCH', url: path, headers: maxadmin, payload: { status: 'APPR' } });
            });
            expect(patch!.statusCode).to.equal(400);
            expect(patch!.result.Error.message).to.contain('waits in the workflow WOAPPROVE (at review, for SMITH): its status does not change while it waits');
            expect(ours(sent).slice(0, 3)).to.equal(['BEGIN', 'read for update', 'update, history row and hold']);
            expect(ours(sent).at(-1)).to.equal('ROLLBACK');
            expect(await stored(row)).to.equal(earlier);
        });

        test('an assignment committed by a writer that held the record\'s lock while the change waited for it refuses the change', async () => {

            const { path, row } = await created();
            const earlier = await stored(row);
            const other = createKnex({ databaseUrl: t.options.databaseUrl });
            try {
                // A workflow's start as the engine makes it (an action under the record's lock), by hand: its lock is
                // taken first; the assignment is added and committed once the PATCH has asked for the same lock.
                const holder = await other.transaction();
                await holder('workorder').where({ workorderid: row.workorderid }).forUpdate().first('workorderid');
                let patch: Promise<Awaited<ReturnType<typeof t.inject>>> | undefined;
                let released: Promise<void> | undefined;
                const sent = await watch(knexOf(), async () => {

                    patch = t.inject({ method: 'PATCH', url: path, headers: maxadmin, payload: { status: 'APPR' } });
                    await (await patch);
                }, (sql) => {

                    if (/for update$/.test(sql)) {
                        released = (async () => {

                            // The locked read is on its way; it waits for the holder whichever comes first.
                            await new Promise((resolve) => setTimeout(resolve, 100));
                            await holder('wfassignment').insert({ assigncode: 'SMITH', processname: 'WOAPPROVE', nodeid: 'review', ownertable: 'WORKORDER', ownerid: row.workorderid, assignstatus: 'ACTIVE' });
                            await holder.commit();
                        })();
                    }

                    return Promise.resolve();
                });
                await released;
                const res = await patch!;
                expect(res.statusCode).to.equal(400);
                expect(res.result.Error.message).to.contain('waits in the workflow WOAPPROVE (at review, for SMITH)');
                expect(ours(sent).at(-1)).to.equal('ROLLBACK');
                expect(await stored(row)).to.equal(earlier);
            }
            finally {
                await other.destroy();
            }
        });
    });
}
