import * as Fs from 'node:fs';
import * as Os from 'node:os';
import * as Path from 'node:path';

import Knex from 'knex';

import { startServer } from './processes';
import { scratchDatabase, takeOption } from './scratch-database';


// Times one meter reading added to an asset's meter that has n earlier readings (issue 35): the npm client's
// AssetService.updateMeterReading, a merge of the asset with {assetmeter: [{metername, newreading}]}, which the
// meters example plugin records as a METERREADING row. The earlier readings are inserted straight into the table.
// Prints, per n, the median and the slowest of a few readings. Not part of npm run bench.
//
//   npm run --silent build && node dist/bench/meter-readings.js [--pg postgres://postgres@127.0.0.1:5432/postgres] [10,1000,10000]

const args = process.argv.slice(2);
const option = (name: string) => takeOption(args, name);

const adminUrl = option('--pg');
const counts = (args[0] ?? '10,1000,10000').split(',').map(Number);
const repeats = 7;

const headers = { maxauth: Buffer.from('maxadmin:maxadmin').toString('base64'), 'content-type': 'application/json', 'x-method-override': 'PATCH', patchtype: 'MERGE' };

const database = () => scratchDatabase('osprey_meters', adminUrl);

const knexOf = (url: string) => (url.startsWith('sqlite:') ? Knex({ client: 'better-sqlite3', connection: { filename: url.slice('sqlite:'.length) }, useNullAsDefault: true }) : Knex({ client: 'pg', connection: url, pool: { min: 0, max: 1 } }));

const main = async () => {

    const db = await database();
    const data = Fs.mkdtempSync(Path.join(Os.tmpdir(), 'osprey-meters-data-'));
    const server = await startServer('Osprey', 'dist/src/main.js', {
        DATABASE_URL: db.url, OSPREY_DEMO: '1', OSPREY_LOG: 'error', OSPREY_SECRET: 'osprey-benchmark-secret-0123456789abcdef', OSPREY_DATA: data
    }, [], 'is listening on');
    const knex = knexOf(db.url);
    try {
        const assets = await knex('assetmeter').where({ siteid: 'BEDFORD', metername: 'RUNHOURS' }).orderBy('assetnum').pluck('assetnum') as string[];
        process.stdout.write(`${adminUrl ? 'PostgreSQL' : 'SQLite'}\n`);
        for (const [at, n] of counts.entries()) {
            // A meter of its own per n, given n earlier readings dated a minute apart, a year ago.
            const assetnum = assets[at]!;
            const start = Date.now() - 365 * 86_400_000;
            const rows = Array.from({ length: n }, (_, k) => ({ assetnum, siteid: 'BEDFORD', metername: 'RUNHOURS', reading: k, readingdate: new Date(start + k * 60_000).toISOString(), changedate: new Date().toISOString(), changeby: 'MAXADMIN', rowstamp: k + 1 }));
            for (let i = 0; i < rows.length; i += 500) {
                await knex('meterreading').insert(rows.slice(i, i + 500));
            }

            const times: number[] = [];
            for (let i = 0; i < repeats; ++i) {
                const began = process.hrtime.bigint();
                const res = await fetch(`${server.url}/maximo/oslc/os/mxapiasset/assetnum:${assetnum}|siteid:BEDFORD`, { method: 'POST', headers, body: JSON.stringify({ assetmeter: [{ metername: 'RUNHOURS', newreading: n + i }] }) });
                const ms = Number(process.hrtime.bigint() - began) / 1e6;
                if (res.status !== 204) {
                    throw new Error(`reading: ${res.status} ${await res.text()}`);
                }

                times.push(ms);
            }

            const sorted = [...times].sort((a, b) => a - b);
            process.stdout.write(`one reading, ${String(n).padStart(6)} earlier: median ${sorted[repeats >> 1]!.toFixed(1).padStart(7)} ms, max ${sorted[repeats - 1]!.toFixed(1).padStart(7)} ms (${times.map((ms) => ms.toFixed(1)).join(' ')})\n`);
        }
    }
    finally {
        await knex.destroy();
        await server.stop();
        await db.drop();
        Fs.rmSync(data, { recursive: true, force: true });
    }
};

main().catch((error) => {

    process.stderr.write(`${error.stack}\n`);
    process.exit(1);
});
