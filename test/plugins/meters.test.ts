import * as Code from '@hapi/code';
import * as Lab from '@hapi/lab';

import { meters, metersDeclared } from '../../plugins/examples/meters';
import { onEachDatabase } from '../helpers/experiments';
import { maxadmin } from '../helpers/server';


const lab = exports.lab = Lab.script();
const { test } = lab;
const { expect } = Code;

// The meters example plugin (plugins/examples/meters), which the demo loads: ASSETMETER's non-persistent newreading
// records a METERREADING row and sets the meter's last reading, in the write's transaction (server.onAttributeWrite).

const home = '/maximo/oslc';
const merge = { ...maxadmin, 'x-method-override': 'PATCH', patchtype: 'MERGE' };
const assetUrl = (assetnum: string, siteid = 'BEDFORD') => `${home}/os/mxapiasset/assetnum:${assetnum}|siteid:${siteid}`;

onEachDatabase(lab, 'the meters example', (t) => {

    const knex = () => t.server.app.osprey.knex;
    const meter = async (assetnum: string, metername: string) => await knex()('assetmeter').where({ assetnum, siteid: 'BEDFORD', metername }).first();
    const readings = async (assetnum: string, metername: string) => (await knex()('meterreading').where({ assetnum, siteid: 'BEDFORD', metername }).orderBy('meterreadingid')).map((row: any) => Number(row.reading));
    const asset = async (assetnum: string) => await knex()('asset').where({ assetnum, siteid: 'BEDFORD' }).first();
    const everyMeter = async () => await knex()('assetmeter').orderBy('assetmeterid');
    // The demo's assets at BEDFORD, by position.
    let bedford: string[] = [];
    const a = (i: number) => bedford[i]!;
    lab.before(async () => {

        bedford = await knex()('asset').where({ siteid: 'BEDFORD' }).orderBy('assetnum').pluck('assetnum') as string[];
    });

    test('a reading in a merge records a reading row and the meter\'s last reading; the answer is the record as the write left it', async () => {

        const before = await everyMeter();
        const res = await t.inject({ method: 'POST', url: `${assetUrl(a(0))}?lean=1`, headers: { ...merge, properties: 'assetnum,assetmeter{metername,lastreading,lastreadingdate,meterreading{reading,changeby}}' }, payload: { assetmeter: [{ metername: 'RUNHOURS', newreading: '10' }] } });
        expect(res.statusCode).to.equal(200);
        const runhours = res.result.assetmeter.find((row: any) => row.metername === 'RUNHOURS');
        expect(runhours.lastreading).to.equal(10);
        expect(runhours.meterreading.map((row: any) => [row.reading, row.changeby])).to.equal([[10, 'MAXADMIN']]);
        expect(Date.now() - Date.parse(runhours.lastreadingdate)).to.be.between(-2000, 60_000);

        // The answer's ETag is the record's rowstamp as stored (the handler wrote the record again).
        const read = await t.inject({ url: `${assetUrl(a(0))}?lean=1&oslc.select=assetnum`, headers: maxadmin });
        expect(read.result._rowstamp).to.be.a.string();
        expect(res.result._rowstamp).to.equal(read.result._rowstamp);

        // A second reading, dated by newreadingdate before the first: the rows add up, the reading row carries its
        // date, and the meter's last reading stays the latest-dated (the first); no other meter changed.
        const dated = await t.inject({ method: 'POST', url: assetUrl(a(0)), headers: merge, payload: { assetmeter: [{ metername: 'RUNHOURS', newreading: 12.5, newreadingdate: '2025-03-01T08:00:00Z' }] } });
        expect(dated.statusCode).to.equal(204);
        expect(await readings(a(0), 'RUNHOURS')).to.equal([10, 12.5]);
        const second = await knex()('meterreading').where({ assetnum: a(0), siteid: 'BEDFORD', metername: 'RUNHOURS', reading: 12.5 }).first();
        expect(new Date(second.readingdate).toISOString()).to.equal('2025-03-01T08:00:00.000Z');
        const stored = await meter(a(0), 'RUNHOURS');
        expect(Number(stored.lastreading)).to.equal(10);
        expect(new Date(stored.lastreadingdate).toISOString()).to.equal(new Date(runhours.lastreadingdate).toISOString());
        const after = await everyMeter();
        expect(after.filter((row: any) => !(row.assetnum === a(0) && row.metername === 'RUNHOURS'))).to.equal(before.filter((row: any) => !(row.assetnum === a(0) && row.metername === 'RUNHOURS')));
    });

    test('a reading that is not a number is a 400 naming newreading, and nothing of the write is kept', async () => {

        const before = [await asset(a(1)), await meter(a(1), 'RUNHOURS'), await readings(a(1), 'RUNHOURS')];
        for (const newreading of ['ten', true, { value: 1 }]) {
            const res = await t.inject({ method: 'POST', url: assetUrl(a(1)), headers: merge, payload: { description: 'Not kept', assetmeter: [{ metername: 'RUNHOURS', newreading }] } });
            expect(res.statusCode, String(newreading)).to.equal(400);
            expect(res.result.Error.errorattrname).to.equal('newreading');
        }

        // null is no reading: refused by name as well, as is a date without a reading.
        for (const body of [{ metername: 'RUNHOURS', newreading: null }, { metername: 'RUNHOURS', newreadingdate: '2025-01-01T00:00:00Z' }]) {
            const res = await t.inject({ method: 'POST', url: assetUrl(a(1)), headers: merge, payload: { description: 'Not kept', assetmeter: [body] } });
            expect(res.statusCode).to.equal(400);
            expect(res.result.Error.errorattrname).to.equal(Object.hasOwn(body, 'newreading') ? 'newreading' : 'newreadingdate');
            expect(res.result.Error.message).to.contain('a reading is a number in newreading');
        }

        expect([await asset(a(1)), await meter(a(1), 'RUNHOURS'), await readings(a(1), 'RUNHOURS')]).to.equal(before);
    });

    test('a reading of a meter the asset does not have adds the meter with it (addMeter with a reading)', async () => {

        const res = await t.inject({ method: 'POST', url: `${assetUrl(a(2))}?lean=1`, headers: merge, payload: { assetmeter: [{ metername: 'TEMP', newreading: 40 }] } });
        expect(res.statusCode).to.equal(204);
        const added = await meter(a(2), 'TEMP');
        expect(Number(added.lastreading)).to.equal(40);
        expect(await readings(a(2), 'TEMP')).to.equal([40]);

        // A create of an asset with a metered meter records its reading too.
        const created = await t.inject({ method: 'POST', url: `${home}/os/mxapiasset`, headers: maxadmin, payload: { assetnum: 'METERS-1', siteid: 'BEDFORD', assetmeter: [{ metername: 'RUNHOURS', newreading: 5 }] } });
        expect(created.statusCode).to.equal(201);
        expect(await readings('METERS-1', 'RUNHOURS')).to.equal([5]);
    });

    test('an inactive meter takes no reading: a 400, and nothing written', async () => {

        await t.inject({ method: 'POST', url: assetUrl(a(3)), headers: merge, payload: { assetmeter: [{ metername: 'RUNHOURS', active: false }] } });
        const before = [await asset(a(3)), await meter(a(3), 'RUNHOURS')];
        const res = await t.inject({ method: 'POST', url: assetUrl(a(3)), headers: merge, payload: { description: 'Not kept', assetmeter: [{ metername: 'RUNHOURS', newreading: 3 }] } });
        expect(res.statusCode).to.equal(400);
        expect(res.result.Error.errorattrname).to.equal('newreading');
        expect(res.result.Error.message).to.contain('is not active');
        expect([await asset(a(3)), await meter(a(3), 'RUNHOURS')]).to.equal(before);
        expect(await readings(a(3), 'RUNHOURS')).to.equal([]);
    });

    test('a reading dated in the future, or sent with _action Delete on its meter row, is a 400 and nothing is written', async () => {

        await t.inject({ method: 'POST', url: assetUrl(a(9)), headers: merge, payload: { assetmeter: [{ metername: 'RUNHOURS', newreading: 1 }] } });
        const before = [await asset(a(9)), await meter(a(9), 'RUNHOURS'), await readings(a(9), 'RUNHOURS')];
        const future = new Date(Date.now() + 3600_000).toISOString();
        const dated = await t.inject({ method: 'POST', url: assetUrl(a(9)), headers: merge, payload: { description: 'Not kept', assetmeter: [{ metername: 'RUNHOURS', newreading: 2, newreadingdate: future }] } });
        expect(dated.statusCode).to.equal(400);
        expect(dated.result.Error.errorattrname).to.equal('newreadingdate');
        expect(dated.result.Error.message).to.contain('is in the future');

        // Before, the meter was deleted and the reading dropped unheard.
        const deleting = await t.inject({ method: 'POST', url: assetUrl(a(9)), headers: merge, payload: { assetmeter: [{ metername: 'RUNHOURS', newreading: 3, _action: 'Delete' }] } });
        expect(deleting.statusCode).to.equal(400);
        expect(deleting.result.Error.message).to.contain('ASSETMETER.NEWREADING is sent with _action Delete');
        expect([await asset(a(9)), await meter(a(9), 'RUNHOURS'), await readings(a(9), 'RUNHOURS')]).to.equal(before);

        // Now, or a few seconds ahead of this server's clock, is a reading of now.
        const now = await t.inject({ method: 'POST', url: assetUrl(a(9)), headers: merge, payload: { assetmeter: [{ metername: 'RUNHOURS', newreading: 4, newreadingdate: new Date(Date.now() + 5000).toISOString() }] } });
        expect(now.statusCode).to.equal(204);
        expect(await readings(a(9), 'RUNHOURS')).to.equal([1, 4]);
    });

    test('a reading dated before the meter\'s last one joins its history; the last reading stays the latest-dated', async () => {

        const send = (newreading: number, newreadingdate: string) => t.inject({ method: 'POST', url: assetUrl(a(10)), headers: merge, payload: { assetmeter: [{ metername: 'RUNHOURS', newreading, newreadingdate }] } });
        expect((await send(300, '2026-01-10T00:00:00Z')).statusCode).to.equal(204);
        expect((await send(10, '2020-01-01T00:00:00Z')).statusCode).to.equal(204);
        const stored = await meter(a(10), 'RUNHOURS');
        expect(Number(stored.lastreading)).to.equal(300);
        expect(new Date(stored.lastreadingdate).toISOString()).to.equal('2026-01-10T00:00:00.000Z');
        expect(await readings(a(10), 'RUNHOURS')).to.equal([300, 10]);
        expect((await send(320, '2026-01-10T00:00:00Z')).statusCode).to.equal(204);
        expect(Number((await meter(a(10), 'RUNHOURS')).lastreading)).to.equal(320);
    });

    test('readings in a bulk: each item\'s are recorded with it, a refused item writes nothing', async () => {

        const res = await t.inject({ method: 'POST', url: `${home}/os/mxapiasset`, headers: { ...maxadmin, 'x-method-override': 'BULK' }, payload: [
            { href: assetUrl(a(4)), _action: 'Merge', assetmeter: [{ metername: 'RUNHOURS', newreading: 100 }, { metername: 'EXTRA', newreading: 7 }] },
            { href: assetUrl(a(5)), _action: 'Merge', description: 'Not kept', assetmeter: [{ metername: 'RUNHOURS', newreading: 'many' }] },
            { siteid: 'BEDFORD', assetnum: a(6), _action: 'AddChange', assetmeter: [{ metername: 'RUNHOURS', newreading: 200 }] }
        ] });
        expect(res.statusCode).to.equal(200);
        expect(res.result.map((item: any) => item._responsemeta.status)).to.equal(['204', '400', '204']);
        expect(res.result[1]._responsedata.Error.errorattrname).to.equal('newreading');
        expect(await readings(a(4), 'RUNHOURS')).to.equal([100]);
        expect(await readings(a(4), 'EXTRA')).to.equal([7]);
        expect(await readings(a(5), 'RUNHOURS')).to.equal([]);
        expect((await asset(a(5))).description).to.not.equal('Not kept');
        expect(await readings(a(6), 'RUNHOURS')).to.equal([200]);
        expect(Number((await meter(a(6), 'RUNHOURS')).lastreading)).to.equal(200);
    });

    test('a reading row the database refuses rolls the whole write back', async () => {

        const db = knex();
        if (t.server.app.osprey.kind === 'sqlite') {
            await db.raw('CREATE TRIGGER meters_test_refuse BEFORE INSERT ON meterreading WHEN NEW.reading = 666 BEGIN SELECT RAISE(ABORT, \'refused by the test\'); END');
        }
        else {
            await db.raw('CREATE FUNCTION meters_test_refuse() RETURNS trigger AS $$ BEGIN IF NEW.reading = 666 THEN RAISE EXCEPTION \'refused by the test\'; END IF; RETURN NEW; END $$ LANGUAGE plpgsql');
            await db.raw('CREATE TRIGGER meters_test_refuse BEFORE INSERT ON meterreading FOR EACH ROW EXECUTE FUNCTION meters_test_refuse()');
        }

        const before = [await asset(a(7)), await everyMeter(), await knex()('meterreading').count({ n: '*' })];
        const res = await t.inject({ method: 'POST', url: assetUrl(a(7)), headers: merge, payload: { description: 'Not kept', assetmeter: [{ metername: 'RUNHOURS', newreading: 666 }, { metername: 'NEWONE' }] } });
        // The database's refusal is the server's failure, not the client's: a 500 with the request id to find it by.
        expect(res.statusCode).to.equal(500);
        expect(res.result.Error.reasonCode).to.equal('BMXAA1724E');
        expect([await asset(a(7)), await everyMeter(), await knex()('meterreading').count({ n: '*' })]).to.equal(before);

        // Another reading of the same write still goes through.
        const next = await t.inject({ method: 'POST', url: assetUrl(a(7)), headers: merge, payload: { assetmeter: [{ metername: 'RUNHOURS', newreading: 667 }] } });
        expect(next.statusCode).to.equal(204);
        expect(await readings(a(7), 'RUNHOURS')).to.equal([667]);
    });
});

