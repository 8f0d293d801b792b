// Counts of writes per table, from which a read cache tells whether the tables it read may have changed
// (read-cache.ts, now removed: the login caches live under osprey_authstamp, src/auth/stamped-cache.ts, and
// nothing reads these counts; they go in a later tidy). A write is counted against the table it names, so that a read cached for some tables outlives
// writes to others; a write that names no table (DDL, a CTE) counts against every table. A table changed by a
// foreign key's cascade is not counted: a cached read lists the tables whose deletes cascade into it.

// The table an INSERT, UPDATE or DELETE names; undefined for anything else a statement may write.
export const writtenTable = (sql: string): string | undefined => /^\s*(?:insert\s+(?:or\s+\w+\s+)?into|replace\s+into|update(?:\s+or\s+\w+)?|delete\s+from)\s+[`"]?(\w+)[`"]?(?:\s|\(|$)/i.exec(sql)?.[1]?.toLowerCase();

// Statements that begin or end a transaction: they change no table themselves.
export const transactionControl = /^\s*(?:begin|commit|end|rollback|savepoint|release)\b/i;

export class WriteCounts {

    #anyTable = 0;
    readonly #tables = new Map<string, number>();

    count(table: string | undefined): void {

        if (table === undefined) {
            ++this.#anyTable;
            return;
        }

        const name = table.toLowerCase();
        this.#tables.set(name, (this.#tables.get(name) ?? 0) + 1);
    }

    stamp(tables: readonly string[]): string {

        return [this.#anyTable, ...tables.map((table) => this.#tables.get(table.toLowerCase()) ?? 0)].join('.');
    }
}
