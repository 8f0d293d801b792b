import * as Code from '@hapi/code';
import * as Lab from '@hapi/lab';

import { onEachDatabase } from '../helpers/experiments';
import { maxadmin, maxauth, wilson } from '../helpers/server';


const lab = exports.lab = Lab.script();
const { test, before } = lab;
const { expect } = Code;

// A write checks a value with a lookup against the rows of another structure (src/write/plan/lookups.ts). It
// reads them as the writer may read them (issue 18): otherwise a write would be an oracle for rows the writer
// may not read. On the authorization fixture, with tasks whose attributes look up MXAUTHPAYROLL (which WILSON
// may not read), MXAUTHNOTE (kept to their owners) and MXAUTHPERSON through a where that follows the relation
// payroll.
const tasks = `name: MXAUTHTASK
title: Tasks (write lookups)
object: AUTHTASK
table: authtask
uniqueColumn: taskid
primaryKey: [taskid]
attributes:
  taskid: { type: bigint, generated: true }
  description: { type: aln, length: 50 }
  payee: { type: upper, length: 30, lookup: payroll }
  noteid: { type: bigint, lookup: note }
  paid: { type: upper, length: 30, lookup: paidperson }
lookups:
  payroll: { structure: MXAUTHPAYROLL, value: personid }
  note: { structure: MXAUTHNOTE, value: noteid }
  paidperson: { structure: MXAUTHPERSON, value: personid, where: 'payroll.salary>0' }
access:
  read: [EVERYONE]
  insert: [EVERYONE]
  update: [EVERYONE]
`;

type Row = Record<string, unknown>;

