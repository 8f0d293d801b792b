import type { Knex } from 'knex';

import { Users } from '../auth/users';
import type { OspreyOptions } from '../config';
import { createKnex, databaseKind, sqliteFile } from '../db/knex';
import { migrate } from '../db/migrate';
import { analyzeAll } from '../db/statistics';
import { loadRegistry } from '../load-registry';
import { knexWriter, sqliteWriter, type RowWriter } from './row-writers';
import { scaleRows, type ScaleSize } from './scale-rows';
import { ensureUsers } from './users';


export class GenerateError extends Error { }

// What a generated database holds, kept in osprey_setting: a later run with the same size reuses it, and the
// highest unique id of every table tells the benchmark which rows it added itself.
export interface GeneratedData extends ScaleSize {
    rows: Record<string, number>;
    maxIds: Record<string, number>;
    seconds: number;
}

const markerName = 'osprey.generated';

export const readGenerated = async (knex: Knex): Promise<GeneratedData | undefined> => {

    if (!await knex.schema.hasTable('osprey_setting')) {
        return undefined;
    }

    const row = await knex('osprey_setting').where({ name: markerName }).first('value') as { value: string } | undefined;
    return row ? JSON.parse(row.value) as GeneratedData : undefined;
};

const countRows = async (knex: Knex, table: string) => Number((await knex(table).count({ n: '*' }))[0]!.n);

const load = async (options: OspreyOptions, knex: Knex, tables: Set<string>, size: ScaleSize) => {

    const writer: RowWriter = databaseKind(options.databaseUrl) === 'sqlite' ? sqliteWriter(sqliteFile(options.databaseUrl)) : await knexWriter(knex);
    const rows: Record<string, number> = {};
    for (const [table, row] of scaleRows(size)) {
        if (tables.has(table)) {
            rows[table] = (rows[table] ?? 0) + 1;
            const pending = writer.add(table, row);
            if (pending) {
                await pending;
            }
        }
    }

    await writer.close();
    return rows;
};

// Fills an empty database with `size` assets and work orders (with meters, tasks, labor, materials and status
// history): the server's own migration creates the tables and the demo users, then the rows go in by batches.
export const generateData = async (options: OspreyOptions, size: ScaleSize): Promise<GeneratedData & { reused: boolean }> => {

    const registry = loadRegistry(options.structures);
    const kind = databaseKind(options.databaseUrl);
    const tables = new Set(registry.objects().map((object) => object.table));
    let knex = createKnex(options);
    try {
        await migrate(knex, registry, kind);
        const existing = await readGenerated(knex);
        if (existing) {
            if (existing.assets === size.assets && existing.workorders === size.workorders) {
                return { ...existing, reused: true };
            }

            throw new GenerateError(`The database already holds generated data of another size (${existing.assets} assets, ${existing.workorders} work orders): use another database.`);
        }

        for (const table of ['asset', 'workorder', 'locations', 'person'].filter((name) => tables.has(name))) {
            if (await countRows(knex, table) > 0) {
                throw new GenerateError(`The database already holds records (table ${table}); generate into an empty database.`);
            }
        }

        await ensureUsers(new Users(knex), { ...options, demo: true });
        const started = performance.now();
        if (kind === 'sqlite') {
            // The loader opens the file itself; knex's connection would only hold a second writer.
            await knex.destroy();
        }

        const rows = await load(options, knex, tables, size);
        if (kind === 'sqlite') {
            knex = createKnex(options);
            // Full statistics for the planner (about 0.6 s for 200,000 work orders), as PostgreSQL's below.
            await analyzeAll(knex);
        }
        else {
            // What autovacuum would do a little later: statistics for the planner, and the visibility map that
            // lets counts read the index alone.
            await knex.raw('vacuum analyze');
        }

        const maxIds: Record<string, number> = {};
        for (const object of registry.objects()) {
            const [row] = await knex(object.table).max({ id: object.uniqueColumn });
            maxIds[object.table] = Number(row?.id ?? 0);
        }

        const generated: GeneratedData = { ...size, rows, maxIds, seconds: Math.round((performance.now() - started) / 100) / 10 };
        await knex('osprey_setting').insert({ name: markerName, value: JSON.stringify(generated) });
        return { ...generated, reused: false };
    }
    finally {
        await knex.destroy();
    }
};
