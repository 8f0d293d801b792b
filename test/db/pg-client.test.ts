import { EventEmitter } from 'node:events';

import * as Code from '@hapi/code';
import * as Lab from '@hapi/lab';

import { createKnex } from '../../src/db/knex';
import { changesHeard } from '../../src/db/pg-client';
import { changeStamp } from '../../src/db/sqlite-client';


const { experiment, test } = exports.lab = Lab.script();
const { expect } = Code;

// The PostgreSQL client's bookkeeping against a stand-in connection, so that it is checked without a server
// (the credential tests of test/auth run against a real one when TEST_DATABASE_URL is set).
class FakeConnection extends EventEmitter {

    readonly statements: string[] = [];

    query(config: string | { text: string }, done?: (err: Error | null, result: unknown) => void): Promise<unknown> | undefined {

        this.statements.push(typeof config === 'string' ? config : config.text);
        if (done) {
            done(null, { command: 'SELECT', rows: [] });
            return undefined;
        }

        return Promise.resolve({});
    }
}

const unreachable = 'postgres://nobody@127.0.0.1:1/none';

experiment('PostgreSQL change notices', () => {

    test('without a listening connection nothing may be cached, and a failed start is retried later', async () => {

        const knex = createKnex({ databaseUrl: unreachable });
        expect(await changesHeard(knex)).to.be.false();
        expect(changeStamp(knex, ['item'])).to.be.undefined();
        await knex.destroy();
        const sqlite = createKnex({ databaseUrl: 'sqlite::memory:' });
        expect(await changesHeard(sqlite)).to.be.false();
        await sqlite.destroy();
    });

    test('own writes, notices and a lost listener move the stamp', async () => {

        const knex = createKnex({ databaseUrl: unreachable });
        const client = knex.client as unknown as { acquireRawConnection: () => Promise<FakeConnection>; _query: (connection: FakeConnection, obj: { sql: string }) => Promise<unknown> };
        const listener = new FakeConnection();
        client.acquireRawConnection = () => Promise.resolve(listener);
        expect(await changesHeard(knex)).to.be.true();
        expect(listener.statements).to.equal(['listen osprey_change']);

        const stamp = () => changeStamp(knex, ['item', 'other']);
        const first = stamp();
        const connection = new FakeConnection();
        await client._query(connection, { sql: 'select 1' });
        expect(stamp()).to.equal(first);

        // A write outside a transaction is counted as it starts and when it is done.
        await client._query(connection, { sql: 'update "other" set n = 1' });
        const afterOther = stamp();
        expect(afterOther).to.not.equal(first);

        // In a transaction, once more when it ends.
        await client._query(connection, { sql: 'BEGIN;' });
        await client._query(connection, { sql: 'insert into "item" (n) values (1)' });
        const inside = stamp();
        expect(inside).to.not.equal(afterOther);
        await client._query(connection, { sql: 'COMMIT;' });
        expect(stamp()).to.not.equal(inside);

        // Statements naming no table count against every table.
        const beforeDdl = stamp();
        await client._query(connection, { sql: 'alter table "item" add column m integer' });
        expect(stamp()).to.not.equal(beforeDdl);

        // Another node's change arrives as a notice; notices of other channels are not counted.
        const beforeNotice = stamp();
        listener.emit('notification', { channel: 'elsewhere', payload: 'item' });
        expect(stamp()).to.equal(beforeNotice);
        listener.emit('notification', { channel: 'osprey_change', payload: 'item' });
        expect(stamp()).to.not.equal(beforeNotice);

        // Without the listener nothing is cached until it is back (not before a second has passed).
        listener.emit('end');
        expect(stamp()).to.be.undefined();
        expect(stamp()).to.be.undefined();
        await knex.destroy();
        expect(stamp()).to.be.undefined();
    });

    test('a listener that comes up after the client closed is closed too', async () => {

        const knex = createKnex({ databaseUrl: unreachable });
        const client = knex.client as unknown as { acquireRawConnection: () => Promise<FakeConnection>; destroyRawConnection: (connection: FakeConnection) => Promise<void> };
        const listener = new FakeConnection();
        const closed: FakeConnection[] = [];
        client.acquireRawConnection = () => Promise.resolve(listener);
        client.destroyRawConnection = (connection) => {

            closed.push(connection);
            return Promise.resolve();
        };

        const heard = changesHeard(knex);
        await knex.destroy();
        expect(await heard).to.be.false();
        expect(closed).to.equal([listener]);
    });
});
