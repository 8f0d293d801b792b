import * as Code from '@hapi/code';
import * as Lab from '@hapi/lab';

import { maximoError } from '../../src/errors/maximo-error';
import { hooksOf, registerHooks, unregisterHooks } from '../../src/structures/hooks';
import { onEachDatabase } from '../helpers/experiments';
import { maxauth } from '../helpers/server';


const lab = exports.lab = Lab.script();
const { experiment, test, before, after } = lab;
const { expect } = Code;

// The per-structure hooks of the write engine (src/structures/hooks.ts): a fixture structure registers trivial hooks
// and the resources plugin calls each hook point for it, knowing the object only through its hooks.
const gadgets = `name: MXTESTGADGET
object: GADGET
uniqueColumn: gadgetid
primaryKey: [gadgetid]
attributes:
  gadgetid: { type: bigint, generated: true }
  owner: { type: upper, length: 30 }
  code: { type: aln, length: 40, secret: true }
  label: { type: aln, length: 60, persistent: false }
access:
  read: [EVERYONE]
  insert: [EVERYONE]
  update: [EVERYONE]
  delete: [EVERYONE]
`;

const calls: string[] = [];

experiment('the hooks registry', () => {

    test('answers no hooks for an object without any, and forgets unregistered ones', () => {

        expect(hooksOf('NOSUCHOBJECT')).to.equal({});
        registerHooks('SCRATCH', { selectSecrets: true });
        expect(hooksOf('SCRATCH').selectSecrets).to.be.true();
        unregisterHooks('SCRATCH');
        expect(hooksOf('SCRATCH')).to.equal({});
    });
});

onEachDatabase(lab, 'hook points of a structure', { settings: { demo: false, adminUser: 'ADMIN', adminPassword: 'admin-secret-1' }, fixture: { only: [], add: { 'mxtestgadget.yaml': gadgets } } }, (t) => {

    const admin = maxauth('admin', 'admin-secret-1');
    const url = '/maximo/oslc/os/mxtestgadget';
    let id: number;

    before(async () => {

        registerHooks('GADGET', {
            // In the write's transaction: the engine checked the insert right, and answers 201 with Location.
            create: async ({ req, body, db }) => {

                calls.push(`create ${req.structure.name} ${JSON.stringify(body)}`);
                const [row] = await db.query('gadget').insert({ owner: 'MADE', code: 'sealed:abc', rowstamp: 1 }).returning('gadgetid');
                return await db.query('gadget').where('gadgetid', Number(row.gadgetid ?? row)).first();
            },
            beforeChange: (structure) => {

                calls.push(`beforeChange ${structure.name}`);
                throw maximoError('badRequest', `${structure.name} records are frozen.`);
            },
            computed: { label: { value: (row) => `gadget ${row.gadgetid}`, query: 'is a label made when read' } },
            selectSecrets: true,
            reveal: (attr, row, user) => {

                calls.push(`reveal ${attr.name}`);
                return user.isAdmin ? String(row.code).replace('sealed:', '') : undefined;
            }
        });
        id = (await t.inject({ method: 'POST', url, headers: { ...admin, properties: 'gadgetid' }, payload: { owner: 'IGNORED' } })).result.gadgetid;
    });

    after(() => unregisterHooks('GADGET'));

    test('create: makes the record in place of the generic create', async () => {

        const res = await t.inject({ method: 'POST', url, headers: { ...admin, properties: 'gadgetid,owner' }, payload: { owner: 'IGNORED' } });
        expect(res.statusCode, res.payload).to.equal(201);
        expect(res.result.owner).to.equal('MADE');
        expect(String(res.headers.location)).to.match(/\/os\/mxtestgadget\/_\w+/);
        expect(calls).to.include('create MXTESTGADGET {"owner":"IGNORED"}');
    });

    test('beforeChange: refuses an update, a sync and a bulk; a delete is not a change', async () => {

        calls.splice(0);
        const patched = await t.inject({ method: 'PATCH', url: `${url}/${id}`, headers: admin, payload: { owner: 'X' } });
        expect(patched.statusCode).to.equal(400);
        expect(patched.result.Error.message).to.contain('MXTESTGADGET records are frozen.');
        const synced = await t.inject({ method: 'POST', url, headers: { ...admin, 'x-method-override': 'SYNC' }, payload: { gadgetid: id } });
        expect(synced.statusCode).to.equal(400);
        const bulk = await t.inject({ method: 'POST', url, headers: { ...admin, 'x-method-override': 'BULK' }, payload: [{ owner: 'X' }] });
        expect(bulk.statusCode).to.equal(400);
        expect(calls).to.equal(['beforeChange MXTESTGADGET', 'beforeChange MXTESTGADGET', 'beforeChange MXTESTGADGET']);
        const other = (await t.inject({ method: 'POST', url, headers: { ...admin, properties: 'gadgetid' }, payload: {} })).result.gadgetid;
        expect((await t.inject({ method: 'DELETE', url: `${url}/${other}`, headers: admin })).statusCode).to.equal(204);
        expect(calls).to.equal(['beforeChange MXTESTGADGET', 'beforeChange MXTESTGADGET', 'beforeChange MXTESTGADGET', 'create MXTESTGADGET {}']);
    });

    test('computed and reveal: how a row renders', async () => {

        calls.splice(0);
        const res = await t.inject({ url: `${url}/${id}?oslc.select=gadgetid,code,label`, headers: admin });
        expect(res.statusCode, res.payload).to.equal(200);
        expect(res.result.code).to.equal('abc');
        expect(res.result.label).to.equal(`gadget ${id}`);
        expect(calls).to.equal(['reveal code']);
        const refused = await t.inject({ url: `${url}?oslc.where=label="x"`, headers: admin });
        expect(refused.statusCode).to.equal(400);
        expect(refused.result.Error.message).to.contain('is a label made when read');
    });
});
