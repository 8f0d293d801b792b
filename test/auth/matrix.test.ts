import * as Code from '@hapi/code';
import * as Lab from '@hapi/lab';

import type { UserProfile } from '../../src/auth/users';
import { hooksOf } from '../../src/structures/hooks';
import type { Row, Structure } from '../../src/structures/registry';
import { onEachDatabase } from '../helpers/experiments';
import { maxadmin, wilson } from '../helpers/server';


const lab = exports.lab = Lab.script();
const { test, before } = lab;
const { expect } = Code;

// The authorization matrix (issue 18, must-do 3 and item 8): every route kind × user × structure of the fixture
// test/fixtures/structures/authz, whose answer is compared with the status the YAML's `access` (read from the
// registry, never written down here) and the structure's hooks call for. MXAUTHPERSON relates to the API keys
// (owner rule) and to MXAUTHPAYROLL, which WILSON (EVERYONE, PLANNERS) may not read.

const home = '/maximo/oslc';
const structures = ['MXAPIAPIKEY', 'MXAUTHPERSON', 'MXAUTHPAYROLL', 'MXAUTHNOTE'] as const;
type Name = typeof structures[number];

// Per structure: an attribute with a lookup (and the structure it lists), the attribute grouped and counted, a
// change of one attribute, and a body that creates a record (given a fresh person where one is needed).
const shapes: Record<Name, { lookup: string; group: string; change: Row }> = {
    MXAPIAPIKEY: { lookup: 'userid', group: 'userid', change: { expiration: 5 } },
    MXAUTHPERSON: { lookup: 'supervisor', group: 'personid', change: { displayname: 'Changed' } },
    MXAUTHPAYROLL: { lookup: 'personid', group: 'personid', change: { salary: 2 } },
    MXAUTHNOTE: { lookup: 'author', group: 'author', change: { body: 'changed' } }
};

type Right = 'read' | 'insert' | 'update' | 'delete';

interface Who {
    readonly label: string;
    readonly userid: 'MAXADMIN' | 'WILSON';
    readonly apiKey: boolean;
    headers: Record<string, string>;
    profile?: UserProfile;
}

// What the YAML grants, worked out here on its own: administrators pass, EVERYONE is everyone, else a group.
const may = (who: Who, structure: Structure, right: Right) => {

    const groups = structure.def.access[right];
    return who.profile!.isAdmin || groups.includes('EVERYONE') || groups.some((group) => who.profile!.groups.includes(group));
};

const ownerOf = (who: Who, structure: Structure) => (who.profile!.isAdmin ? undefined : structure.def.access.owner);

