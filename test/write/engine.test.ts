import * as Code from '@hapi/code';
import * as Lab from '@hapi/lab';

import type { UserProfile } from '../../src/auth/users';
import type { Osprey } from '../../src/context';
import { clientOf } from '../../src/db/db';
import type { ReadQuery } from '../../src/read/request';
import type { ResourceRequest } from '../../src/request';
import { onCommit, type Commit } from '../../src/write/after-commit';
import { bulkWrite } from '../../src/write/bulk';
import { writeContextOf } from '../../src/write/context';
import { createRecord, removeRecord, syncRecord, updateRecord } from '../../src/write/records';
import type { WriteOptions } from '../../src/write/request';
import { bodyDeletes, rightsOf, unionOf } from '../../src/write/rights';
import { testDatabases } from '../helpers/databases';
import { onEachDatabase } from '../helpers/experiments';
import { copyFixture, removeCopy } from '../helpers/fixtures';
import { maxauth, startTestServer } from '../helpers/server';


const lab = exports.lab = Lab.script();
const { experiment, test, before, after } = lab;
const { expect } = Code;

// The write engine below the resources plugin (issue 17): its entry points take the request value, never a hapi
// request; the rights a write needs are checked once, before its transaction opens; and after-commit subscribers
// hear of exactly the writes that committed, on their own server only.

// MAKERS create and delete parts; everyone updates them.
const parts = `name: MXTESTPART
object: PART
uniqueColumn: partid
primaryKey: [partnum]
attributes:
  partid: { type: bigint, generated: true }
  partnum: { type: upper, length: 20 }
  description: { type: aln, length: 60 }
access:
  read: [EVERYONE]
  insert: [MAKERS]
  update: [EVERYONE]
  delete: [MAKERS]
`;

const settings = { demo: false, adminUser: 'ADMIN', adminPassword: 'admin-secret-1' };
const fixture = { only: [], add: { 'mxtestpart.yaml': parts } };
const admin = maxauth('admin', 'admin-secret-1');
const url = '/maximo/oslc/os/mxtestpart';

const userOf = (userid: string, groups: string[]): UserProfile => ({
    userid, personid: null, displayname: null, primaryemail: null, defsite: null, insertsite: null, defaultorg: null, langcode: 'EN', groups, isAdmin: false
});

const maker = userOf('MAKER', ['MAKERS']);
const clerk = userOf('CLERK', ['CLERKS']);

const noRead: ReadQuery = { opmodeor: false, pageno: 1, stablePaging: false, count: false, collectionCount: false, addSchema: false, attachment: false, parameters: {} };

// A request value built by hand, as an action or another plugin would: no hapi request anywhere.
const requestOf = (osprey: Osprey, user: UserProfile, write: Partial<WriteOptions>, id?: string): ResourceRequest => ({
    osprey,
    user,
    structure: osprey.registry.get('mxtestpart')!,
    id,
    home: 'http://engine.test/maximo/oslc',
    url: new URL('http://engine.test/maximo/oslc/os/mxtestpart'),
    linkHref: 'http://engine.test/maximo/oslc/os/mxtestpart',
    render: { dropNulls: true, collectionRefs: true, rowstamps: false, internalValues: false },
    read: noRead,
    write: { override: '', merge: false, batchErrors: false, allowEvents: true, allOrNothing: false, body: undefined, ...write }
});

// Counts the transactions the server's database client begins (BEGIN, or SQLite's BEGIN IMMEDIATE).
const countBegins = (osprey: Osprey) => {

    const client = clientOf(osprey.knex);
    const query = client._query.bind(client);
    const counted = { begins: 0, restore: () => {

        client._query = query;
    } };

    client._query = (connection, obj) => {

        counted.begins += /^BEGIN/i.test(obj.sql) ? 1 : 0;
        return query(connection, obj);
    };

    return counted;
};

experiment('the rights of a write', () => {

    test('are its kind\'s, a sync\'s both insert and update, and delete where a body deletes', () => {

        expect(rightsOf('create')).to.equal(['insert']);
        expect(rightsOf('merge')).to.equal(['update']);
        expect(rightsOf('sync')).to.equal(['insert', 'update']);
        expect(rightsOf('update', { _action: 'Delete' })).to.equal(['update', 'delete']);
        expect(rightsOf('sync', { 'spi:_ACTION': 'delete' })).to.equal(['insert', 'update', 'delete']);
        expect(rightsOf('create', { _action: 'Delete' })).to.equal(['insert']);
        expect(bodyDeletes(['_action'])).to.be.false();
        expect(bodyDeletes(null)).to.be.false();
        expect(unionOf([rightsOf('delete'), rightsOf('create'), rightsOf('create')])).to.equal(['insert', 'delete']);
        expect(unionOf([])).to.equal([]);
    });
});

