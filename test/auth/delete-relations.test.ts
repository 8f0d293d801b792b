import * as Code from '@hapi/code';
import * as Lab from '@hapi/lab';

import type { Row } from '../../src/structures/registry';
import { onEachDatabase } from '../helpers/experiments';
import type { TestServer as Experiment } from '../helpers/server';
import { maxadmin, wilson } from '../helpers/server';


const lab = exports.lab = Lab.script();
const { test, before } = lab;
const { expect } = Code;

// A delete reaches other structures' rows through the relations' onDelete (src/write/apply/delete.ts): it must
// reach them with the writer's rights, as a read does (issue 18). The authorization fixture's people get the
// delete right for everyone; their API keys (owner rule, credential logins only) are deleted with them, and a
// note (owner rule) that names one as its author restricts its delete.

const home = '/maximo/oslc';
const people = `${home}/os/mxauthperson`;
const settings = { demo: false, adminUser: 'MAXADMIN', adminPassword: 'maxadmin' };

const deletable = (cascades: string) => {

    return (text: string, file: string) => (file !== 'mxauthperson.yaml' ? text : text
        .replace('update: [PLANNERS]', 'update: [PLANNERS]\n  delete: [EVERYONE]')
        .replace('join: { personid: userid } }', `join: { personid: userid }, onDelete: cascade }\n  notes: { structure: MXAUTHNOTE, cardinality: many, join: { personid: author } }`)
        .replace('payroll: { structure: MXAUTHPAYROLL, cardinality: one, join: { personid: personid } }', `payroll: { structure: MXAUTHPAYROLL, cardinality: one, join: { personid: personid }${cascades} }`));
};

// Every row of the tables a delete may touch, to compare before and after a refused one (but when a key was last
// used: signing in with it writes that).
const tables = async (t: Experiment) => {

    const knex = t.server.app.osprey.knex;
    const all: Record<string, Row[]> = {};
    for (const table of ['authperson', 'authphone', 'apikeytoken', 'authnote', 'authpayroll']) {
        all[table] = (await knex(table).select().orderBy(1)).map(({ lastused: _lastused, ...row }: Row) => row);
    }

    return all;
};

const helpers = (t: Experiment) => {

    const send = (method: string, url: string, headers: Record<string, string>, payload?: unknown) => t.inject({ method, url, headers, ...payload === undefined ? {} : { payload: payload as object } });
    const created = async (os: string, body: Row) => {

        const res = await send('POST', `${home}/os/${os}`, { ...maxadmin, properties: '*' }, body);
        expect(res.statusCode, res.payload).to.equal(201);
        return { path: new URL(res.headers.location as string).pathname, row: res.result as Row };
    };

    // WILSON signs in with a password (EVERYONE, PLANNERS), as in the demo.
    const addWilson = async () => {

        const { users } = t.server.app.osprey;
        await users.ensureGroup('PLANNERS', 'Planners', false);
        await users.create({ userid: 'WILSON', password: 'wilson', groups: ['EVERYONE', 'PLANNERS'] });
    };

    return { send, created, addWilson };
};

