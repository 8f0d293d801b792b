import * as Path from 'node:path';

import * as Hapi from '@hapi/hapi';
import * as Code from '@hapi/code';
import * as Lab from '@hapi/lab';

import { apiKeyRoutes } from '../plugins/apikeys';
import { authRoutes } from '../plugins/auth';
import { health } from '../plugins/health';
import { info } from '../plugins/info';
import { unserved } from '../plugins/unserved';
import { poolDb } from '../src/db/db';
import { boundModels, inTransaction, modelsOf, type ObjectModel } from '../src/index';
import { onEachDatabase } from './helpers/experiments';
import { testDatabases } from './helpers/databases';
import { maxadmin, startTestServer, wilson, type TestServer } from './helpers/server';
import { snapshot } from './helpers/tables';


const lab = exports.lab = Lab.script();
const { experiment, test, before, after } = lab;
const { expect } = Code;

type Row = Record<string, unknown>;

onEachDatabase(lab, 'the registries are server decorations', (t) => {

    test('server.structures() is the registry and server.models() the model map, on every plugin\'s server too', async () => {

        expect(t.server.structures()).to.shallow.equal(t.server.app.osprey.registry);
        expect(t.server.models()).to.shallow.equal(modelsOf(t.server));
        expect(t.server.decorations.server).to.include(['structures', 'models', 'inTransaction', 'onCommit']);

        let seen: [unknown, unknown] | undefined;
        await t.server.register({ name: 'reader', register: (server) => void (seen = [server.structures(), server.models()]) });
        expect(seen![0]).to.shallow.equal(t.server.app.osprey.registry);
        expect(seen![1]).to.shallow.equal(t.server.app.osprey.models);
    });

    test('server.onCommit(subscriber) hears this server\'s committed writes until it unsubscribes', async () => {

        const heard: string[] = [];
        const stop = t.server.onCommit((commit) => void heard.push(...commit.writes.map((write) => `${write.operation} ${write.structure.name}`)));
        const create = () => t.inject({ method: 'POST', url: '/maximo/oslc/os/mxapiwodetail', headers: maxadmin, payload: { siteid: 'BEDFORD', description: 'heard' } });
        expect((await create()).statusCode).to.equal(201);
        stop();
        expect((await create()).statusCode).to.equal(201);
        expect(heard).to.equal(['create MXAPIWODETAIL']);
    });
});

onEachDatabase(lab, 'the models in Osprey\'s transaction', (t) => {

    const person = { personid: 'TXPERSON', displayname: 'In a transaction' };
    const people = (models: ReadonlyMap<string, ObjectModel>) => models.get('PERSON')!.query().where({ personid: person.personid });

    test('a row a model inserts is seen by the transaction\'s statements and models before the commit, and by all after it', async () => {

        const inside = await inTransaction(t.server, async ({ db, models }) => {

            expect(models).to.not.shallow.equal(modelsOf(t.server));
            expect(boundModels(modelsOf(t.server), db)).to.shallow.equal(models);
            expect(models.get('PERSON')!.prototype instanceof modelsOf(t.server).get('PERSON')!).to.be.true();
            await models.get('PERSON')!.query().insert(person as never);
            const rows = await db.rows('select displayname from person where personid = ?', [person.personid]);
            return { rows, models: (await people(models)).length };
        });

        expect(inside).to.equal({ rows: [{ displayname: person.displayname }], models: 1 });
        expect((await people(modelsOf(t.server))).length).to.equal(1);
        await modelsOf(t.server).get('PERSON')!.query().where({ personid: person.personid }).delete();
    });

    test('a row the transaction\'s db inserts is seen by its models, and is gone after a rollback', async () => {

        const undo = new Error('undo');
        let seen: Row[] = [];
        const work = t.server.inTransaction(async ({ db, models }) => {

            await db.query('person').insert({ ...person, status: 'ACTIVE' });
            seen = await people(models) as unknown as Row[];
            throw undo;
        });

        await expect(work).to.reject(Error, 'undo');
        expect(seen.map((row) => row.displayname)).to.equal([person.displayname]);
        expect(await people(modelsOf(t.server))).to.equal([]);
    });

    test('relations fetched with withGraphFetched and $relatedQuery run in the transaction too', async () => {

        const was = await snapshot(t);
        const pool = modelsOf(t.server);
        const wo = await pool.get('WORKORDER')!.query().whereNotNull('assetnum').orderBy('workorderid').first() as unknown as Row;
        const undo = new Error('undo');
        const work = t.server.inTransaction(async ({ models }) => {

            await models.get('WORKORDER')!.query().findById(wo.workorderid as number).patch({ description: 'changed in the transaction' } as never);
            const asset = await models.get('ASSET')!.query().findOne({ assetnum: wo.assetnum, siteid: wo.siteid }).withGraphFetched('openwo.woactivity') as unknown as Row & { openwo: Row[] };
            expect(asset.openwo.find((row) => row.workorderid === wo.workorderid)!.description).to.equal('changed in the transaction');
            const related = await (asset as unknown as { $relatedQuery: (name: string) => { where: (row: Row) => Promise<Row[]> } }).$relatedQuery('openwo').where({ workorderid: wo.workorderid });
            expect(related.map((row) => row.description)).to.equal(['changed in the transaction']);
            throw undo;
        });

        await expect(work).to.reject(Error, 'undo');
        expect(await snapshot(t)).to.equal(was);
    });

    test('the pool\'s db gets the models as they are', () => {

        expect(boundModels(modelsOf(t.server), poolDb(t.server.app.osprey.knex))).to.shallow.equal(modelsOf(t.server));
    });
});

const relabel = Path.join(__dirname, 'fixtures', 'plugins', 'relabel');