onEachDatabase(lab, 'the write engine', { settings, fixture }, (t) => {

    const heard: Commit[] = [];
    let stop: () => void;

    before(() => {

        stop = onCommit(t.server.app.osprey, (commit) => {

            heard.push(commit);
        });
    });

    after(() => stop());

    const writes = () => heard.splice(0).map((commit) => commit.writes.map((write) => `${write.kind}:${write.operation}:${write.id}`).join(' '));

    test('its entry points take a request value built without hapi', async () => {

        const osprey = t.server.app.osprey;
        const made = await createRecord(requestOf(osprey, maker, { body: { partnum: 'e-1', description: 'made' }, properties: 'partnum,description' }));
        expect(made.isNew).to.be.true();
        expect(made.record).to.equal({ partnum: 'E-1', description: 'made', href: made.location });
        expect(made.location).to.startWith('http://engine.test/maximo/oslc/os/mxtestpart/');
        const id = made.location.split('/').pop()!;

        const updated = await updateRecord(requestOf(osprey, clerk, { body: { description: 'changed' } }, id));
        expect(updated.record).to.not.exist();
        expect(updated.row.description).to.equal('changed');

        const synced = await syncRecord(requestOf(osprey, maker, { body: { partnum: 'E-2' }, override: 'SYNC' }));
        expect(synced.isNew).to.be.true();
        const resynced = await syncRecord(requestOf(osprey, maker, { body: { partnum: 'E-2', description: 'again' }, merge: true, override: 'SYNC' }));
        expect(resynced.isNew).to.be.false();

        const bulk = await bulkWrite(requestOf(osprey, maker, { override: 'BULK', body: [{ partnum: 'E-3' }, { _action: 'Delete', href: synced.location }, { _action: 'Nonsense' }] }));
        expect(bulk.map((result) => (result.ok ? result.status : 'failed'))).to.equal([201, 204, 'failed']);

        await removeRecord(requestOf(osprey, maker, {}, id));
        expect(await osprey.knex('part').pluck('partnum')).to.equal(['E-3']);

        const ctx = writeContextOf(requestOf(osprey, clerk, { transactionId: 'tx-ctx', batchErrors: true }));
        expect(ctx).to.include({ userid: 'CLERK', transactionId: 'tx-ctx', batchErrors: true, allowEvents: true });
        expect(writes()).to.equal([`create:create:${id}`, `update:update:${id}`, `sync:create:${synced.location.split('/').pop()}`, `sync:update:${synced.location.split('/').pop()}`, `create:create:${bulk[0]!.ok ? bulk[0]!.outcome!.location.split('/').pop() : ''}`, `delete:delete:${synced.location.split('/').pop()}`, `delete:delete:${id}`]);
    });

    test('a member write names its record', async () => {

        await expect(updateRecord(requestOf(t.server.app.osprey, maker, { body: {} }))).to.reject(/names a MXTESTPART record by its id/);
    });

    test('rights are checked before a transaction opens: a refused write begins none and writes nothing', async () => {

        const osprey = t.server.app.osprey;
        const { location } = await createRecord(requestOf(osprey, maker, { body: { partnum: 'R-1' } }));
        const id = location.split('/').pop()!;
        heard.splice(0);
        const counted = countBegins(osprey);
        try {
            const refused = async (write: Promise<unknown>) => {

                const error = await expect(write).to.reject();
                expect((error as { output: { statusCode: number } }).output.statusCode).to.equal(403);
            };

            await refused(removeRecord(requestOf(osprey, clerk, { transactionId: 'refused-1' }, id)));
            await refused(createRecord(requestOf(osprey, clerk, { body: { partnum: 'R-2' }, transactionId: 'refused-2' })));
            // A sync needs insert even where its keys name a record it would update (CLERK may update parts).
            await refused(syncRecord(requestOf(osprey, clerk, { body: { partnum: 'R-1', description: 'by sync' }, override: 'SYNC' })));
            // An update whose body deletes needs delete.
            await refused(updateRecord(requestOf(osprey, clerk, { body: { _action: 'Delete' } }, id)));
            // A bulk needs the union of its items' rights: CLERK's update is allowed, its delete is not.
            await refused(bulkWrite(requestOf(osprey, clerk, { override: 'BULK', body: [{ _action: 'Update', href: location, description: 'x' }, { _action: 'Delete', href: location }] })));
            expect(counted.begins).to.equal(0);

            // The same CLERK updates, and that begins a transaction: the counter counts. (Its transaction id makes
            // it more than one statement, which PostgreSQL would otherwise run without one: db/single-statement.ts.)
            await updateRecord(requestOf(osprey, clerk, { body: { description: 'by clerk' }, transactionId: 'counted-1' }, id));
            expect(counted.begins).to.equal(1);
        }
        finally {
            counted.restore();
        }

        expect(await osprey.knex('part').where({ partnum: 'R-1' }).pluck('description')).to.equal(['by clerk']);
        expect(await osprey.knex('osprey_transaction').whereIn('id', ['refused-1', 'refused-2']).pluck('id')).to.equal([]);
        expect(writes()).to.equal([`update:update:${id}`]);
    });

    test('over HTTP a refused delete is a 403 before any transaction, and a SYNC needs insert even for an existing record', async () => {

        const osprey = t.server.app.osprey;
        await osprey.users.create({ userid: 'CLERK', password: 'clerk-secret-1', groups: [] });
        const clerkHeaders = maxauth('clerk', 'clerk-secret-1');
        const made = await t.inject({ method: 'POST', url, headers: admin, payload: { partnum: 'H-1' } });
        const path = new URL(made.headers.location as string).pathname;
        await t.inject({ url: path, headers: clerkHeaders });          // signs CLERK in: the check reads the user once
        heard.splice(0);
        const counted = countBegins(osprey);
        try {
            const deleted = await t.inject({ method: 'DELETE', url: path, headers: { ...clerkHeaders, transactionid: 'http-refused' } });
            expect(deleted.statusCode).to.equal(403);
            const synced = await t.inject({ method: 'POST', url, headers: { ...clerkHeaders, 'x-method-override': 'SYNC' }, payload: { partnum: 'H-1', description: 'by sync' } });
            expect(synced.statusCode).to.equal(403);
            expect(synced.result.Error.message).to.contain('not authorized to create MXTESTPART');
            expect(counted.begins).to.equal(0);
        }
        finally {
            counted.restore();
        }

        const patched = await t.inject({ method: 'PATCH', url: path, headers: clerkHeaders, payload: { description: 'by patch' } });
        expect(patched.statusCode).to.equal(204);
        expect(writes()).to.equal([`update:update:${path.split('/').pop()}`]);
    });

    test('after-commit subscribers hear each committed HTTP write, and nothing of a refused or rolled-back one', async () => {

        heard.splice(0);
        const create = await t.inject({ method: 'POST', url, headers: { ...admin, transactionid: 'heard-1' }, payload: { partnum: 'A-1' } });
        const path = new URL(create.headers.location as string).pathname;
        const id = path.split('/').pop()!;
        expect(heard[0]).to.include({ transactionId: 'heard-1' });
        expect(heard[0]!.user.userid).to.equal('ADMIN');
        expect(heard[0]!.writes[0]!.key).to.equal({ partnum: 'A-1' });
        expect(heard[0]!.writes[0]!.structure.name).to.equal('MXTESTPART');
        expect((await t.inject({ method: 'PATCH', url: path, headers: admin, payload: { description: 'u' } })).statusCode).to.equal(204);
        expect((await t.inject({ method: 'PATCH', url: path, headers: { ...admin, patchtype: 'MERGE' }, payload: { description: 'm' } })).statusCode).to.equal(204);
        expect((await t.inject({ method: 'POST', url, headers: { ...admin, 'x-method-override': 'SYNC' }, payload: { partnum: 'A-1', description: 's' } })).statusCode).to.equal(204);
        expect(writes()).to.equal([`create:create:${id}`, `update:update:${id}`, `merge:update:${id}`, `sync:update:${id}`]);

        // Refused (a duplicate key, a repeated transactionid, an If-Match that does not hold): nothing heard.
        expect((await t.inject({ method: 'POST', url, headers: admin, payload: { partnum: 'A-1' } })).statusCode).to.equal(400);
        expect((await t.inject({ method: 'POST', url, headers: { ...admin, transactionid: 'heard-1' }, payload: { partnum: 'A-2' } })).statusCode).to.equal(409);
        expect((await t.inject({ method: 'DELETE', url: path, headers: { ...admin, 'if-match': '"1"' } })).statusCode).to.equal(412);
        expect(writes()).to.equal([]);

        // A bulk item by item: each committed item heard on its own; the failing one not at all.
        const bulk = await t.inject({ method: 'POST', url, headers: { ...admin, 'x-method-override': 'BULK' }, payload: [{ partnum: 'A-2' }, { partnum: 'A-1' }, { _action: 'Delete', href: path }] });
        expect(bulk.result.map((item: { _responsemeta: { status: string } }) => item._responsemeta.status)).to.equal(['201', '400', '204']);
        const a2 = new URL(bulk.result[0]._responsemeta.Location).pathname.split('/').pop();
        expect(heard.map((commit) => commit.writes.length)).to.equal([1, 1]);
        expect(writes()).to.equal([`create:create:${a2}`, `delete:delete:${id}`]);

        // All or nothing: heard once with every item when it commits, not at all when it rolls back.
        const together = await t.inject({ method: 'POST', url, headers: { ...admin, 'x-method-override': 'BULK', allornothing: '1' }, payload: [{ partnum: 'A-3' }, { _action: 'AddChange', partnum: 'A-2', description: 'b' }] });
        expect(together.statusCode).to.equal(200);
        const a3 = new URL(together.result[0]._responsemeta.Location).pathname.split('/').pop();
        expect(writes()).to.equal([`create:create:${a3} sync:update:${a2}`]);
        const rolledBack = await t.inject({ method: 'POST', url, headers: { ...admin, 'x-method-override': 'BULK', allornothing: '1' }, payload: [{ partnum: 'A-4' }, { partnum: 'A-3' }] });
        expect(rolledBack.result.map((item: { _responsemeta: { status: string } }) => item._responsemeta.status)).to.equal(['424', '400']);
        expect(writes()).to.equal([]);
        expect(await t.server.app.osprey.knex('part').where({ partnum: 'A-4' }).first()).to.not.exist();
    });

    test('a failing subscriber is logged and does not turn a committed write into an error', async () => {

        const logged: unknown[] = [];
        const listener = (event: { tags: string[]; data: unknown }) => {

            if (event.tags.includes('after-commit')) {
                logged.push(event.data);
            }
        };

        t.server.events.on('log', listener);
        const failing = onCommit(t.server.app.osprey, () => Promise.reject(new Error('subscriber broke')));
        const quiet = onCommit(t.server.app.osprey, () => {

            throw 'not an error';
        });

        try {
            const res = await t.inject({ method: 'POST', url, headers: admin, payload: { partnum: 'F-1' } });
            expect(res.statusCode).to.equal(201);
            expect(await t.server.app.osprey.knex('part').where({ partnum: 'F-1' }).first()).to.exist();
            expect(logged).to.have.length(2);
            expect((logged[0] as { message: string }).message).to.equal('subscriber broke');
            expect(logged[1]).to.equal('not an error');
            expect(writes()).to.have.length(1);
        }
        finally {
            failing();
            quiet();
            t.server.events.removeListener('log', listener);
        }
    });

    test('subscribers belong to their server: another server in the process does not hear its writes', async () => {

        const structures = copyFixture(fixture);
        const other = await startTestServer(testDatabases[0]!, { ...settings, structures });
        const heardByOther: Commit[] = [];
        const stopOther = onCommit(other.server.app.osprey, (commit) => {

            heardByOther.push(commit);
        });

        try {
            heard.splice(0);
            expect((await t.inject({ method: 'POST', url, headers: admin, payload: { partnum: 'S-1' } })).statusCode).to.equal(201);
            expect(heardByOther).to.equal([]);
            expect((await other.inject({ method: 'POST', url, headers: admin, payload: { partnum: 'S-2' } })).statusCode).to.equal(201);
            expect(heardByOther.map((commit) => commit.writes[0]!.key)).to.equal([{ partnum: 'S-2' }]);
            expect(heard.map((commit) => commit.writes[0]!.key)).to.equal([{ partnum: 'S-1' }]);
        }
        finally {
            stopOther();
            await other.stop();
            removeCopy(structures);
        }
    });
});
