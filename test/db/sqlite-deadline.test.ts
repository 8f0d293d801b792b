import * as Code from '@hapi/code';
import * as Lab from '@hapi/lab';

import { createKnex } from '../../src/db/knex';
import { StatementTimeout } from '../../src/db/sqlite-deadline';
import { transaction } from '../../src/db/transaction';


const { experiment, test } = exports.lab = Lab.script();
const { expect } = Code;

// The statement timeout on better-sqlite3 (src/db/sqlite-deadline.ts): lower() and osprey_deadline() end a read
// past its deadline from inside the statement. A million lower() calls take far longer than 50 ms.
const folds = `with recursive c(x) as (select 1 union all select x + 1 from c where x < 1000000)
    select count(*) as n from c where lower('X' || x) like 'x%'`;

experiment('the SQLite statement deadline', () => {

    test('ends a read past it, but not one in a transaction nor one without a timeout', async () => {

        const knex = createKnex({ databaseUrl: 'sqlite::memory:', statementTimeoutMs: 50 });
        const unlimited = createKnex({ databaseUrl: 'sqlite::memory:' });
        try {
            await expect(knex.raw(folds)).to.reject(StatementTimeout, /OSPREY_STATEMENT_TIMEOUT_MS/);
            await expect(knex.raw(`select count(*) as n from (${folds}) where osprey_deadline()`)).to.reject(StatementTimeout);
            // The connection goes on reading.
            expect(await knex.raw('select lower(\'A\') as a')).to.equal([{ a: 'a' }]);
            expect(await transaction(knex, (db) => db.rows(folds))).to.equal([{ n: 1000000 }]);
            expect(await unlimited.raw(folds)).to.equal([{ n: 1000000 }]);
        }
        finally {
            await knex.destroy();
            await unlimited.destroy();
        }
    });
});
