import * as Code from '@hapi/code';
import * as Lab from '@hapi/lab';
import Knex from 'knex';

import { asBoom } from '../../src/errors/edge';
import { testDatabases } from '../helpers/databases';


const { experiment, test } = exports.lab = Lab.script();
const { expect } = Code;

const unavailable = (error: unknown) => {

    const boom = asBoom(error);
    expect(boom.output.statusCode).to.equal(503);
    expect((boom.data as { reasonCode: string }).reasonCode).to.equal('BMXAA1733E');
    expect(boom.message).to.contain('may not have been committed');
};

experiment('a database connection lost while a request runs', () => {

    test('is a 503 in Maximo\'s shape, not a 500: shutdowns, connection exceptions, a refused connect, an empty pool', () => {

        unavailable(Object.assign(new Error('terminating connection due to administrator command'), { code: '57P01' }));
        unavailable(Object.assign(new Error('the database system is starting up'), { code: '57P03' }));
        unavailable(Object.assign(new Error('connection failure'), { code: '08006' }));
        unavailable(new Error('Connection terminated unexpectedly'));
        unavailable(Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED', syscall: 'connect' }));
        unavailable(Object.assign(new Error('Knex: Timeout acquiring a connection. The pool is probably full.'), { name: 'KnexTimeoutError' }));
        // Other errors keep their answer: a constraint is not a lost connection, nor a reset outside a connect.
        expect(asBoom(Object.assign(new Error('duplicate key'), { code: '23505' })).output.statusCode).to.equal(500);
        expect(asBoom(Object.assign(new Error('read ECONNRESET'), { code: 'ECONNRESET', syscall: 'read' })).output.statusCode).to.equal(500);
    });

    const postgres = testDatabases.find((database) => database.name === 'postgresql');
    if (postgres) {
        test('as PostgreSQL reports a backend terminated under a statement', async () => {

            const { url, drop } = await postgres.create();
            const knex = Knex({ client: 'pg', connection: url, pool: { min: 0, max: 2 } });
            try {
                const sleeping = knex.raw('select pg_sleep(10)');
                const caught = sleeping.then(() => undefined, (error: unknown) => error);
                await new Promise((resolve) => setTimeout(resolve, 300));
                await knex.raw('select pg_terminate_backend(pid) from pg_stat_activity where query = ? and pid <> pg_backend_pid()', ['select pg_sleep(10)']);
                unavailable(await caught);
            }
            finally {
                await knex.destroy();
                await drop();
            }
        });
    }
});
