import type { Knex } from 'knex';


// The PostgreSQL client: knex's own, with two additions.
//
// A read's statement timeout (knex.ts) is lifted for every transaction — writes, the migration, the demo seed —
// in the same round trip as its BEGIN: a read's limit is not theirs.
//
// And a connection of its own, outside the pool, for the one statement every authenticated request runs: the
// read of osprey_authstamp (src/auth/credential-stamp.ts). Through the pool that read cost 70–100 µs of CPU per
// member GET (taking a connection and giving it back, knex's runner, a turn of the event loop for its answer);
// sent straight to a connection kept for it, far less. While it is down (not opened yet, lost, or failing) the
// read goes through the pool, and the connection is opened again, at most once a second.

interface Connection {
    query(config: { name: string; text: string; values: readonly unknown[] }): Promise<{ rows: Record<string, unknown>[] }>;
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

const beginOnly = /^\s*begin\s*;?\s*$/i;

interface Side {
    connection?: Connection;
    connecting?: Promise<void>;
    retryAt: number;
    closed: boolean;
}

// Per client configuration: knex runs a transaction through a copy of the client (Object.create) that shares
// the configuration object but none of the client's own fields.
const sides = new WeakMap<object, Side>();

const sideOf = (client: BaseClient): Side => {

    let side = sides.get(client.config);
    if (!side) {
        side = { retryAt: 0, closed: false };
        sides.set(client.config, side);
    }

    return side;
};

const lose = (side: Side, connection: Connection) => {

    if (side.connection === connection) {
        side.connection = undefined;
        side.retryAt = Date.now() + 1000;
    }
};

const open = async (client: BaseClient, side: Side): Promise<void> => {

    const connection = await client.acquireRawConnection();
    connection.on('error', () => lose(side, connection));
    connection.on('end', () => lose(side, connection));
    if (side.closed) {
        await client.destroyRawConnection(connection);
        return;
    }

    side.connection = connection;
};

// The side connection when it is up; else undefined, and it is opened in the background (when it may be).
const sideConnectionOf = (client: BaseClient): Connection | undefined => {

    const side = sideOf(client);
    if (side.connection || side.connecting || side.closed || Date.now() < side.retryAt) {
        return side.connection;
    }

    side.connecting = open(client, side)
        .catch(() => {

            side.retryAt = Date.now() + 1000;
        })
        .finally(() => {

            side.connecting = undefined;
        });
    return undefined;
};

export const sidePgClient = (): typeof Knex.Client => {

    const Base = require('knex/lib/dialects/postgres') as new (...args: unknown[]) => BaseClient;

    const Client = class extends Base {

        // The rows of a named statement on the side connection; undefined where it is not up (run it elsewhere).
        // A statement that fails there ends the connection: the caller runs it elsewhere, and sees the error there.
        sideRows(name: string, text: string, values: readonly unknown[]): Promise<Record<string, unknown>[] | undefined> | undefined {

            const connection = sideConnectionOf(this);
            if (!connection) {
                return undefined;
            }

            return connection.query({ name, text, values }).then(
                (result) => result.rows,
                async () => {

                    const side = sideOf(this);
                    lose(side, connection);
                    await this.destroyRawConnection(connection).catch(() => undefined);
                    return undefined;
                });
        }

        // Resolves once the side connection is up (or could not be opened): for a node's start and the tests.
        async sideConnected(): Promise<boolean> {

            const side = sideOf(this);
            sideConnectionOf(this);
            await side.connecting;
            return side.connection !== undefined;
        }

        override async _query(connection: Connection, obj: QueryObject): Promise<QueryObject> {

            const lift = beginOnly.test(obj.sql ?? '') && (this.config as { connection?: { statement_timeout?: number } }).connection?.statement_timeout;
            return await super._query(connection, lift ? { ...obj, sql: 'BEGIN; SET LOCAL statement_timeout = 0' } : obj);
        }

        override async destroy(callback?: unknown): Promise<void> {

            const side = sideOf(this);
            side.closed = true;
            await side.connecting;
            const connection = side.connection;
            side.connection = undefined;
            if (connection) {
                await this.destroyRawConnection(connection);
            }

            return await super.destroy(callback);
        }
    };

    return Client as unknown as typeof Knex.Client;
};

type SideClient = { sideRows?: (name: string, text: string, values: readonly unknown[]) => Promise<Record<string, unknown>[] | undefined> | undefined; sideConnected?: () => Promise<boolean> };

// The rows of a named statement on the side connection of a PostgreSQL knex; undefined (at once, or as the
// answer) where it could not run there: not PostgreSQL, the connection not up, or it failed.
export const sideRows = (knex: Knex, name: string, text: string, values: readonly unknown[]): Promise<Record<string, unknown>[] | undefined> | undefined => (knex.client as SideClient).sideRows?.(name, text, values);

// True once the side connection is up (PostgreSQL only).
export const sideConnected = async (knex: Knex): Promise<boolean> => await ((knex.client as SideClient).sideConnected?.() ?? Promise.resolve(false));

// Until issue 34 every node LISTENed for a notice that triggers sent on each change of the login tables, and
// kept who a caller is while it heard; the credential stamp replaced them (src/auth/credential-stamp.ts). The
// triggers of a database that had them are dropped, so that its writes no longer queue notices no one hears.
// Where none is left it only reads: dropping a trigger locks its table against the writes of the nodes serving it.
export const dropChangeNotices = async (knex: Knex): Promise<void> => {

    const { rows } = await knex.raw(`select c.relname as "table" from pg_trigger t join pg_class c on c.oid = t.tgrelid join pg_namespace n on n.oid = c.relnamespace
        where t.tgname = 'osprey_notify_change' and n.nspname = current_schema()`) as { rows: { table: string }[] };
    const { rows: [functions] } = await knex.raw(`select count(*)::int as n from pg_proc p join pg_namespace n on n.oid = p.pronamespace
        where p.proname = 'osprey_notify_change' and n.nspname = current_schema()`) as { rows: [{ n: number }] };
    if (!rows.length && !functions.n) {
        return;
    }

    await knex.transaction(async (trx) => {

        for (const { table } of rows) {
            await trx.raw('drop trigger if exists osprey_notify_change on ??', [table]);
        }

        await trx.raw('drop function if exists osprey_notify_change()');
    });
};
