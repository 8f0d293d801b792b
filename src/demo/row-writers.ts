import Database from 'better-sqlite3';
import type { Knex } from 'knex';


// Writers that load generated rows fast. A writer answers a promise only when it had to wait (a batch went
// to the database), so the loader awaits once per batch and not once per row.
export interface RowWriter {
    add: (table: string, row: Record<string, unknown>) => Promise<void> | undefined;
    close: () => Promise<void>;
}

// better-sqlite3 binds no booleans; SQLite stores them as 0/1, as knex does for the server.
const sqliteValue = (value: unknown) => (typeof value === 'boolean' ? Number(value) : value);

const quoted = (name: string) => `"${name.replace(/"/g, '""')}"`;

// SQLite: one prepared INSERT per table, run inside large transactions. Durability is off while loading (a
// crash only means generating again); the server opens the file with its own settings afterwards.
export const sqliteWriter = (file: string): RowWriter => {

    const db = new Database(file);
    db.pragma('journal_mode = WAL');
    db.pragma('synchronous = OFF');
    const inserts = new Map<string, { columns: string[]; statement: Database.Statement }>();
    let count = 0;
    db.exec('begin');

    return {
        add: (table, row) => {

            let insert = inserts.get(table);
            if (!insert) {
                const columns = Object.keys(row);
                const statement = db.prepare(`insert into ${quoted(table)} (${columns.map(quoted).join(', ')}) values (${columns.map(() => '?').join(', ')})`);
                insert = { columns, statement };
                inserts.set(table, insert);
            }

            insert.statement.run(insert.columns.map((column) => sqliteValue(row[column])));
            // Commit now and then so the write-ahead log stays small.
            if (++count % 200_000 === 0) {
                db.exec('commit');
                db.exec('begin');
            }

            return undefined;
        },
        close: () => {

            db.exec('commit');
            db.pragma('wal_checkpoint(TRUNCATE)');
            db.close();
            return Promise.resolve();
        }
    };
};

// PostgreSQL (any knex database): multi-row INSERTs of up to ~30,000 bound values each (PostgreSQL allows
// 65,535 per statement), all in one transaction.
export const knexWriter = async (knex: Knex): Promise<RowWriter> => {

    const trx = await knex.transaction();
    const buffers = new Map<string, Record<string, unknown>[]>();
    const flush = async (table: string) => {

        const rows = buffers.get(table)!;
        buffers.set(table, []);
        if (rows.length) {
            await trx(table).insert(rows);
        }
    };

    return {
        add: (table, row) => {

            const rows = buffers.get(table) ?? [];
            buffers.set(table, rows);
            rows.push(row);
            return rows.length >= Math.floor(30_000 / Object.keys(row).length) ? flush(table) : undefined;
        },
        close: async () => {

            try {
                for (const table of buffers.keys()) {
                    await flush(table);
                }

                await trx.commit();
            }
            catch (err) {
                await trx.rollback();
                throw err;
            }
        }
    };
};
