import { EventEmitter } from 'node:events';

import * as Code from '@hapi/code';
import * as Lab from '@hapi/lab';

import { createKnex } from '../../src/db/knex';
import { sideConnected, sideRows } from '../../src/db/pg-client';


const { experiment, test } = exports.lab = Lab.script();
const { expect } = Code;

// The PostgreSQL client's side connection (the credential stamp's reads) against a stand-in connection, so that
// it is checked without a server (the credential tests of test/auth run against a real one when
// TEST_DATABASE_URL is set).
class FakeConnection extends EventEmitter {

    readonly statements: { name: string; text: string; values: readonly unknown[] }[] = [];
    fail = false;

    query(config: { name: string; text: string; values: readonly unknown[] }): Promise<unknown> {

        this.statements.push(config);
        return this.fail ? Promise.reject(new Error('lost')) : Promise.resolve({ rows: [{ stamp: this.statements.length }] });
    }
}

const unreachable = 'postgres://nobody@127.0.0.1:1/none';

interface FakeClient {
    acquireRawConnection: () => Promise<FakeConnection>;
    destroyRawConnection: (connection: FakeConnection) => Promise<void>;
}

const fake = () => {

    const knex = createKnex({ databaseUrl: unreachable });
    const client = knex.client as unknown as FakeClient;
    const opened: FakeConnection[] = [];
    const closed: FakeConnection[] = [];
    client.acquireRawConnection = () => {

        const connection = new FakeConnection();
        opened.push(connection);
        return Promise.resolve(connection);
    };

    client.destroyRawConnection = (connection) => {

        closed.push(connection);
        return Promise.resolve();
    };

    return { knex, opened, closed };
};

experiment('PostgreSQL side connection', () => {

    test('where it cannot be opened, or on SQLite, statements are left to the pool', async () => {

        const knex = createKnex({ databaseUrl: unreachable });
        expect(await sideConnected(knex)).to.be.false();
        expect(sideRows(knex, 'a', 'select 1', [])).to.be.undefined();
        await knex.destroy();
        const sqlite = createKnex({ databaseUrl: 'sqlite::memory:' });
        expect(await sideConnected(sqlite)).to.be.false();
        expect(sideRows(sqlite, 'a', 'select 1', [])).to.be.undefined();
        await sqlite.destroy();
    });

    test('runs named statements while up; a lost or failing connection leaves them to the pool until it is opened again', async () => {

        const { knex, opened, closed } = fake();
        expect(await sideConnected(knex)).to.be.true();
        const [first] = opened;
        expect(await sideRows(knex, 'osprey_x', 'select $1', [1])).to.equal([{ stamp: 1 }]);
        expect(first!.statements).to.equal([{ name: 'osprey_x', text: 'select $1', values: [1] }]);

        // A failed statement: no rows (the caller runs it elsewhere), and the connection is closed.
        first!.fail = true;
        expect(await sideRows(knex, 'osprey_x', 'select $1', [2])).to.be.undefined();
        expect(closed).to.equal([first]);
        expect(sideRows(knex, 'osprey_x', 'select $1', [3])).to.be.undefined();         // not before a second
        expect(opened).to.have.length(1);

        await knex.destroy();
    });

    test('an ended connection is let go', async () => {

        const { knex, opened } = fake();
        expect(await sideConnected(knex)).to.be.true();
        opened[0]!.emit('end');
        expect(sideRows(knex, 'osprey_x', 'select 1', [])).to.be.undefined();
        await knex.destroy();
    });

    test('a connection that comes up after the client closed is closed too', async () => {

        const { knex, opened, closed } = fake();
        const connected = sideConnected(knex);
        await knex.destroy();
        expect(await connected).to.be.false();
        expect(closed).to.equal(opened);
        expect(opened).to.have.length(1);
    });
});