for (const database of testDatabases) {
    experiment(`an example plugin named by configuration writes through the models in a transaction (${database.name})`, () => {

        let t: TestServer;
        before(async () => {

            t = await startTestServer(database, { plugins: [relabel] });
        });

        after(() => t.stop());

        const descriptions = async (assetnum: string) => {

            const res = await t.inject({ url: `/maximo/oslc/os/mxapiwodetail?oslc.select=wonum,description&oslc.where=assetnum="${assetnum}" and siteid="BEDFORD"&oslc.pageSize=100`, headers: maxadmin });
            return Object.fromEntries((res.result.member as Row[]).map((row) => [row.wonum, row.description ?? '']));
        };

        test('a dry run answers what the transaction saw through the relation, and leaves the work orders as they were', async () => {

            const wo = await modelsOf(t.server).get('WORKORDER')!.query().where({ siteid: 'BEDFORD' }).whereNotNull('assetnum').orderBy('workorderid').first() as unknown as Row;
            const assetnum = String(wo.assetnum);
            const was = await descriptions(assetnum);
            expect(Object.keys(was).length).to.be.above(0);

            const dry = await t.inject({ method: 'POST', url: `/maximo/relabel/BEDFORD/${assetnum}?dryrun=1`, headers: wilson, payload: { prefix: 'DRY' } });
            expect(dry.statusCode).to.equal(200);
            expect(dry.result.dryrun).to.be.true();
            expect(Object.fromEntries((dry.result.workorders as Row[]).map((row) => [row.wonum, row.description]))).to.equal(Object.fromEntries(Object.entries(was).map(([wonum, description]) => [wonum, `DRY ${description}`.trim()])));
            expect(await descriptions(assetnum)).to.equal(was);

            const done = await t.inject({ method: 'POST', url: `/maximo/relabel/BEDFORD/${assetnum}`, headers: wilson, payload: { prefix: 'NEW' } });
            expect(done.statusCode).to.equal(200);
            expect(done.result.dryrun).to.not.exist();
            expect(await descriptions(assetnum)).to.equal(Object.fromEntries(Object.entries(was).map(([wonum, description]) => [wonum, `NEW ${description}`.trim()])));
        });

        test('an error in the transaction answers in Maximo\'s shape and rolls back', async () => {

            const res = await t.inject({ method: 'POST', url: '/maximo/relabel/BEDFORD/NOSUCHASSET', headers: wilson, payload: {} });
            expect(res.statusCode).to.equal(404);
            expect(res.result.Error.message).to.contain('No asset NOSUCHASSET at BEDFORD');
            expect((await t.inject({ method: 'POST', url: '/maximo/relabel/BEDFORD/11430', payload: {} })).statusCode).to.equal(401);
        });
    });
}

const kept = Path.join(__dirname, 'fixtures', 'plugins', 'kept-transaction');

onEachDatabase(lab, 'a plugin that keeps its transaction\'s db and models past its end', { settings: { plugins: [kept] } }, (t) => {

    // Every statement the driver is given, on any connection, while `during` runs.
    const statements = async <T>(during: () => Promise<T>) => {

        const client = Object.getPrototypeOf(t.server.app.osprey.knex.client) as { _query: (connection: unknown, obj: { sql: string; bindings?: unknown[] }) => Promise<unknown> };
        const own = Object.hasOwn(client, '_query');
        const original = client._query;
        const seen: string[] = [];
        client._query = function (connection, obj) {

            seen.push(JSON.stringify([obj.sql, obj.bindings ?? []]));
            return original.call(this, connection, obj);
        };

        try {
            return { result: await during(), seen };
        }
        finally {
            if (own) {
                client._query = original;
            }
            else {
                delete (client as Partial<typeof client>)._query;
            }
        }
    };

    test('every statement through them fails at once, saying the transaction has ended, and none reaches the database', async () => {

        expect((await t.inject({ method: 'POST', url: '/maximo/kept/open', headers: maxadmin })).statusCode).to.equal(204);
        const { result: res, seen } = await statements(() => t.inject({ method: 'POST', url: '/maximo/kept/use', headers: maxadmin }));
        expect(res.statusCode, res.payload).to.equal(200);
        const { outcomes, seen: marked, sameConnection } = res.result;
        expect(Object.keys(outcomes)).to.have.length(8);
        for (const [name, outcome] of Object.entries(outcomes)) {
            expect(outcome, `${name}: ${JSON.stringify(res.result)}`).to.match(/^Error: The transaction has ended/);
        }

        // The later request's transaction saw none of the kept writes, nor did anything after it commit them.
        expect(marked).to.equal(0);
        expect(await modelsOf(t.server).get('PERSON')!.query().where('personid', 'like', 'KEPT%')).to.equal([]);
        // Nothing marked KEPT was given to the driver, on the connection the kept transaction had or any other.
        expect(seen.length).to.be.above(0);
        expect(seen.filter((statement) => /kept/i.test(statement) && !/like/i.test(statement))).to.equal([]);
        // On SQLite the pool has one connection: the kept transaction's is the later request's.
        if (t.options.databaseUrl.startsWith('sqlite:')) {
            expect(sameConnection).to.be.true();
        }
    });
});

experiment('the first-party plugins declare what they rely on', () => {

    test('each needs the osprey app (its state and login strategy): hapi refuses to start without it', async () => {

        for (const plugin of [health, authRoutes, apiKeyRoutes, info, unserved]) {
            const server = Hapi.server();
            server.app.osprey = { options: { contextRoot: 'maximo', sessionMinutes: 30 } } as never;
            await server.register(plugin);
            await expect(server.initialize()).to.reject(Error, `Plugin ${(plugin as { name: string }).name} missing dependency osprey`);
        }
    });
});
