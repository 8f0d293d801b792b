import type { Db } from '../db/db';
import type { DatabaseKind } from '../db/knex';
import { applyWhere } from '../read/compile/compile-where';
import { parseWhere } from '../read/parse/where';
import type { Registry, Structure } from '../structures/registry';


// A workflow's conditions are oslc.where text about its record, answered by the database: the record's unique id
// and the condition in one query, compiled by the query compiler as any where is, so a condition means on both
// databases (and across children and relations) what the same oslc.where would. It runs in the workflow's
// transaction, so it sees what the workflow wrote before it. The server's own question: relations are followed
// without the user's reach (it answers yes or no, never rows).

// The unique ids, of `ids`, of the records for which `condition` holds.
export const holdingFor = async (db: Db, registry: Registry, kind: DatabaseKind, structure: Structure, condition: string, ids: readonly unknown[]): Promise<Set<string>> => {

    if (!ids.length) {
        return new Set();
    }

    const { root } = structure;
    const query = db.query({ q0: root.table }).select(`q0.${root.uniqueColumn}`).whereIn(`q0.${root.uniqueColumn}`, ids as string[]);
    applyWhere(query, { registry, kind, parameter: 'workflow condition', params: {}, structure, object: root, alias: 'q0', aliases: { next: 0 }, reach: undefined }, parseWhere(condition, 'workflow condition'));
    const rows = await query as Record<string, unknown>[];
    return new Set(rows.map((row) => String(row[root.uniqueColumn])));
};

export const holds = async (db: Db, registry: Registry, kind: DatabaseKind, structure: Structure, condition: string, id: unknown): Promise<boolean> => {

    return (await holdingFor(db, registry, kind, structure, condition, [id])).has(String(id));
};
