import * as Fs from 'node:fs';
import * as Path from 'node:path';

import * as Code from '@hapi/code';
import * as Lab from '@hapi/lab';

import { MigrationError } from '../src/db/migrate';
import { NoAdministratorError } from '../src/demo/users';
import { testDatabases } from './helpers/databases';
import { fixtureCopies } from './helpers/fixtures';
import { fixtures, maxauth, startTestServer } from './helpers/server';


const lab = exports.lab = Lab.script();
const { experiment, test } = lab;
const { expect } = Code;

const edit = (dir: string, file: string, change: (text: string) => string) => Fs.writeFileSync(Path.join(dir, file), change(Fs.readFileSync(Path.join(dir, file), 'utf8')));

const admin = { demo: false, adminUser: 'boss', adminPassword: 'boss-password' };

for (const database of testDatabases) {
    experiment(`migration (${database.name})`, () => {

        const copyFixture = fixtureCopies(lab);

        test('a new attribute and child are added on restart; the data stays, that of an attribute no longer stored too', async () => {

            const dir = copyFixture();
            const created = await database.create();
            const first = await startTestServer(database, { ...admin, structures: dir, databaseUrl: created.url });
            await first.server.app.osprey.knex('pump').insert({ pumpnum: 'P1', siteid: 'BEDFORD', description: 'Main pump', flow: 12.5, running: true });
            expect((await first.inject({ url: '/maximo/oslc/whoami', headers: maxauth('boss', 'boss-password') })).result.isAdmin).to.be.true();
            if (database.name !== 'sqlite') {
                // As a database made before text columns were given the code-point collation.
                await first.server.app.osprey.knex.raw('alter table pump alter column pumpnum type varchar(12) collate "default"');
            }

            await first.server.stop();

            edit(dir, 'mxtestpump.yaml', (text) => text
                .replace('primaryKey: [siteid, pumpnum]\n', 'primaryKey: [siteid, pumpnum]\nindexes: [[siteid, vendor]]\n')
                .replace('  ratedkw: { type: integer, index: true }', '  ratedkw: { type: bigint, index: true }\n  vendor: { type: upper, length: 20, index: true }')
                .replace('description: { type: aln, length: 50 }', 'description: { type: aln, length: 80 }')
                .replace('running: { type: yorn }', 'running: { type: yorn, persistent: false }')
                .replace('  doclinks: { attachments: true }', '  doclinks: { attachments: true }\n  curve:\n    object: PUMPCURVE\n    uniqueColumn: curveid\n    primaryKey: [point]\n    join: { pumpnum: pumpnum, siteid: siteid }\n    attributes:\n      curveid: { type: bigint, generated: true }\n      pumpnum: { type: upper, length: 12 }\n      siteid: { type: upper, length: 8 }\n      point: { type: integer, required: true }'));
            const second = await startTestServer(database, { ...admin, structures: dir, databaseUrl: created.url });
            const knex = second.server.app.osprey.knex;
            const row = await knex('pump').where({ pumpnum: 'P1' }).first();
            expect(row).to.include({ description: 'Main pump', vendor: null });
            await knex('pump').where({ pumpnum: 'P1' }).update({ vendor: 'ACME', description: 'x'.repeat(80) });
            const id = (await knex('pump').first()).pumpid;
            const read = await second.inject({ url: `/maximo/oslc/os/mxtestpump/${id}`, headers: maxauth('boss', 'boss-password') });
            expect(read.result).to.include({ vendor: 'ACME', flow: 12.5, curve_collectionref: `${read.result.href}/curve` });
            expect(read.result.status).to.not.exist();
            // Declared persistent: false, its column stays with its data, neither read nor written.
            expect(read.result.running).to.not.exist();
            expect(Boolean((await knex('pump').where({ pumpnum: 'P1' }).first()).running)).to.be.true();
            const indexes = database.name === 'sqlite' ?
                await knex('sqlite_master').where({ type: 'index', tbl_name: 'pump' }).pluck('name') :
                await knex('pg_indexes').where({ tablename: 'pump' }).pluck('indexname');
            expect(indexes).to.include(['pump_siteid_vendor_ix', 'pump_vendor_ix']);
            if (database.name !== 'sqlite') {
                // Text compares by code point, so that indexes serve oslc.orderBy: new, widened and old columns alike.
                const text = knex('information_schema.columns').whereRaw('table_schema = current_schema()').whereIn('table_name', ['pump', 'pumpcurve']).whereIn('data_type', ['character varying', 'text']);
                expect(await text.clone().distinct('collation_name').pluck('collation_name')).to.equal(['C']);
                expect(await text.clone().whereIn('column_name', ['pumpnum', 'description', 'vendor', 'notes']).where('table_name', 'pump').pluck('column_name')).to.have.length(4);
            }

            await knex('pumpcurve').insert({ pumpnum: 'P1', siteid: 'BEDFORD', point: 1 });
            await expect(knex('pumpcurve').insert({ pumpnum: 'P1', siteid: 'BEDFORD', point: 1 })).to.reject();
            await second.server.stop();
            await created.drop();
        });

        test('a removed attribute or a narrowed type stops the start and says what to do', async () => {

            const dir = copyFixture();
            const created = await database.create();
            const first = await startTestServer(database, { ...admin, structures: dir, databaseUrl: created.url });
            await first.server.stop();

            edit(dir, 'mxtestpump.yaml', (text) => text
                .replace('  notes: { type: clob }\n', '').replace('pumpnum: { type: upper, length: 12', 'pumpnum: { type: upper, length: 6')
                .replace('flow: { type: decimal, length: 8, scale: 3 }', 'flow: { type: decimal, length: 8, scale: 1 }').replace('running: { type: yorn }', 'running: { type: integer }')
                .replace('ratedkw: { type: integer, index: true }', 'ratedkw: { type: smallint }'));
            const error = await expect(startTestServer(database, { ...admin, structures: dir, databaseUrl: created.url })).to.reject(MigrationError);
            expect(error.problems).to.have.length(5);
            expect(error.message).to.contain('pump.notes holds data but no structure declares attribute "notes"');
            expect(error.message).to.contain('pump.pumpnum: length narrowed from 12 to 6');
            expect(error.message).to.contain('pump.flow: scale narrowed from 3 to 1');
            expect(error.message).to.contain('pump.running: type changed from yorn to integer');
            expect(error.message).to.contain('pump.ratedkw: type narrowed from integer to smallint');
            await created.drop();
        });

        test('the start refuses to run without an administrator', async () => {

            await expect(startTestServer(database, { demo: false, structures: Path.join(fixtures, 'valid') })).to.reject(NoAdministratorError, /OSPREY_ADMIN_USER/);
        });
    });
}
