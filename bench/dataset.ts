import * as Path from 'node:path';

import { validateOptions, type OspreyOptions } from '../src/config';
import { createKnex, databaseKind } from '../src/db/knex';
import { generateData, readGenerated, type GeneratedData } from '../src/demo/generate-data';
import { loadRegistry } from '../src/load-registry';
import { deleteDocuments } from './attachment-files';
import { root } from './options';


export const structuresDir = Path.join(root, 'structures');

export const datasetOptions = (databaseUrl: string): OspreyOptions => validateOptions({ databaseUrl, structures: structuresDir, demo: true, logLevel: 'silent' });

export const sqliteUrl = (dataDir: string, assets: number, workorders: number) => `sqlite:${Path.join(dataDir, `osprey-${assets}a-${workorders}w.sqlite`)}`;

// The generated data set, made once and then reused (the generator answers at once when the database
// already holds data of this size).
export const prepareDataset = (databaseUrl: string, assets: number, workorders: number) => generateData(datasetOptions(databaseUrl), { assets, workorders });

// Takes the data set back to what the generator wrote: rows the benchmark created (ids above the generated
// ones) are deleted, as are all attached documents (the generator attaches none), and the key counters start
// again from the highest stored number. Updated descriptions stay; they change no count and no page. It runs
// before and after every run.
export const resetDataset = async (databaseUrl: string): Promise<GeneratedData> => {

    const knex = createKnex(datasetOptions(databaseUrl));
    try {
        const generated = await readGenerated(knex);
        if (!generated) {
            throw new Error(`${databaseUrl} holds no generated data set`);
        }

        for (const object of loadRegistry(structuresDir).objects()) {
            if (generated.maxIds[object.table] !== undefined) {
                await knex(object.table).where(object.uniqueColumn, '>', generated.maxIds[object.table]!).delete();
            }
        }

        await deleteDocuments(knex);
        await knex('osprey_autokey').delete();
        await knex('osprey_transaction').delete();
        if (databaseKind(databaseUrl) === 'postgresql') {
            // The deleted and updated rows leave dead tuples and clear the visibility map, so counts would read
            // the table as well as the index until autovacuum came by: runs would depend on its timing.
            await knex.raw('vacuum analyze');
        }

        return generated;
    }
    finally {
        await knex.destroy();
    }
};
