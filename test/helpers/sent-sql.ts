import type { Knex } from 'knex';

import { clientOf } from '../../src/db/db';


// The SQL a knex's client sends while `during` runs, in order; `around` may act before each statement is sent
// (hold it, or let another transaction in first).
export const watchSql = async (knex: Knex, during: () => Promise<unknown>, around?: (sql: string) => Promise<void>): Promise<string[]> => {

    const client = clientOf(knex) as unknown as { _query: (connection: object, obj: { sql: string }) => Promise<unknown> };
    const original = client._query;
    const sent: string[] = [];
    client._query = async function (this: unknown, connection, obj) {

        await around?.(obj.sql);
        sent.push(obj.sql);
        return await original.call(this, connection, obj);
    };

    try {
        await during();
    }
    finally {
        client._query = original;
    }

    return sent;
};
