import type { Knex } from 'knex';

import type { TestServer } from './server';


export type Rows = Record<string, unknown>[];

// Every row of a table, ordered by its unique id, with values as text so that both databases compare alike.
export const tableRows = async (t: TestServer, table: string, uniqueColumn: string): Promise<Rows> => {

    const knex = t.server.app.osprey.knex as Knex;
    const rows = await knex(table).orderBy(uniqueColumn) as Rows;
    return rows.map((row) => Object.fromEntries(Object.entries(row).map(([key, value]) => [key, value === null ? null : value instanceof Date ? value.toISOString() : String(value)])));
};

// How many rows a table holds: what a test compares a count or a whole answer with, rather than a number the
// demo seed happens to make.
export const tableCount = async (t: TestServer, table: string): Promise<number> => {

    const [{ n }] = await (t.server.app.osprey.knex as Knex)(table).count({ n: '*' }) as [{ n: number | string }];
    return Number(n);
};

export type Snapshot = Record<string, Rows>;

// Every table of every structure the server serves (children included), whole.
export const snapshot = async (t: TestServer): Promise<Snapshot> => {

    const result: Snapshot = {};
    for (const object of t.server.app.osprey.registry.objects()) {
        result[object.table] = await tableRows(t, object.table, object.uniqueColumn);
    }

    return result;
};

export const uniqueColumnOf = (t: TestServer, table: string): string => t.server.app.osprey.registry.objects().find((object) => object.table === table)!.uniqueColumn;

// The rows of `after` that differ from `before`, by unique id: what a write changed, added and removed.
export const changes = (before: Rows, after: Rows, uniqueColumn: string) => {

    const was = new Map(before.map((row) => [row[uniqueColumn], JSON.stringify(row)]));
    const now = new Map(after.map((row) => [row[uniqueColumn], JSON.stringify(row)]));
    return {
        added: after.filter((row) => !was.has(row[uniqueColumn])),
        removed: before.filter((row) => !now.has(row[uniqueColumn])),
        changed: after.filter((row) => was.has(row[uniqueColumn]) && was.get(row[uniqueColumn]) !== JSON.stringify(row))
    };
};
