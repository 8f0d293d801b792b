import * as Code from '@hapi/code';
import * as Lab from '@hapi/lab';

import { hashPassword } from '../../src/auth/passwords';
import { validateOptions } from '../../src/config';
import { createKnex } from '../../src/db/knex';
import { testDatabases } from '../helpers/databases';
import { maxauth, startTestServer } from '../helpers/server';


const lab = exports.lab = Lab.script();
const { experiment, test } = lab;
const { expect } = Code;

// A database whose user tables were made before users were served as structures: the user tables as they were.
const makeOldTables = async (url: string) => {

    const knex = createKnex(validateOptions({ databaseUrl: url }));
    try {
        await knex.schema.createTable('osprey_user', (t) => {

            t.string('userid', 30).primary();
            t.string('passwordhash', 300);
            t.string('personid', 30);
            t.string('displayname', 100);
            t.string('primaryemail', 100);
            t.string('status', 16).notNullable().defaultTo('ACTIVE');
            t.string('defsite', 8);
            t.string('insertsite', 8);
            t.string('defaultorg', 8);
            t.string('langcode', 4).notNullable().defaultTo('EN');
            t.bigInteger('created').notNullable();
            t.string('credstamp', 24).notNullable().defaultTo('');
        });
        await knex.schema.createTable('osprey_group', (t) => {

            t.string('groupname', 30).primary();
            t.string('description', 100);
            t.boolean('isadmin').notNullable().defaultTo(false);
        });
        await knex.schema.createTable('osprey_groupuser', (t) => {

            t.string('groupname', 30).notNullable().references('osprey_group.groupname').onDelete('CASCADE');
            t.string('userid', 30).notNullable().references('osprey_user.userid').onDelete('CASCADE');
            t.primary(['groupname', 'userid']);
        });
        await knex.schema.createTable('osprey_session', (t) => {

            t.string('id', 64).primary();
            t.string('userid', 30).notNullable().references('osprey_user.userid').onDelete('CASCADE');
            t.bigInteger('created').notNullable();
            t.bigInteger('lastseen').notNullable();
            t.string('userstamp', 24).notNullable().defaultTo('');
        });
        await knex('osprey_user').insert([
            { userid: 'OLDADMIN', passwordhash: await hashPassword('Old-Admin-Pass-1'), created: 1, displayname: 'Old admin' },
            { userid: 'OLDUSER', passwordhash: await hashPassword('Old-User-Pass-1'), created: 2 }
        ]);
        await knex('osprey_group').insert([{ groupname: 'MAXADMIN', isadmin: true }, { groupname: 'EVERYONE', isadmin: false }]);
        await knex('osprey_groupuser').insert([{ groupname: 'MAXADMIN', userid: 'OLDADMIN' }, { groupname: 'EVERYONE', userid: 'OLDUSER' }]);
        await knex('osprey_session').insert({ id: 'kept', userid: 'OLDUSER', created: 1, lastseen: 1 });
    }
    finally {
        await knex.destroy();
    }
};

for (const database of testDatabases) {
    experiment(`user tables made before they were structures (${database.name})`, { timeout: 60_000 }, () => {

        test('are upgraded at start, keeping every user, group, membership and session', async () => {

            const created = await database.create();
            try {
                await makeOldTables(created.url);
                const t = await startTestServer(database, { databaseUrl: created.url, demo: false });
                try {
                    const admin = maxauth('oldadmin', 'Old-Admin-Pass-1');
                    expect((await t.inject({ url: '/maximo/oslc/whoami', headers: maxauth('olduser', 'Old-User-Pass-1') })).statusCode).to.equal(200);
                    const listed = await t.inject({ url: '/maximo/oslc/os/mxapimaxuser?oslc.select=userid,maxuserid,created,groupuser{groupname}&oslc.orderBy=%2Buserid&lean=1', headers: admin });
                    expect(listed.statusCode, listed.payload).to.equal(200);
                    expect(listed.result.member.map((member: { userid: string; created: number; groupuser: { groupname: string }[] }) => [member.userid, member.created, member.groupuser.map((row) => row.groupname)])).to.equal([['OLDADMIN', 1, ['MAXADMIN']], ['OLDUSER', 2, ['EVERYONE']]]);
                    expect(listed.result.member.every((member: { maxuserid: number }) => member.maxuserid > 0)).to.be.true();
                    expect(await t.server.app.osprey.knex('osprey_session').where({ id: 'kept' }).first()).to.exist();

                    // New rows are numbered after the old ones, and stamped with their time.
                    const added = await t.inject({ method: 'POST', url: '/maximo/oslc/os/mxapimaxuser?lean=1', headers: { ...admin, properties: 'maxuserid,created' }, payload: { userid: 'newuser', passwordinput: 'New-User-Pass-1', groupuser: [{ groupname: 'EVERYONE' }] } });
                    expect(added.statusCode, added.payload).to.equal(201);
                    expect(added.result.maxuserid as number).to.be.above(2);
                    expect(added.result.created as number).to.be.about(Date.now(), 60_000);
                    expect((await t.inject({ url: '/maximo/oslc/whoami', headers: maxauth('newuser', 'New-User-Pass-1') })).statusCode).to.equal(200);

                    // Deleting a user still takes their memberships and sessions with them.
                    const href = (await t.inject({ url: '/maximo/oslc/os/mxapimaxuser?oslc.where=userid="OLDUSER"&lean=1', headers: admin })).result.member[0].href.replace(/^http:\/\/[^/]+/, '');
                    expect((await t.inject({ method: 'DELETE', url: href, headers: admin })).statusCode).to.equal(204);
                    expect(await t.server.app.osprey.knex('osprey_session').where({ id: 'kept' }).first()).to.not.exist();
                    expect(await t.server.app.osprey.knex('osprey_groupuser').where({ userid: 'OLDUSER' })).to.equal([]);
                }
                finally {
                    await t.server.stop();
                }
            }
            finally {
                await created.drop();
            }
        });
    });
}
