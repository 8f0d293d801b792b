import * as Code from '@hapi/code';
import * as Lab from '@hapi/lab';

import { onEachDatabase } from '../helpers/experiments';
import { maxadmin, maxauth, startTestServer, wilson } from '../helpers/server';


const lab = exports.lab = Lab.script();
const { test } = lab;
const { expect } = Code;

const users = '/maximo/oslc/os/mxapimaxuser';
const groups = '/maximo/oslc/os/mxapimaxgroup';

onEachDatabase(lab, 'Users and groups as object structures', (t) => {

    const post = (url: string, payload: unknown, headers: Record<string, string> = maxadmin, extra: Record<string, string> = {}) => t.inject({ method: 'POST', url, headers: { ...headers, ...extra }, payload: payload as object });
    const patch = (href: string, payload: unknown, headers: Record<string, string> = maxadmin) => post(href, payload, headers, { 'x-method-override': 'PATCH', patchtype: 'MERGE' });
    const get = (url: string, headers: Record<string, string> = maxadmin) => t.inject({ url, headers });
    const hrefOf = async (userid: string, structure = users, key = 'userid') => (await get(`${structure}?oslc.where=${key}="${userid}"&oslc.select=*`)).result.member[0].href.replace(/^http:\/\/[^/]+/, '') as string;
    const login = (userid: string, password: string) => get('/maximo/oslc/whoami', maxauth(userid, password));

    test('an administrator adds a planner, who logs in with maxauth and the form, and reads their own record only', async () => {

        const created = await post(`${users}?lean=1`, { userid: 'plan1', displayname: 'Pat Planner', passwordinput: 'Tulip-Harbor-42', passwordcheck: 'Tulip-Harbor-42', groupuser: [{ groupname: 'PLANNERS' }, { groupname: 'EVERYONE' }] }, maxadmin, { properties: '*' });
        expect(created.statusCode, created.payload).to.equal(201);
        expect(created.result.userid).to.equal('PLAN1');
        expect(created.result.status).to.equal('ACTIVE');
        expect(created.result.passwordhash).to.not.exist();
        expect(created.result.passwordinput).to.not.exist();
        expect(created.payload).to.not.contain('scrypt');
        expect(created.result.created).to.be.a.number();

        const whoami = await login('plan1', 'Tulip-Harbor-42');
        expect(whoami.statusCode, whoami.payload).to.equal(200);
        expect(whoami.payload).to.contain('PLANNERS');
        const form = await t.inject({ url: '/maximo/oslc/j_security_check', method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, payload: 'j_username=plan1&j_password=Tulip-Harbor-42' });
        expect(form.statusCode).to.equal(200);
        expect(form.result.userName).to.equal('PLAN1');

        // The planner reads their own record, not others', and changes nothing.
        const plan1 = maxauth('plan1', 'Tulip-Harbor-42');
        const own = await get(`${users}?oslc.select=userid,displayname,groupuser.groupname`, plan1);
        expect(own.statusCode).to.equal(200);
        expect(own.result.member.map((member: { userid: string }) => member.userid)).to.equal(['PLAN1']);
        expect(own.result.member[0].groupuser.map((member: { groupname: string }) => member.groupname).sort()).to.equal(['EVERYONE', 'PLANNERS']);
        expect((await post(users, { userid: 'other', passwordinput: 'Tulip-Harbor-42' }, plan1)).statusCode).to.equal(403);
        expect((await patch(await hrefOf('plan1'), { displayname: 'Me' }, plan1)).statusCode).to.equal(403);
        expect((await get(groups, plan1)).statusCode).to.equal(403);
        expect((await get(users, wilson)).result.member.length).to.equal(1);
    });

    test('password policy: too short, common, the user id, a passwordcheck that differs: a 400 naming the rule', async () => {

        const refusals: [unknown, string][] = [
            [{ userid: 'pol1', passwordinput: 'Sh0rt!' }, 'at least 8 characters (OSPREY_PASSWORD_MIN_LENGTH)'],
            [{ userid: 'pol1', passwordinput: 'password123' }, 'most common passwords'],
            [{ userid: 'pol1', passwordinput: 'Qwerty123' }, 'most common passwords'],
            [{ userid: 'longuserid1', passwordinput: 'LONGUSERID1' }, 'cannot be the user ID'],
            [{ userid: 'pol1', passwordinput: 'Tulip-Harbor-42', passwordcheck: 'Tulip-Harbor-43' }, 'passwordcheck does not match'],
            [{ userid: 'pol1', passwordcheck: 'Tulip-Harbor-42' }, 'send it with passwordinput'],
            [{ userid: 'pol1', passwordinput: null }, 'passwordinput is empty'],
            [{ userid: 'pol1', passwordinput: '' }, 'passwordinput is empty'],
            [{ userid: 'pol1', passwordinput: 12345678 }, 'must be a string'],
            [{ userid: 'pol1', passwordhash: 'scrypt$1$1$1$AA$AA' }, 'PASSWORDHASH is read-only']
        ];
        for (const [body, message] of refusals) {
            const res = await post(users, body);
            expect(res.statusCode, JSON.stringify(body)).to.equal(400);
            expect(res.result.Error.message).to.contain(message);
        }

        // User IDs a login could not send, or a listing would show as another's; a password never repeated back.
        for (const userid of ['MAXADMIN ', 'MAXADMIN\t', 'MAXADMIN\u200b', 'TAB\nNL', ' LEAD', 'A B', 'A:B', 'über']) {
            const res = await post(users, { userid, passwordinput: 'Tulip-Harbor-42' });
            expect(res.statusCode, JSON.stringify(userid)).to.equal(400);
            expect(res.result.Error.message, JSON.stringify(userid)).to.match(/is not allowed: a user ID has 1 to 30|not valid for MAXUSER.USERID/);
        }

        // Letters whose upper case is another text are refused as sent, not stored folded (STRAßE as STRASSE, ﬁx as
        // FIX, wılson as WILSON): the user ID stored is always the one the administrator wrote.
        for (const userid of ['STRAßE', 'ﬁx', 'wılson', 'wilſon']) {
            const res = await post(users, { userid, passwordinput: 'Maple-Stone-34' });
            expect(res.statusCode, JSON.stringify(userid)).to.equal(400);
            expect(res.result.Error.message, JSON.stringify(userid)).to.contain('holds a letter whose upper case is another text');
        }

        for (const userid of ['STRASSE', 'FIX']) {
            expect((await get(`${users}?oslc.where=userid="${userid}"`)).result.member, userid).to.equal([]);
        }

        const long = await post(users, { userid: 'pol1', passwordinput: 'Q'.repeat(201) });
        expect(long.statusCode).to.equal(400);
        expect(long.result.Error.message).to.not.contain('QQQQ');
        expect((await post(users, { userid: 'pol1', passwordinput: ' '.repeat(8) })).result.Error.message).to.contain('only spaces');

        // Nothing was made by the refused writes.
        expect((await get(`${users}?oslc.where=userid="POL1"`)).result.member).to.equal([]);
    });

    test('the hash is never readable: no select, filter, order or grouping names it', async () => {

        const secret = [
            `${users}?oslc.select=passwordhash`,
            `${users}?oslc.select=userid,credstamp`,
            `${users}?oslc.where=passwordhash="x"`,
            `${users}?oslc.where=passwordhash!="*"`,
            `${users}?oslc.orderBy=-passwordhash`,
            `${users}?gbcols=passwordhash`
        ];
        for (const url of secret) {
            const res = await get(url);
            expect(res.statusCode, url).to.equal(400);
            expect(res.result.Error.message, url).to.match(/MAXUSER\.(PASSWORDHASH|CREDSTAMP) is secret/);
        }

        // Not even the user may select their own hash; a search does not look into it; a child has no such attribute.
        expect((await get(`${users}?oslc.select=passwordhash`, wilson)).statusCode).to.equal(400);
        expect((await get(`${users}?oslc.searchTerms=scrypt`)).result.member).to.equal([]);
        expect((await get(`${groups}?oslc.select=groupuser{userid,passwordhash}`)).statusCode).to.equal(400);

        const all = await get(`${users}?oslc.select=*`);
        expect(all.statusCode).to.equal(200);
        expect(all.payload).to.not.contain('scrypt');
        expect(all.result.member.every((member: Record<string, unknown>) => member.passwordhash === undefined && member.credstamp === undefined)).to.be.true();
    });

    test('deactivation ends logins at once, reactivation and a new password let the user in again', async () => {

        expect((await post(users, { userid: 'deact1', passwordinput: 'Lantern-Oak-77', groupuser: [{ groupname: 'EVERYONE' }] })).statusCode).to.equal(201);
        expect((await login('deact1', 'Lantern-Oak-77')).statusCode).to.equal(200);
        const key = (await post('/maximo/api/apitoken/get', {}, maxauth('deact1', 'Lantern-Oak-77'))).result.apikey as string;
        expect((await get('/maximo/oslc/whoami', { apikey: key })).statusCode).to.equal(200);
        const href = await hrefOf('deact1');
        const off = await patch(href, { status: 'INACTIVE' });
        expect(off.statusCode, off.payload).to.equal(204);
        expect((await login('deact1', 'Lantern-Oak-77')).statusCode).to.equal(401);
        expect((await patch(href, { status: 'GONE' })).statusCode).to.equal(400);
        // An empty status names the attribute (found by a probe: "A required value is missing.", naming none).
        const empty = await patch(href, { status: '' });
        expect(empty.statusCode).to.equal(400);
        expect(empty.result.Error).to.include({ reasonCode: 'BMXAA4195E', errorattrname: 'status' });
        expect(empty.result.Error.message).to.contain('STATUS is required');
        expect((await patch(href, { status: 'ACTIVE', passwordinput: 'Meadow-Stone-88' })).statusCode).to.equal(204);
        expect((await login('deact1', 'Lantern-Oak-77')).statusCode).to.equal(401);
        expect((await login('deact1', 'Meadow-Stone-88')).statusCode).to.equal(200);
        // The key deactivation stopped stays stopped (a probe: reactivation brought a leaked key back).
        expect((await get('/maximo/oslc/whoami', { apikey: key })).statusCode).to.equal(401);
    });

    test('a password is one password in either Unicode form: é as one code point or as e and a combining accent', async () => {

        const composed = 'Caf\u00e9-Harbor-42';
        const decomposed = 'Cafe\u0301-Harbor-42';
        const made = await post(users, { userid: 'nfc1', passwordinput: decomposed, passwordcheck: composed, groupuser: [{ groupname: 'EVERYONE' }] });
        expect(made.statusCode, made.payload).to.equal(201);
        expect((await login('nfc1', composed)).statusCode).to.equal(200);
        expect((await login('nfc1', decomposed)).statusCode).to.equal(200);
        expect((await login('nfc1', 'Cafe-Harbor-42')).statusCode).to.equal(401);
    });

    test('membership through the group or the user, and a group made by the API', async () => {

        expect((await post(users, { userid: 'memb1', passwordinput: 'Copper-Field-19' })).statusCode).to.equal(201);
        const group = await post(`${groups}?lean=1`, { groupname: 'auditors', description: 'Read everything', groupuser: [{ userid: 'memb1' }] }, maxadmin, { properties: '*' });
        expect(group.statusCode, group.payload).to.equal(201);
        expect(group.result.isadmin).to.equal(false);
        const memb1 = maxauth('memb1', 'Copper-Field-19');
        expect((await get('/maximo/oslc/whoami', memb1)).payload).to.contain('AUDITORS');

        // Removed through the user's collection (a MERGE with _action Delete), added back through the group's.
        const userHref = await hrefOf('memb1');
        const removed = await patch(userHref, { groupuser: [{ groupname: 'AUDITORS', _action: 'Delete' }] });
        expect(removed.statusCode, removed.payload).to.equal(204);
        expect((await get('/maximo/oslc/whoami', memb1)).payload).to.not.contain('AUDITORS');
        const groupHref = await hrefOf('AUDITORS', groups, 'groupname');
        expect((await patch(groupHref, { groupuser: [{ userid: 'MEMB1' }] })).statusCode).to.equal(204);
        expect((await get('/maximo/oslc/whoami', memb1)).payload).to.contain('AUDITORS');
        const listed = await get(`${groups}?oslc.where=groupname="AUDITORS"&oslc.select=groupname,groupuser{userid}`);
        expect(listed.result.member[0].groupuser.map((member: { userid: string }) => member.userid)).to.equal(['MEMB1']);
        // A member that is no user is refused by the database's own rule, with a 400.
        expect((await patch(groupHref, { groupuser: [{ userid: 'NOBODY' }] })).statusCode).to.equal(400);
    });

    test('the last active administrator cannot be deleted, deactivated or taken out of the administrators', async () => {

        const admins = await get(`${groups}?oslc.where=isadmin=1&oslc.select=groupname,groupuser{userid}`);
        expect(admins.statusCode, admins.payload).to.equal(200);
        const adminIds = admins.result.member.flatMap((group: { groupuser?: { userid: string }[] }) => (group.groupuser ?? []).map((member) => member.userid));
        // Other administrators of the demo are deactivated first, so that MAXADMIN is the last.
        for (const userid of new Set<string>(adminIds)) {
            if (userid !== 'MAXADMIN') {
                expect((await patch(await hrefOf(userid), { status: 'INACTIVE' })).statusCode).to.equal(204);
            }
        }

        const href = await hrefOf('maxadmin');
        const refusals = [
            () => patch(href, { status: 'INACTIVE' }),
            () => t.inject({ method: 'DELETE', url: href, headers: maxadmin }),
            () => patch(href, { groupuser: [{ groupname: 'MAXADMIN', _action: 'Delete' }] })
        ];
        for (const refusal of refusals) {
            const res = await refusal();
            expect(res.statusCode, res.payload).to.equal(400);
            expect(res.result.Error.message).to.contain('no active administrator');
        }

        // An all-or-nothing bulk answers item by item (the npm client reads the array) when the rule refuses it as
        // it commits: the last item carries the refusal, the others a 424, and nothing is written (found by a probe).
        const wilsonHref = await hrefOf('wilson');
        const before = (await get(`${wilsonHref}?oslc.select=displayname`)).result.displayname;
        const bulk = await post(users, [{ href: `http://localhost${wilsonHref}`, _action: 'Update', displayname: 'Renamed in the bulk' }, { href: `http://localhost${href}`, _action: 'Update', status: 'INACTIVE' }], maxadmin, { 'x-method-override': 'BULK', allornothing: '1' });
        expect(bulk.statusCode, bulk.payload).to.equal(200);
        expect(bulk.result.map((item: { _responsemeta: { status: string } }) => item._responsemeta.status)).to.equal(['424', '400']);
        expect(JSON.stringify(bulk.result[1])).to.contain('no active administrator');
        expect((await get(`${wilsonHref}?oslc.select=displayname`)).result.displayname).to.equal(before);

        const adminGroup = await hrefOf('MAXADMIN', groups, 'groupname');
        expect((await patch(adminGroup, { isadmin: false })).result.Error.message).to.contain('no active administrator');
        expect((await login('maxadmin', 'maxadmin')).statusCode).to.equal(200);

        // A second administrator made, the first may go.
        expect((await post(users, { userid: 'admin2', passwordinput: 'Granite-Wave-51', groupuser: [{ groupname: 'MAXADMIN' }] })).statusCode).to.equal(201);
        const admin2 = maxauth('admin2', 'Granite-Wave-51');
        expect((await patch(href, { status: 'INACTIVE' }, admin2)).statusCode).to.equal(204);
        expect((await login('maxadmin', 'maxadmin')).statusCode).to.equal(401);
        expect((await patch(href, { status: 'ACTIVE' }, admin2)).statusCode).to.equal(204);
    });

    test('an administrator\'s API key reads users and groups but writes none of them', async () => {

        const key = (await post('/maximo/api/apitoken/get', {})).result.apikey as string;
        const byKey = { apikey: key };
        expect((await get(`${users}?oslc.where=userid="MAXADMIN"`, byKey)).result.member).to.have.length(1);
        const refusals = [
            () => post(users, { userid: 'bykey', passwordinput: 'Tulip-Harbor-42' }, byKey),
            async () => patch(await hrefOf('wilson'), { passwordinput: 'Tulip-Harbor-42' }, byKey),
            async () => patch(await hrefOf('EVERYONE', groups, 'groupname'), { description: 'All' }, byKey),
            async () => t.inject({ method: 'DELETE', url: await hrefOf('smith'), headers: byKey })
        ];
        for (const refusal of refusals) {
            const res = await refusal();
            expect(res.statusCode, res.payload).to.equal(403);
            expect(res.result.Error.message).to.contain('written with a credential login');
        }
    });

    test('wsmethod:unlock lifts a user\'s login lock; a new password lifts it too', async () => {

        expect((await post(users, { userid: 'lock1', passwordinput: 'Silver-Brook-63' })).statusCode).to.equal(201);
        const href = await hrefOf('lock1');
        const logins = t.server.app.osprey.knex('osprey_loginfailure');
        await logins.insert({ name: 'user:LOCK1', failures: 1000, since: Date.now() });
        expect((await login('lock1', 'Silver-Brook-63')).statusCode).to.equal(429);
        const unlock = await post(`${href}?action=wsmethod:unlock`, {});
        expect(unlock.statusCode, unlock.payload).to.equal(200);
        expect(unlock.result).to.equal({ unlocked: true });
        expect((await login('lock1', 'Silver-Brook-63')).statusCode).to.equal(200);
        expect((await post(`${href}?action=wsmethod:unlock`, {})).result).to.equal({ unlocked: false });
        expect((await post(`${href}?action=wsmethod:unlock`, {}, wilson)).statusCode).to.equal(403);

        await t.server.app.osprey.knex('osprey_loginfailure').insert({ name: 'user:LOCK1', failures: 1000, since: Date.now() });
        expect((await patch(href, { passwordinput: 'Silver-Brook-64' })).statusCode).to.equal(204);
        expect((await login('lock1', 'Silver-Brook-64')).statusCode).to.equal(200);
    });
});

// A second node on the same database: a user deactivated on one cannot log in on the other at once.
onEachDatabase(lab, 'Users on two nodes', (t, database) => {

    test('deactivation on one node blocks login on the other at its next request', async () => {

        const other = await startTestServer(database, { databaseUrl: t.options.databaseUrl });
        try {
            const created = await t.inject({ method: 'POST', url: users, headers: maxadmin, payload: { userid: 'node1', passwordinput: 'Harbor-Light-29' } });
            expect(created.statusCode).to.equal(201);
            const creds = maxauth('node1', 'Harbor-Light-29');
            expect((await other.inject({ url: '/maximo/oslc/whoami', headers: creds })).statusCode).to.equal(200);
            const href = (await t.inject({ url: `${users}?oslc.where=userid="NODE1"`, headers: maxadmin })).result.member[0].href.replace(/^http:\/\/[^/]+/, '');
            expect((await t.inject({ method: 'POST', url: href, headers: { ...maxadmin, 'x-method-override': 'PATCH' }, payload: { status: 'INACTIVE' } })).statusCode).to.equal(204);
            expect((await other.inject({ url: '/maximo/oslc/whoami', headers: creds })).statusCode).to.equal(401);
        }
        finally {
            await other.server.stop();
        }
    });
});
