import * as Code from '@hapi/code';
import * as Lab from '@hapi/lab';

import { onEachDatabase } from '../helpers/experiments';


const lab = exports.lab = Lab.script();
const { test } = lab;
const { expect } = Code;

const admin = { maxauth: Buffer.from('ADMIN:admin-secret-1').toString('base64') };

// The fixture structures, with generated keys and a domain lookup added to jobs.
const jobStructures = (text: string, file: string) => (file === 'mxtestjob.yaml' ?
    text.replace('jobnum: { type: upper, length: 10, required: true }', 'jobnum: { type: upper, length: 10, required: true, autokey: { prefix: JOB-, start: 5 } }\n  seq: { type: integer, autokey: true }\n  state: { type: upper, length: 10, lookup: state }') :
    text);

// Tickets numbered per site by an integer key.
const tickets = `name: MXTESTTICKET
object: TICKET
uniqueColumn: ticketid
primaryKey: [siteid, ticketnum]
attributes:
  ticketid: { type: bigint, generated: true }
  siteid: { type: upper, length: 8, required: true }
  ticketnum: { type: integer, required: true, autokey: { start: 100 } }
  last: { type: integer, title: A column named as the counter's (autokey.ts qualifies the counter's) }
`;

onEachDatabase(lab, 'generated values and domain lookups', { settings: { demo: false, adminUser: 'ADMIN', adminPassword: 'admin-secret-1' }, fixture: { edit: jobStructures, add: { 'mxtestticket.yaml': tickets } } }, (t) => {

    const create = (payload: object) => t.inject({ method: 'POST', url: '/maximo/oslc/os/mxtestjob', headers: { ...admin, properties: 'jobnum,seq,state' }, payload });

    test('a prefixed key counts on from the highest stored number and skips values typed in by hand', async () => {

        const first = await create({});
        expect(first.result).to.include({ jobnum: 'JOB-5', seq: 1 });
        expect((await create({ jobnum: 'JOB-6' })).statusCode).to.equal(201);
        expect((await create({ state: 'done' })).result).to.include({ jobnum: 'JOB-7', state: 'DONE' });
    });

    test('an integer key counts per scope and skips numbers typed in by hand', async () => {

        const ticket = async (payload: object) => (await t.inject({ method: 'POST', url: '/maximo/oslc/os/mxtestticket', headers: { ...admin, properties: 'siteid,ticketnum' }, payload })).result;
        expect(await ticket({ siteid: 'A' })).to.include({ siteid: 'A', ticketnum: 100 });
        expect(await ticket({ siteid: 'A', ticketnum: 101 })).to.include({ ticketnum: 101 });
        expect(await ticket({ siteid: 'A' })).to.include({ ticketnum: 102 });
        expect(await ticket({ siteid: 'B' })).to.include({ siteid: 'B', ticketnum: 100 });
    });

    test('a domain lookup takes only the domain values', async () => {

        const res = await create({ state: 'LOST' });
        expect(res.statusCode).to.equal(400);
        expect(res.result.Error.errorattrname).to.equal('state');
        expect(res.result.Error.message).to.contain('domain TSTATUS');
    });
});