onEachDatabase(lab, 'a write\'s lookups read as the writer may', { settings: { demo: false, adminUser: 'MAXADMIN', adminPassword: 'maxadmin' }, fixture: { from: 'authz', add: { 'mxauthtask.yaml': tasks } } }, (t) => {

    const home = '/maximo/oslc/os';
    const jones = maxauth('jones', 'jones');
    const notes: Record<'MAXADMIN' | 'WILSON' | 'JONES', number> = {} as never;
    let task = '';

    const post = (headers: Record<string, string>, os: string, payload: unknown, more: Record<string, string> = {}) => t.inject({ method: 'POST', url: `${home}/${os}`, headers: { ...headers, ...more }, payload: payload as object });
    // Everything stored in the tasks' table, as an administrator reads it.
    const stored = async () => (await t.inject({ url: `${home}/mxauthtask?oslc.select=*&oslc.orderBy=%2Btaskid`, headers: maxadmin })).result.member as Row[];
    // An answer as a client compares two: its status and its error, with the value the message quotes left out.
    const answerOf = (res: { statusCode: number; result: any }, value: unknown) => ({ status: res.statusCode, error: JSON.stringify(res.result?.Error ?? res.result).replace(`The value ${JSON.stringify(JSON.stringify(value)).slice(1, -1)} `, 'The value <value> ') });

    before(async () => {

        const { users } = t.server.app.osprey;
        await users.ensureGroup('PLANNERS', 'Planners', false);
        await users.create({ userid: 'WILSON', password: 'wilson', groups: ['EVERYONE', 'PLANNERS'] });
        await users.create({ userid: 'JONES', password: 'jones', groups: ['EVERYONE', 'PLANNERS'] });
        for (const personid of ['MAXADMIN', 'WILSON', 'JONES']) {
            expect((await post(maxadmin, 'mxauthperson', { personid })).statusCode).to.equal(201);
        }

        expect((await post(maxadmin, 'mxauthpayroll', { personid: 'MAXADMIN', salary: 1000 })).statusCode).to.equal(201);
        for (const [userid, headers] of [['MAXADMIN', maxadmin], ['WILSON', wilson], ['JONES', jones]] as const) {
            const note = await post(headers, 'mxauthnote', { body: `${userid}'s` }, { properties: 'noteid' });
            expect(note.statusCode).to.equal(201);
            notes[userid] = note.result.noteid as number;
        }

        const made = await post(wilson, 'mxauthtask', { description: 'WILSON\'s task' });
        expect(made.statusCode).to.equal(201);
        task = new URL(made.headers.location as string).pathname;
    });

    test('a value of a structure the writer may not read is refused whatever it names, in every write form', async () => {

        const was = await stored();
        const forms = [
            (payee: string) => post(wilson, 'mxauthtask', { description: 'paid', payee }),
            (payee: string) => t.inject({ method: 'PATCH', url: task, headers: wilson, payload: { payee } }),
            (payee: string) => t.inject({ method: 'PATCH', url: task, headers: { ...wilson, patchtype: 'MERGE' }, payload: { payee } })
        ];
        for (const write of forms) {
            const existing = await write('MAXADMIN');
            const missing = await write('NOSUCHPERSON');
            expect(existing.statusCode).to.be.within(400, 499);
            expect(answerOf(existing, 'MAXADMIN')).to.equal(answerOf(missing, 'NOSUCHPERSON'));
        }

        const bulk = async (payee: string) => (await post(wilson, 'mxauthtask', [{ description: 'paid', payee }], { 'x-method-override': 'BULK' })).result[0]._responsemeta;
        const items = [await bulk('MAXADMIN'), await bulk('NOSUCHPERSON')];
        expect(items[0].status).to.equal(items[1].status);
        expect(items[0].status).to.not.equal('201');
        expect(await stored()).to.equal(was);

        // As the list of values says: WILSON may not list MXAUTHPAYROLL either.
        const list = await t.inject({ url: `${task}/getlist~payee`, headers: wilson });
        expect(list.statusCode).to.equal((await forms[0]!('MAXADMIN')).statusCode);
        expect(list.result.Error.message).to.contain('MXAUTHPAYROLL');

        // Who may read it writes its rows, and only those there.
        const paid = await post(maxadmin, 'mxauthtask', { payee: 'MAXADMIN' });
        expect(paid.statusCode).to.equal(201);
        expect((await post(maxadmin, 'mxauthtask', { payee: 'NOSUCHPERSON' })).statusCode).to.equal(400);
        // A value sent back as read is no change, and is not looked up.
        const record = new URL(paid.headers.location as string).pathname;
        expect((await t.inject({ method: 'PATCH', url: record, headers: wilson, payload: { payee: 'MAXADMIN', description: 'sent back' } })).statusCode).to.equal(204);
    });

    test('a record of another owner is refused as a record that is not there, and the writer\'s own is accepted', async () => {

        const was = await stored();
        // An administrator's write first: the lookup's SQL is kept by shape, and a non-administrator's must not reuse it.
        expect((await post(maxadmin, 'mxauthtask', { noteid: notes.WILSON })).statusCode).to.equal(201);
        const after = await stored();
        expect(after.length).to.equal(was.length + 1);

        const nowhere = Math.max(...Object.values(notes)) + 1000;
        for (const [headers, theirs] of [[wilson, notes.MAXADMIN], [wilson, notes.JONES], [jones, notes.WILSON]] as const) {
            const existing = await post(headers, 'mxauthtask', { noteid: theirs });
            const missing = await post(headers, 'mxauthtask', { noteid: nowhere });
            expect(existing.statusCode).to.equal(400);
            expect(answerOf(existing, theirs)).to.equal(answerOf(missing, nowhere));
            const change = (noteid: number) => t.inject({ method: 'PATCH', url: task, headers, payload: { noteid } });
            const changed = await change(theirs);
            expect(changed.statusCode).to.equal(400);
            expect(answerOf(changed, theirs)).to.equal(answerOf(await change(nowhere), nowhere));
        }

        expect(await stored()).to.equal(after);
        expect((await post(wilson, 'mxauthtask', { noteid: notes.WILSON })).statusCode).to.equal(201);
        expect((await post(jones, 'mxauthtask', { noteid: notes.JONES })).statusCode).to.equal(201);
        expect((await t.inject({ method: 'PATCH', url: task, headers: wilson, payload: { noteid: notes.WILSON } })).statusCode).to.equal(204);

        // The list of values shows the same rows: the writer's own notes only.
        const listed = await t.inject({ url: `${task}/getlist~noteid?oslc.select=noteid`, headers: wilson });
        expect(listed.result.member.map((note: Row) => note.noteid)).to.equal([notes.WILSON]);
    });

    test('a lookup whose where follows a relation into a structure the writer may not read is refused whatever the value', async () => {

        const was = await stored();
        const existing = await post(wilson, 'mxauthtask', { paid: 'MAXADMIN' });
        const missing = await post(wilson, 'mxauthtask', { paid: 'NOSUCHPERSON' });
        expect(existing.statusCode).to.equal(403);
        expect(answerOf(existing, 'MAXADMIN')).to.equal(answerOf(missing, 'NOSUCHPERSON'));
        expect(existing.result.Error.message).to.contain('MXAUTHPAYROLL');
        expect(await stored()).to.equal(was);

        expect((await post(maxadmin, 'mxauthtask', { paid: 'MAXADMIN' })).statusCode).to.equal(201);
        expect((await post(maxadmin, 'mxauthtask', { paid: 'WILSON' })).statusCode).to.equal(400);
    });
});