// Without the plugin (OSPREY_DEMO=0: the demo's structures, not its examples) a reading is refused by name.
onEachDatabase(lab, 'meter readings without the meters example', { settings: { demo: false, adminUser: 'MAXADMIN', adminPassword: 'maxadmin' } }, (t) => {

    test('newreading and newreadingdate are refused 501 by name, and nothing is written', async () => {

        const created = await t.inject({ method: 'POST', url: `${home}/os/mxapiasset`, headers: maxadmin, payload: { assetnum: 'M-1', siteid: 'BEDFORD', assetmeter: [{ metername: 'RUNHOURS' }] } });
        expect(created.statusCode).to.equal(201);
        for (const [name, value] of [['newreading', 4], ['newreadingdate', '2025-01-01T00:00:00Z']] as const) {
            const res = await t.inject({ method: 'POST', url: assetUrl('M-1'), headers: merge, payload: { description: 'Not kept', assetmeter: [{ metername: 'RUNHOURS', [name]: value }] } });
            expect(res.statusCode).to.equal(501);
            expect(res.result.Error.errorattrname).to.equal(name);
            expect(res.result.Error.message).to.contain(`meter readings (${name} of ASSETMETER)`);
        }

        const stored = await t.server.app.osprey.knex('asset').where({ assetnum: 'M-1' }).first();
        expect(stored.description).to.be.null();
        expect(Number((await t.server.app.osprey.knex('meterreading').count({ n: '*' }))[0]!.n)).to.equal(0);
    });

    test('an attribute is claimed once, only where its object declares it non-persistent; loaded, the plugin records readings', async () => {

        const claim = (object: string, attributes: any, handler: any = () => undefined) => t.server.register({ name: `claim-${object}-${String(attributes)}`, register: (server) => server.onAttributeWrite(object, attributes, handler) });
        await expect(claim('ASSETMETER', 'lastreading')).to.reject('An attribute handler names ASSETMETER.LASTREADING, which is not declared `persistent: false` on ASSETMETER: a handler takes the values a write sends and the engine does not store.');
        await expect(claim('ASSETMETER', 'nosuch')).to.reject(/ASSETMETER\.NOSUCH, which is not declared/);
        await expect(claim('NOSUCHOBJECT', 'x')).to.reject('An attribute handler names NOSUCHOBJECT, which no object structure of this server declares.');
        await expect(claim('ASSETMETER', [])).to.reject('An attribute handler of ASSETMETER names no attribute.');
        await expect(claim('ASSETMETER', 'newreading', 'not a function')).to.reject('The attribute handler of ASSETMETER is not a function.');

        await t.server.register(meters);
        await expect(t.server.register({ name: 'again', register: (server) => server.onAttributeWrite('assetmeter', ['NEWREADINGDATE'], () => undefined) })).to.reject('ASSETMETER.NEWREADINGDATE has a handler already.');
        const res = await t.inject({ method: 'POST', url: assetUrl('M-1'), headers: merge, payload: { assetmeter: [{ metername: 'RUNHOURS', newreading: 4 }] } });
        expect(res.statusCode).to.equal(204);
        expect(Number((await t.server.app.osprey.knex('assetmeter').where({ assetnum: 'M-1' }).first()).lastreading)).to.equal(4);
    });

    test('the plugin stops the start of a server whose structures do not declare the readings', () => {

        const registry = t.server.structures();
        expect(metersDeclared(registry)).to.be.true();
        const without = { list: () => registry.list().filter((structure) => structure.name !== 'MXAPIASSET') } as typeof registry;
        expect(metersDeclared(without)).to.be.false();
        const server = { structures: () => without, onAttributeWrite: () => undefined } as any;
        expect(() => (meters.register as any)(server)).to.throw(/The meters example needs ASSETMETER\.NEWREADING declared persistent: false/);
    });
});