onEachDatabase(lab, 'a delete cascades only into records the writer may delete', { settings, fixture: { from: 'authz', edit: deletable('') } }, (t) => {

    const { send, created, addWilson } = helpers(t);
    const person: Record<string, string> = {};
    let wilsonKey: Record<string, string>;

    before(async () => {

        await addWilson();
        for (const userid of ['MAXADMIN', 'WILSON', 'LONER', 'NOTED']) {
            person[userid] = (await created('mxauthperson', { personid: userid, phone: [{ phonenum: `${userid}-1` }] })).path;
        }

        await created('mxapiapikey', { userid: 'MAXADMIN' });
        await created('mxapiapikey', { userid: 'WILSON' });
        await created('mxauthnote', { author: 'NOTED', body: 'a note by NOTED' });
        const key = await send('POST', `${home}/os/mxapiapikey`, { ...wilson, properties: 'apikey' }, {});
        expect(key.statusCode).to.equal(201);
        wilsonKey = { apikey: key.result.apikey as string };
    });

    test('another user\'s record on the cascade refuses the delete, and nothing is deleted', async () => {

        const earlier = await tables(t);
        const res = await send('DELETE', person.MAXADMIN!, wilson);
        expect(res.statusCode).to.equal(403);
        expect(res.result.Error.message).to.contain('records of MXAPIAPIKEY that belong to other users');
        expect(await tables(t)).to.equal(earlier);
    });

    test('a signed-in API key deletes no record whose delete cascades into API keys, whatever rows exist', async () => {

        const earlier = await tables(t);
        for (const res of [
            await send('DELETE', person.LONER!, wilsonKey),
            await send('POST', people, { ...wilsonKey, 'x-method-override': 'BULK' }, [{ _action: 'Delete', href: person.LONER }]),
            await send('POST', person.LONER!, { ...wilsonKey, 'x-method-override': 'PATCH' }, { _action: 'Delete' })
        ]) {
            expect(res.statusCode, res.payload).to.equal(403);
            expect(res.result.Error.message).to.contain('MXAPIAPIKEY records are deleted with a credential login');
        }

        expect(await tables(t)).to.equal(earlier);
    });

    test('a restriction refuses whoever deletes, and counts the records only for who may read them all', async () => {

        const earlier = await tables(t);
        const asWilson = await send('DELETE', person.NOTED!, wilson);
        expect(asWilson.statusCode).to.equal(400);
        expect(String(asWilson.result.Error.message)).to.endWith('The AUTHPERSON record cannot be deleted: MXAUTHNOTE records refer to it through the relation notes.');
        const asAdmin = await send('DELETE', person.NOTED!, maxadmin);
        expect(asAdmin.statusCode).to.equal(400);
        expect(String(asAdmin.result.Error.message)).to.endWith('The AUTHPERSON record cannot be deleted: 1 MXAUTHNOTE record(s) refer to it through the relation notes.');
        expect(await tables(t)).to.equal(earlier);
    });

    test('the writer\'s own records on the cascade are deleted with the record, and no other row', async () => {

        const earlier = await tables(t);
        const res = await send('DELETE', person.WILSON!, wilson);
        expect(res.statusCode, res.payload).to.equal(204);
        const after = await tables(t);
        expect(after.authperson).to.equal(earlier.authperson!.filter((row) => row.personid !== 'WILSON'));
        expect(after.authphone).to.equal(earlier.authphone!.filter((row) => row.personid !== 'WILSON'));
        expect(after.apikeytoken).to.equal(earlier.apikeytoken!.filter((row) => row.userid !== 'WILSON'));
        expect(earlier.apikeytoken!.filter((row) => row.userid === 'WILSON').length).to.equal(2);
        expect(after.authnote).to.equal(earlier.authnote);
        expect(after.authpayroll).to.equal(earlier.authpayroll);
    });
});

onEachDatabase(lab, 'a delete cascades only into structures the writer may delete', { settings, fixture: { from: 'authz', edit: deletable(', onDelete: cascade') } }, (t) => {

    const { send, created, addWilson } = helpers(t);
    const person: Record<string, string> = {};

    before(async () => {

        await addWilson();
        for (const userid of ['PAID', 'UNPAID']) {
            person[userid] = (await created('mxauthperson', { personid: userid })).path;
        }

        await created('mxauthpayroll', { personid: 'PAID', salary: 10 });
    });

    test('without the delete right on a structure the cascade reaches, a delete is a 403 whatever its rows', async () => {

        const earlier = await tables(t);
        for (const path of [person.PAID!, person.UNPAID!]) {
            const res = await send('DELETE', path, wilson);
            expect(res.statusCode).to.equal(403);
            expect(String(res.result.Error.message)).to.endWith('User WILSON is not authorized to delete MXAUTHPAYROLL records.');
        }

        expect(await tables(t)).to.equal(earlier);
    });

    test('who may delete both deletes the record and its related row', async () => {

        const earlier = await tables(t);
        expect((await send('DELETE', person.PAID!, maxadmin)).statusCode).to.equal(204);
        const after = await tables(t);
        expect(after.authpayroll).to.equal(earlier.authpayroll!.filter((row) => row.personid !== 'PAID'));
        expect(after.authperson).to.equal(earlier.authperson!.filter((row) => row.personid !== 'PAID'));
        expect(after.apikeytoken).to.equal(earlier.apikeytoken);
    });
});
