import type { Knex } from 'knex';

import { writtenTable, WriteCounts } from './write-counts';


// On PostgreSQL other server nodes write to the same database, so a node can only keep a read (who the caller
// is) while it hears of every change to the tables behind it. Those tables carry a trigger that NOTIFYs their
// name when a statement changes them; the notice is delivered at commit to every node, each of which LISTENs on a
// connection of its own and counts the notices per table (nothing compares them since the login caches moved to src/auth/stamped-cache.ts). Its own writes a
// node counts as it makes them, and again when their transaction ends, so a read made before the commit is never
// kept past it. While the listening connection is down nothing is cached.

const channel = 'osprey_change';

interface Connection {
    query(sql: string): Promise<unknown>;
    on(event: 'notification', listener: (message: { channel: string; payload?: string }) => void): void;
    on(event: 'error' | 'end', listener: () => void): void;
}

interface QueryObject {
    sql?: string;
}

interface BaseClient {
    readonly config: object;
    acquireRawConnection(): Promise<Connection>;
    destroyRawConnection(connection: Connection): Promise<void>;
    _query(connection: Connection, obj: QueryObject): Promise<QueryObject>;
    destroy(callback?: unknown): Promise<void>;
}

// Statements that change nothing; anything else not naming its table counts against every table.
const reads = /^\s*(?:select|begin|commit|rollback|savepoint|release|set|show|listen|explain|values)\b/i;
const ends = /^\s*(?:commit|rollback(?!\s+to))\b/i;
const beginOnly = /^\s*begin\s*;?\s*$/i;

interface State {
    readonly writes: WriteCounts;
    // The tables each connection's open transaction wrote: counted again when it ends.
    readonly pending: WeakMap<Connection, Set<string | undefined>>;
    listener?: Connection;
    connecting?: Promise<void>;
    serial: number;
    retryAt: number;
    closed: boolean;
}

// Per client configuration: knex runs a transaction through a copy of the client (Object.create) that shares
// the configuration object but none of the client's own fields.
const states = new WeakMap<object, State>();

const stateOf = (client: BaseClient): State => {

    let state = states.get(client.config);
    if (!state) {
        state = { writes: new WriteCounts(), pending: new WeakMap(), serial: 0, retryAt: 0, closed: false };
        states.set(client.config, state);
    }

    return state;
};

const listen = async (client: BaseClient, state: State): Promise<void> => {

    const connection = await client.acquireRawConnection();
    const lost = () => {

        if (state.listener === connection) {
            state.listener = undefined;
            state.retryAt = Date.now() + 1000;
        }
    };

    connection.on('notification', (message) => message.channel === channel && state.writes.count(message.payload));
    connection.on('error', lost);
    connection.on('end', lost);
    await connection.query(`listen ${channel}`);
    if (state.closed) {
        await client.destroyRawConnection(connection);
        return;
    }

    ++state.serial;                                         // what was counted while not listening is unknown
    state.listener = connection;
};

const changeStampOf = (client: BaseClient, tables: readonly string[]): string | undefined => {

    const state = stateOf(client);
    if (state.listener) {
        return `${state.serial}.${state.writes.stamp(tables)}`;
    }

    if (!state.connecting && !state.closed && Date.now() >= state.retryAt) {
        state.connecting = listen(client, state)
            .catch(() => {

                state.retryAt = Date.now() + 1000;
            })
            .finally(() => {

                state.connecting = undefined;
            });
    }

    return undefined;
};

export const notifyingPgClient = (): typeof Knex.Client => {

    const Base = require('knex/lib/dialects/postgres') as new (...args: unknown[]) => BaseClient;

    const Client = class extends Base {

        // Resolves once this node listens (or could not start to).
        async changesHeard(): Promise<boolean> {

            const state = stateOf(this);
            changeStampOf(this, []);
            await state.connecting;
            return state.listener !== undefined;
        }

        changeStamp(tables: readonly string[]): string | undefined {

            return changeStampOf(this, tables);
        }

        override async _query(connection: Connection, obj: QueryObject): Promise<QueryObject> {

            const sql = obj.sql ?? '';
            const { writes, pending } = stateOf(this);
            if (reads.test(sql)) {
                // A read's statement timeout (knex.ts) is lifted for every transaction — writes, the migration, the
                // demo seed — in the same round trip (a simple query of two statements): a read's limit is not theirs.
                const lift = beginOnly.test(sql) && (this.config as { connection?: { statement_timeout?: number } }).connection?.statement_timeout;
                const result = await super._query(connection, lift ? { ...obj, sql: 'BEGIN; SET LOCAL statement_timeout = 0' } : obj);
                if (/^\s*begin\b/i.test(sql)) {
                    pending.set(connection, new Set());
                }
                else if (ends.test(sql)) {
                    pending.get(connection)?.forEach((table) => writes.count(table));
                    pending.delete(connection);
                }

                return result;
            }

            const table = writtenTable(sql);
            writes.count(table);
            try {
                return await super._query(connection, obj);
            }
            finally {
                const open = pending.get(connection);
                if (open) {
                    open.add(table);
                }
                else {
                    writes.count(table);
                }
            }
        }

        override async destroy(callback?: unknown): Promise<void> {

            const state = stateOf(this);
            state.closed = true;
            await state.connecting;
            const listener = state.listener;
            state.listener = undefined;
            if (listener) {
                await this.destroyRawConnection(listener);
            }

            return await super.destroy(callback);
        }
    };

    return Client as unknown as typeof Knex.Client;
};

// The body of the trigger function, compared with the installed one's so that a changed body is installed again.
const notifySource = `
            begin
                perform pg_notify('${channel}', tg_table_name);
                return null;
            end `;

// Installs the triggers that announce changes of these tables (idempotent; every node runs it at start). Where
// another node installed them already, it only reads: dropping and creating a trigger locks its table against
// the writes of the nodes that serve it.
export const notifyChanges = async (knex: Knex, tables: readonly string[]): Promise<void> => {

    const { rows: [installed] } = await knex.raw(`
        select (select p.prosrc from pg_proc p join pg_namespace n on n.oid = p.pronamespace
                where p.proname = 'osprey_notify_change' and n.nspname = current_schema()) as source,
            (select count(distinct c.relname) from pg_trigger t join pg_class c on c.oid = t.tgrelid join pg_namespace n on n.oid = c.relnamespace
                where t.tgname = 'osprey_notify_change' and n.nspname = current_schema() and c.relname = any(?)) as triggers`, [[...tables]]) as { rows: [{ source: string | null; triggers: number }] };
    if (installed.source === notifySource && installed.triggers === new Set(tables).size) {
        return;
    }

    await knex.transaction(async (trx) => {

        await trx.raw(`create or replace function osprey_notify_change() returns trigger language plpgsql as $$${notifySource}$$`);
        for (const table of tables) {
            await trx.raw('drop trigger if exists osprey_notify_change on ??', [table]);
            await trx.raw('create trigger osprey_notify_change after insert or update or delete or truncate on ?? for each statement execute procedure osprey_notify_change()', [table]);
        }
    });
};

// True once this node hears of other nodes' changes, so that its reads may be cached (PostgreSQL only).
export const changesHeard = async (knex: Knex): Promise<boolean> => await ((knex.client as { changesHeard?: () => Promise<boolean> }).changesHeard?.() ?? Promise.resolve(false));