onEachDatabase(lab, 'the authorization matrix', { settings: { demo: false, adminUser: 'MAXADMIN', adminPassword: 'maxadmin' }, fixture: { from: 'authz' }, timeout: 120000 }, (t) => {

    const users: Who[] = [
        { label: 'MAXADMIN', userid: 'MAXADMIN', apiKey: false, headers: maxadmin },
        { label: 'WILSON', userid: 'WILSON', apiKey: false, headers: wilson },
        { label: 'WILSON (API key)', userid: 'WILSON', apiKey: true, headers: {} }
    ];
    // The record of each structure that belongs to (or is about) each user, as stored.
    const records = {} as Record<Name, Record<'MAXADMIN' | 'WILSON', { path: string; row: Row }>>;
    let serial = 0;

    const registry = () => t.server.app.osprey.registry;
    const inject = (who: Who, method: string, url: string, payload?: unknown, headers: Record<string, string> = {}) => t.inject({ method, url, headers: { ...who.headers, ...headers }, ...payload === undefined ? {} : { payload: payload as object } });
    const admin = users[0]!;

    const created = async (os: string, body: Row) => {

        const res = await inject(admin, 'POST', `${home}/os/${os.toLowerCase()}`, body, { properties: '*' });
        expect(res.statusCode, res.payload).to.equal(201);
        return { path: new URL(res.headers.location as string).pathname, row: res.result as Row };
    };

    const freshPerson = async () => (await created('MXAUTHPERSON', { personid: `P${++serial}` })).row.personid as string;

    // A new record of the structure, held by `userid` where it keeps records to their owners.
    const fresh = async (name: Name, userid: string) => {

        switch (name) {
            case 'MXAPIAPIKEY': return await created(name, { userid });
            case 'MXAUTHPERSON': return await created(name, { personid: `P${++serial}` });
            case 'MXAUTHPAYROLL': return await created(name, { personid: await freshPerson(), salary: 1 });
            default: return await created(name, { author: userid, body: 'fresh' });
        }
    };

    const createBody = async (name: Name): Promise<Row> => {

        switch (name) {
            case 'MXAPIAPIKEY': return { expiration: 60 };
            case 'MXAUTHPERSON': return { personid: `P${++serial}` };
            case 'MXAUTHPAYROLL': return { personid: await freshPerson(), salary: 3 };
            default: return { body: 'mine' };
        }
    };

    // The key values that name a record in a SYNC or a bulk AddChange.
    const keysOf = (structure: Structure, row: Row) => Object.fromEntries(structure.root.primaryKey.map((key) => [key, row[key]]));

    before(async () => {

        const { users: accounts } = t.server.app.osprey;
        await accounts.ensureGroup('PLANNERS', 'Planners', false);
        await accounts.create({ userid: 'WILSON', password: 'wilson', groups: ['EVERYONE', 'PLANNERS'] });
        for (const who of users) {
            who.profile = await accounts.profile(who.userid);
        }

        for (const userid of ['MAXADMIN', 'WILSON'] as const) {
            const person = await created('MXAUTHPERSON', { personid: userid, displayname: userid, phone: [{ phonenum: `${userid}-1` }] });
            (records.MXAUTHPERSON ??= {} as never)[userid] = person;
            (records.MXAUTHPAYROLL ??= {} as never)[userid] = await created('MXAUTHPAYROLL', { personid: userid, salary: 1000 });
            (records.MXAUTHNOTE ??= {} as never)[userid] = await created('MXAUTHNOTE', { author: userid, body: `${userid}'s`, tag: [{ tagname: 'first' }] });
            (records.MXAPIAPIKEY ??= {} as never)[userid] = await created('MXAPIAPIKEY', { userid });
        }

        // WILSON's API key login: a key of his own, made by a credential login.
        const key = await inject(users[1]!, 'POST', `${home}/os/mxapiapikey`, {}, { properties: 'apikey' });
        expect(key.statusCode).to.equal(201);
        users[2]!.headers = { apikey: key.result.apikey as string };
    });

    // One case: a route kind on a structure for a user, the status the YAML calls for, and what came back.
    interface Case {
        readonly route: string;
        readonly expected: number;
        readonly run: () => Promise<{ statusCode: number; result?: unknown }>;
        readonly check?: (result: any) => void;
    }

    const casesOf = (who: Who, structure: Structure, name: Name): Case[] => {

        const os = `${home}/os/${structure.id}`;
        const shape = shapes[name];
        const hooks = hooksOf(structure.root);
        const owner = ownerOf(who, structure);
        const read = may(who, structure, 'read');
        const credentialOnly = who.apiKey && hooks.credentialOnly === true;
        const target = registry().get(structure.def.lookups[structure.root.attributes.get(shape.lookup)!.lookup!]!.structure!)!;
        const cases: Case[] = [];
        const readCase = (route: string, url: string, check?: Case['check']) => cases.push({ route, expected: read ? 200 : 403, run: () => inject(who, 'GET', url), check });
        // Owned rows only: every value of the owner attribute in a list is the user's.
        const ownRows = (values: unknown[]) => {

            expect(values.length).to.be.above(0);
            expect(values.every((value) => value === who.userid), JSON.stringify(values)).to.be.true();
        };

        readCase('collection GET', `${os}?oslc.select=*&oslc.pageSize=1000`, (result) => owner && ownRows(result.member.map((member: Row) => member[owner])));
        readCase('group-by', `${os}?gbcols=${shape.group},count.*`, (result) => owner && ownRows(result.map((group: Row) => group[shape.group])));
        readCase('distinct', `${os}?distinct=${shape.group}`, (result) => owner && ownRows(result));
        readCase('report', `${os}?action=genreport&reportname=${encodeURIComponent(structure.def.reports[0]!.name)}&reportformat=json`);

        for (const whose of ['MAXADMIN', 'WILSON'] as const) {
            const { path, row } = records[name][whose];
            const mine = whose === who.userid;
            // A record of another owner is not there for this user.
            const hidden = owner !== undefined && !mine;
            const of = `(${mine ? 'own' : 'other'} record)`;
            const member = !read ? 403 : hidden ? 404 : 200;
            cases.push({ route: `member GET ${of}`, expected: member, run: () => inject(who, 'GET', path) });
            const child = [...structure.root.children.keys()][0];
            if (child) {
                cases.push({ route: `child collection ${of}`, expected: member, run: () => inject(who, 'GET', `${path}/${child}`) });
            }

            cases.push({ route: `lookup ${of}`, expected: member === 200 && !may(who, target, 'read') ? 403 : member, run: () => inject(who, 'GET', `${path}/getlist~${shape.lookup}`) });

            const change = (right: Right[]) => (!right.every((one) => may(who, structure, one)) ? 403 : hooks.beforeChange ? 400 : hidden ? 404 : 204);
            cases.push({ route: `update ${of}`, expected: change(['update']), run: () => inject(who, 'PATCH', path, shape.change) });
            cases.push({ route: `merge ${of}`, expected: change(['update']), run: () => inject(who, 'PATCH', path, shape.change, { patchtype: 'MERGE' }) });
            // A sync (or a bulk AddChange) whose keys name another owner's record is refused: it can neither
            // overwrite it nor create it again.
            const sync = change(['insert', 'update']);
            const body = { ...keysOf(structure, row), ...shape.change };
            cases.push({ route: `sync ${of}`, expected: sync === 404 ? 403 : sync, run: () => inject(who, 'POST', os, body, { 'x-method-override': 'SYNC' }) });
            cases.push({
                route: `bulk ${of}`,
                expected: sync === 404 || sync === 204 ? 200 : sync,
                run: () => inject(who, 'POST', os, [{ _action: 'AddChange', ...body }], { 'x-method-override': 'BULK' }),
                check: (result) => expect(result[0]._responsemeta.status).to.equal(sync === 404 ? '403' : '204')
            });

            const remove = !may(who, structure, 'delete') || credentialOnly ? 403 : hidden ? 404 : 204;
            cases.push({ route: `delete ${of}`, expected: remove, run: async () => inject(who, 'DELETE', (await fresh(name, whose)).path) });
        }

        const create = !may(who, structure, 'insert') || credentialOnly ? 403 : 201;
        cases.push({
            route: 'create',
            expected: create,
            run: async () => inject(who, 'POST', os, await createBody(name), { properties: owner ?? '*' }),
            check: (result) => owner && expect(result[owner]).to.equal(who.userid)
        });

        return cases;
    };

    test('every route kind × user × structure answers as the YAML\'s access says', async () => {

        const mismatches: string[] = [];
        let compared = 0;
        for (const name of structures) {
            const structure = registry().get(name)!;
            for (const who of users) {
                for (const { route, expected, run, check } of casesOf(who, structure, name)) {
                    const res = await run();
                    ++compared;
                    if (res.statusCode !== expected) {
                        mismatches.push(`${name} ${route} as ${who.label}: ${res.statusCode}, expected ${expected} (${JSON.stringify(res.result).slice(0, 200)})`);
                        continue;
                    }

                    try {
                        // A check reads the answer of a success only.
                        if (res.statusCode < 300) {
                            check?.(res.result);
                        }
                    }
                    catch (error) {
                        mismatches.push(`${name} ${route} as ${who.label}: ${(error as Error).message}`);
                    }
                }
            }
        }

        expect(mismatches).to.equal([]);
        // 3 users × 4 structures: 5 cases of the collection (GET, group-by, distinct, report, create) and, for each
        // of two records (the user's, another's), 7 (8 where the structure has a child collection).
        expect(compared).to.equal(3 * (4 * 5 + 2 * 2 * 7 + 2 * 2 * 8));
    });

    const get = async (who: Who, url: string) => {

        const res = await inject(who, 'GET', url);
        return { status: res.statusCode, result: res.result as any, message: (res.result as any)?.Error?.message as string | undefined };
    };

    const people = `${home}/os/mxauthperson`;
    const both = 'personid in ["MAXADMIN","WILSON"]';

    test('a relation to a structure the user may not read is a 403 naming it, in every form that follows it', async () => {

        const [maxadminUser, wilsonUser, wilsonKey] = users as [Who, Who, Who];
        const probes = [
            `${people}?oslc.select=personid,payroll.salary`,
            `${people}?oslc.select=personid,payroll{*}`,
            `${people}?oslc.select=personid,payroll.salary._dbsum`,
            `${people}?oslc.select=personid,rel.payroll._dbcount`,
            `${people}?oslc.where=${encodeURIComponent('payroll.salary>0')}`,
            `${people}?oslc.where=${encodeURIComponent('payroll{salary>0}')}&count=1`,
            `${people}?oslc.where=${encodeURIComponent('payroll.salary>0')}&gbcols=personid`,
            `${people}?oslc.where=${encodeURIComponent('payroll.salary>0')}&distinct=personid`,
            `${people}?action=genreport&reportname=pay.rptdesign&reportformat=json`,
            `${records.MXAUTHPERSON.WILSON.path}?oslc.select=payroll{salary}`,
            `${records.MXAUTHPERSON.WILSON.path}/getlist~supervisor?oslc.where=${encodeURIComponent('payroll.salary>0')}`,
            // The schema of a selection describes what a record so selected holds: refused as the record GET is.
            `${home}/jsonschemas/mxauthperson?oslc.select=personid,payroll.salary`,
            `${home}/jsonschemas/mxauthperson?oslc.select=personid,payroll{*}`,
            `${home}/jsonschemas/mxauthperson?oslc.select=personid,payroll.salary._dbsum`,
            `${home}/jsonschemas/mxauthperson?oslc.select=personid,rel.payroll._dbcount`
        ];
        for (const url of probes) {
            for (const who of [wilsonUser, wilsonKey]) {
                const res = await get(who, url);
                expect(res.status, url).to.equal(403);
                expect(res.message, url).to.contain('not authorized to read MXAUTHPAYROLL').and.to.contain('payroll of MXAUTHPERSON');
            }

            expect((await get(maxadminUser, url)).status, url).to.equal(200);
        }

        const pay = await get(maxadminUser, `${people}?oslc.select=personid,payroll.salary&oslc.where=personid="WILSON"`);
        expect(pay.result.member[0].payroll.salary).to.be.a.number();
        // oslc.orderBy names attributes of the structure only: it follows no relation.
        expect((await get(wilsonUser, `${people}?oslc.orderBy=payroll.salary`)).status).to.equal(400);
    });

    test('a relation to records kept to their owners reaches the reader\'s own only', async () => {

        const [maxadminUser, wilsonUser, wilsonKey] = users as [Who, Who, Who];
        const byPerson = (result: any) => Object.fromEntries(result.member.map((member: Row) => [member.personid, member]));
        for (const who of [maxadminUser, wilsonUser, wilsonKey, maxadminUser]) {
            const own = (userid: string) => who.profile!.isAdmin || userid === who.userid;
            const listed = byPerson((await get(who, `${people}?oslc.select=personid,apikeys{userid,expiration},apikeys._dbcount--keys&oslc.where=${encodeURIComponent(both)}`)).result);
            for (const userid of ['MAXADMIN', 'WILSON']) {
                const keys = listed[userid].apikeys ?? [];
                expect(keys.length > 0, `${who.label} reading ${userid}'s keys`).to.equal(own(userid));
                expect(keys.every((key: Row) => key.userid === userid)).to.be.true();
                expect(listed[userid].keys).to.equal(keys.length);
            }

            // The where is an EXISTS over the reader's own rows; kept SQL is per reach (admins' is not WILSON's).
            const matching = (await get(who, `${people}?oslc.select=personid&oslc.where=${encodeURIComponent(`apikeys.expiration=-1 and ${both}`)}`)).result.member.map((member: Row) => member.personid);
            expect(matching).to.equal(who.profile!.isAdmin ? ['MAXADMIN', 'WILSON'] : ['WILSON']);
            const exists = (await get(who, `${people}?count=1&oslc.where=${encodeURIComponent('personid="MAXADMIN" and apikeys{userid="MAXADMIN"}')}`)).result;
            expect(exists.totalCount).to.equal(who.profile!.isAdmin ? 1 : 0);

            // The schema of such a selection describes the relation, which every reader may follow.
            const schema = await get(who, `${home}/jsonschemas/mxauthperson?oslc.select=personid,apikeys{userid}`);
            expect(schema.status).to.equal(200);
            expect(Object.keys(schema.result.properties.apikeys.items.properties)).to.include('userid');

            const member = (await get(who, `${records.MXAUTHPERSON.MAXADMIN.path}?oslc.select=personid,apikeys{apikeytokenid}`)).result;
            expect((member.apikeys ?? []).length > 0).to.equal(own('MAXADMIN'));

            const report = (await get(who, `${people}?action=genreport&reportname=keys.rptdesign&reportformat=json&oslc.where=${encodeURIComponent(both)}`)).result;
            const counts: Record<string, number> = Object.fromEntries(JSON.parse(report.toString()).member.map((row: Row) => [row.personid, row['apikeys._dbcount']]));
            expect(counts.MAXADMIN > 0, who.label).to.equal(own('MAXADMIN'));
            expect(counts.WILSON).to.be.above(0);
        }

        // A key's computed `active` through the relation is worked out from its whole row, as the keys' own list has it.
        const related = (await get(maxadminUser, `${people}?oslc.select=personid,apikeys{apikeytokenid,active}&oslc.where=${encodeURIComponent(both)}`)).result.member.flatMap((member: Row) => (member.apikeys ?? []) as Row[]) as Row[];
        const own = (await get(maxadminUser, `${home}/os/mxapiapikey?oslc.select=apikeytokenid,active&oslc.pageSize=1000`)).result.member as Row[];
        expect(related.length).to.be.above(1);
        expect(related.every((key: Row) => key.active === own.find((each) => each.apikeytokenid === key.apikeytokenid)?.active)).to.be.true();
        expect(related.some((key: Row) => key.active === true)).to.be.true();

        // Secrets stay out of reach through a relation, for everyone.
        expect((await get(maxadminUser, `${people}?oslc.select=apikeys{apikey}`)).status).to.equal(400);
        expect((await get(maxadminUser, `${people}?oslc.where=${encodeURIComponent('apikeys.apikey="x"')}`)).status).to.equal(400);
        expect((await get(maxadminUser, `${home}/jsonschemas/mxauthperson?oslc.select=apikeys{apikey}`)).status).to.equal(400);
    });

    test('an API key reads its user\'s key rows but not their values, and mints or revokes none', async () => {

        const [, wilsonUser, wilsonKey] = users as [Who, Who, Who];
        const keys = `${home}/os/mxapiapikey`;
        const mine = records.MXAPIAPIKEY.WILSON.path;
        for (const url of [`${keys}?oslc.select=apikey`, `${keys}?oslc.select=apikeytokenid,apikey`, `${mine}?oslc.select=apikey`]) {
            const refused = await get(wilsonKey, url);
            expect(refused.status, url).to.equal(403);
            expect(refused.message).to.contain('credential login');
            expect((await get(wilsonUser, url)).status, url).to.equal(200);
        }

        const listed: Row[] = (await get(wilsonKey, `${keys}?oslc.select=userid,expiration`)).result.member;
        expect(listed.length).to.be.above(0);
        expect(listed.every((key: Row) => key.userid === 'WILSON')).to.be.true();
        const revealed = (await get(wilsonUser, `${mine}?oslc.select=apikey`)).result;
        expect(revealed.apikey).to.be.a.string();

        const minted = await inject(wilsonKey, 'POST', keys, { expiration: -1 }, { properties: 'apikey' });
        expect(minted.statusCode).to.equal(403);
        expect(minted.result.Error.message).to.contain('credential login');
        const revoked = await inject(wilsonKey, 'DELETE', mine);
        expect(revoked.statusCode).to.equal(403);
        expect((await get(wilsonUser, mine)).status).to.equal(200);
        // The token routes refuse keys as before.
        expect((await inject(wilsonKey, 'POST', `${home}/apitoken/create`, { expiration: -1 })).statusCode).to.equal(403);
    });

    test('the owner rule holds for every write form and any case of the owner attribute', async () => {

        const [maxadminUser, wilsonUser] = users as [Who, Who, Who];
        const notes = `${home}/os/mxauthnote`;
        const theirs = records.MXAUTHNOTE.MAXADMIN;
        const mine = records.MXAUTHNOTE.WILSON;
        const stored = async (path: string) => (await get(maxadminUser, `${path}?oslc.select=author,body`)).result;
        const untouched = await stored(theirs.path);

        // Another user's record: a SYNC or a bulk AddChange naming its keys is refused, and it is left as it was.
        const sync = await inject(wilsonUser, 'POST', notes, { noteid: theirs.row.noteid, body: 'taken' }, { 'x-method-override': 'SYNC' });
        expect(sync.statusCode).to.equal(403);
        expect(sync.result.Error.message).to.contain('belongs to another user');
        const bulk = await inject(wilsonUser, 'POST', notes, [{ _action: 'AddChange', noteid: theirs.row.noteid, body: 'taken' }], { 'x-method-override': 'BULK' });
        expect(bulk.result[0]._responsemeta.status).to.equal('403');
        const all = await inject(wilsonUser, 'POST', notes, [{ _action: 'AddChange', noteid: theirs.row.noteid, body: 'taken' }], { 'x-method-override': 'BULK', allornothing: '1' });
        expect(all.result[0]._responsemeta.status).to.equal('403');
        expect(await stored(theirs.path)).to.equal(untouched);

        // One's own record cannot be handed to another user, nor to no one, in any case or spelling of the name.
        for (const body of [{ author: 'MAXADMIN' }, { AUTHOR: 'MAXADMIN' }, { AuThOr: 'maxadmin' }, { 'spi:author': 'MAXADMIN' }, { author: null }]) {
            expect((await inject(wilsonUser, 'PATCH', mine.path, body)).statusCode, JSON.stringify(body)).to.equal(403);
            expect((await inject(wilsonUser, 'PATCH', mine.path, body, { patchtype: 'MERGE' })).statusCode, JSON.stringify(body)).to.equal(403);
            expect((await inject(wilsonUser, 'POST', notes, { noteid: mine.row.noteid, ...body }, { 'x-method-override': 'SYNC' })).statusCode, JSON.stringify(body)).to.equal(403);
            const item = await inject(wilsonUser, 'POST', notes, [{ _action: 'AddChange', noteid: mine.row.noteid, ...body }], { 'x-method-override': 'BULK' });
            expect(item.result[0]._responsemeta.status).to.equal('403');
        }

        expect((await stored(mine.path)).author).to.equal('WILSON');
        expect((await inject(wilsonUser, 'PATCH', mine.path, { Author: 'wilson', body: 'still mine' })).statusCode).to.equal(204);
        const twice = await inject(wilsonUser, 'PATCH', mine.path, { author: 'WILSON', AUTHOR: 'MAXADMIN' });
        expect(twice.statusCode).to.equal(400);
        expect(twice.result.Error.message).to.contain('name it once');

        // A create in another's name, in any case, is refused; naming the owner twice is a 400.
        expect((await inject(wilsonUser, 'POST', notes, { author: null, AUTHOR: 'MAXADMIN' })).statusCode).to.equal(400);
        expect((await inject(wilsonUser, 'POST', notes, { AUTHOR: 'MAXADMIN' })).statusCode).to.equal(403);
        expect((await inject(wilsonUser, 'POST', notes, { 'spi:author': 'MAXADMIN' })).statusCode).to.equal(403);
        const cased = await inject(wilsonUser, 'POST', notes, { Author: 'wilson', body: 'cased' }, { properties: 'author' });
        expect(cased.statusCode).to.equal(201);
        expect(cased.result.author).to.equal('WILSON');

        // Administrators write any owner, by any case of the name.
        const given = await inject(maxadminUser, 'POST', notes, { AUTHOR: 'WILSON', body: 'given' }, { properties: 'author' });
        expect(given.result.author).to.equal('WILSON');
        const key = await inject(maxadminUser, 'POST', `${home}/os/mxapiapikey`, { USERID: 'WILSON' }, { properties: 'userid' });
        expect(key.result.userid).to.equal('WILSON');
    });
});
