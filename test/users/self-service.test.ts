import * as Code from '@hapi/code';
import * as Lab from '@hapi/lab';

import { onEachDatabase } from '../helpers/experiments';
import { maxadmin, wilson } from '../helpers/server';


const lab = exports.lab = Lab.script();
const { test } = lab;
const { expect } = Code;

const users = '/maximo/oslc/os/mxapimaxuser';

// The demo's users and groups with the access a team grants for self-service: every user updates their own record
// (a display name, a password) and reads the groups. Found by a hostile probe: with it, a planner added themselves
// to MAXADMIN by a merge of groupuser.
const selfService = (text: string, file: string): string => {

    if (file === 'mxapimaxuser.yaml') {
        return text.replace(/access:\n {2}read: \[EVERYONE\]\n {2}owner: userid/, 'access:\n  read: [EVERYONE]\n  update: [EVERYONE]\n  owner: userid');
    }

    return file === 'mxapimaxgroup.yaml' ? text.replace(/access:\n {2}read: \[\]/, 'access:\n  read: [EVERYONE]') : text;
};

// Osprey's memberships served by other structures than the user and group ones: as the root of one, and as a child
// of another (a second hostile probe made itself an administrator through each).
const memberships = `name: MXTESTGU
object: GROUPUSER
table: osprey_groupuser
uniqueColumn: groupuserid
primaryKey: [userid, groupname]
attributes:
  groupuserid: { type: bigint, generated: true }
  userid: { type: upper, length: 30, required: true }
  groupname: { type: upper, length: 30, required: true }
access: { read: [EVERYONE], insert: [EVERYONE], delete: [EVERYONE] }
`;
const members = `name: MXTESTMEMBER
object: TESTMEMBER
uniqueColumn: testmemberid
primaryKey: [userid]
attributes:
  testmemberid: { type: bigint, generated: true }
  userid: { type: upper, length: 30, required: true }
children:
  groupuser:
    object: GROUPUSER
    table: osprey_groupuser
    uniqueColumn: groupuserid
    primaryKey: [groupname]
    join: { userid: userid }
    attributes:
      groupuserid: { type: bigint, generated: true }
      userid: { type: upper, length: 30, readonly: true }
      groupname: { type: upper, length: 30, required: true }
access: { read: [EVERYONE], insert: [EVERYONE], update: [EVERYONE] }
`;

onEachDatabase(lab, 'Users who update their own record', { fixture: { from: '../../../structures', edit: selfService, add: { 'mxtestgu.yaml': memberships, 'mxtestmember.yaml': members } } }, (t) => {

    const patch = (href: string, payload: unknown, headers: Record<string, string>) => t.inject({ method: 'POST', url: href, headers: { ...headers, 'x-method-override': 'PATCH', patchtype: 'MERGE' }, payload: payload as object });
    const groupsOf = async (userid: string) => ((await t.inject({ url: `${users}?oslc.where=userid="${userid}"&oslc.select=groupuser{groupname}`, headers: maxadmin })).result.member[0].groupuser ?? []).map((row: { groupname: string }) => row.groupname).sort();

    test('change their display name, but not their groups: group memberships are an administrator\'s', async () => {

        const own = (await t.inject({ url: `${users}?oslc.select=userid`, headers: wilson })).result.member;
        expect(own).to.have.length(1);
        const href = new URL(own[0].href).pathname;
        const before = await groupsOf('WILSON');

        expect((await patch(href, { displayname: 'Wil Son' }, wilson)).statusCode).to.equal(204);
        for (const body of [{ groupuser: [{ groupname: 'MAXADMIN' }] }, { groupuser: [{ groupname: before[0], _action: 'Delete' }] }]) {
            const res = await patch(href, body, wilson);
            expect(res.statusCode, JSON.stringify(body)).to.equal(403);
            expect(res.result.Error.message).to.contain('group memberships');
        }

        // Nothing of the refused writes stayed, and WILSON is no administrator.
        expect(await groupsOf('WILSON')).to.equal(before);
        expect((await t.inject({ url: '/maximo/oslc/whoami', headers: wilson })).result.isAdmin).to.not.equal(true);
        // An administrator still changes them.
        expect((await patch(href, { groupuser: [{ groupname: 'EVERYONE' }] }, maxadmin)).statusCode).to.equal(204);
    });

    test('memberships are an administrator\'s through any structure that serves them, as its root or a child', async () => {

        const before = await groupsOf('WILSON');
        const root = await t.inject({ method: 'POST', url: '/maximo/oslc/os/mxtestgu', headers: wilson, payload: { userid: 'WILSON', groupname: 'MAXADMIN' } });
        expect(root.statusCode, root.payload).to.equal(403);
        const child = await t.inject({ method: 'POST', url: '/maximo/oslc/os/mxtestmember', headers: wilson, payload: { userid: 'WILSON', groupuser: [{ groupname: 'MAXADMIN' }] } });
        expect(child.statusCode, child.payload).to.equal(403);
        expect(child.result.Error.message).to.contain('group memberships');
        expect(await groupsOf('WILSON')).to.equal(before);
        expect((await t.inject({ url: '/maximo/oslc/os/mxtestmember?count=1', headers: maxadmin })).result.totalCount).to.equal(0);
        expect((await t.inject({ url: '/maximo/oslc/whoami', headers: wilson })).result.isAdmin).to.not.equal(true);
        // An administrator through them: allowed.
        const made = await t.inject({ method: 'POST', url: '/maximo/oslc/os/mxtestgu', headers: maxadmin, payload: { userid: 'WILSON', groupname: 'SUPERVISORS' } });
        expect(made.statusCode, made.payload).to.equal(201);
        expect(await groupsOf('WILSON')).to.include('SUPERVISORS');
    });
});
