import * as Code from '@hapi/code';
import * as Lab from '@hapi/lab';
import * as Fc from 'fast-check';

import { storedColumns } from '../../src/db/migrate';
import { renderColumns } from '../../src/read/plan/render-columns';
import { planSelect } from '../../src/read/plan/select-plan';
import { parseSelect } from '../../src/read/parse/select';
import { joinKeyOf } from '../../src/read/serialize/serialize';
import { onEachDatabase } from '../helpers/experiments';
import { maxadmin, wilson } from '../helpers/server';


const lab = exports.lab = Lab.script();
const { test } = lab;
const { expect } = Code;

// A page and its linked rows read only the columns their select renders (src/read/plan/render-columns.ts). The
// oracle is the same record read whole: every selected key of a narrowed answer, present or dropped as null,
// is what the record's whole row renders.

const wos = '/maximo/oslc/os/mxapiwodetail';
const local = (href: string) => new URL(href).pathname;
const pick = (record: Record<string, unknown>, keys: readonly string[]) => Object.fromEntries(keys.filter((key) => record[key] !== undefined).map((key) => [key, record[key]]));

onEachDatabase(lab, 'columns read for a select', (t) => {

    const get = async (url: string, headers = wilson) => {

        const res = await t.inject({ url, headers });
        expect(res.statusCode, `${url}: ${res.payload}`).to.equal(200);
        return res.result as any;
    };

    test('name the select\'s attributes, ids and join values, and render what the whole rows render', async () => {

        const select = 'wonum,description,status,wopriority,asset.description,asset.status,woactivity{taskid,description,status}';
        const page = await get(`${wos}?oslc.select=${encodeURIComponent(select)}&oslc.where=${encodeURIComponent('siteid="BEDFORD"')}&oslc.orderBy=-wonum&oslc.pageSize=25`);
        expect(page.member).to.have.length(25);
        let tasks = 0;
        let assets = 0;
        for (const member of page.member) {
            const whole = await get(`${local(member.href)}?oslc.select=*`);
            expect(Object.keys(member).filter((key) => !['asset', 'woactivity'].includes(key))).to.equal(Object.keys(pick(whole, ['href', '_rowstamp', 'wonum', 'description', 'status', 'status_description', 'wopriority'])));
            expect(pick(member, Object.keys(member).filter((key) => !['asset', 'woactivity'].includes(key)))).to.equal(pick(whole, ['href', '_rowstamp', 'wonum', 'description', 'status', 'status_description', 'wopriority']));

            const children = await get(`${local(member.href)}/woactivity?oslc.select=*&oslc.pageSize=1000`);
            expect(member.woactivity).to.equal(children.member.map((task: any) => pick(task, ['href', '_rowstamp', 'localref', 'taskid', 'description', 'status', 'status_description'])));
            tasks += member.woactivity.length;
            if (whole.assetnum !== undefined) {
                const asset = (await get(`/maximo/oslc/os/mxapiasset?oslc.select=*&oslc.where=${encodeURIComponent(`assetnum="${whole.assetnum}" and siteid="${whole.siteid}"`)}`)).member[0];
                expect(member.asset).to.equal(pick(asset, ['href', '_rowstamp', 'description', 'status', 'status_description']));
                ++assets;
            }
            else {
                expect(member.asset).to.not.exist();
            }
        }

        expect(tasks).to.be.above(0);
        expect(assets).to.be.above(0);
    });

    // Each member is its whole record's `keys` (and their domain descriptions) with its href and rowstamp.
    const expectWhole = async (members: any[], keys: readonly string[], whole: (member: any) => Promise<any> = (member) => get(`${local(member.href)}?oslc.select=*`)) => {

        expect(members.length).to.be.above(0);
        const shown = ['href', '_rowstamp', 'localref', ...keys.flatMap((key) => [key, `${key}_description`])];
        for (const member of members) {
            const expected = pick(await whole(member), shown);
            expect(Object.keys(member)).to.equal(Object.keys(expected));
            expect(member).to.equal(expected);
        }
    };

    test('one where, order and page size with other selects: each page reads its own columns', async () => {

        const where = `oslc.where=${encodeURIComponent('siteid="NASHUA"')}&oslc.orderBy=-wonum&oslc.pageSize=15`;
        for (const select of ['wonum,description', 'wonum,status,worktype', 'reportdate,wopriority', 'wonum,description']) {
            await expectWhole((await get(`${wos}?${where}&oslc.select=${select}`)).member, select.split(','));
        }
    });

    test('a child collection, a lookup and a relation reached only by an aggregate read what they render', async () => {

        const [record] = (await get(`${wos}?oslc.where=${encodeURIComponent('woactivity{taskid>0}')}&oslc.pageSize=1`)).member;
        const tasks = (await get(`${local(record.href)}/woactivity?oslc.select=taskid,status&oslc.pageSize=1000`)).member;
        const whole = (await get(`${local(record.href)}/woactivity?oslc.select=*&oslc.pageSize=1000`)).member;
        await expectWhole(tasks, ['taskid', 'status'], (task) => whole.find((each: any) => each.href === task.href));
        expect(tasks.map((task: any) => task.href)).to.equal(whole.map((task: any) => task.href));

        const listed = (await get(`${local(record.href)}/getlist~assetnum?oslc.select=assetnum,description&oslc.pageSize=20`)).member;
        await expectWhole(listed, ['assetnum', 'description']);

        // The work order's owner is read to count and show its person, though the select names neither.
        // Each in a select of its own: the one reads the owner for the other.
        const listing = `oslc.orderBy=%2Bwonum&oslc.pageSize=60&oslc.select=${encodeURIComponent('wonum,ownerperson._dbcount--owners')}`;
        const page = (await get(`${wos}?${listing}`)).member;
        const people = (await get(`${wos}?${listing.replace(/oslc.select=.*/, `oslc.select=${encodeURIComponent('wonum,ownerperson.displayname')}`)}`)).member;
        let owned = 0;
        for (const [i, member] of page.entries()) {
            const { owner } = await get(`${local(member.href)}?oslc.select=owner`);
            const person = owner === undefined ? undefined : (await get(`/maximo/oslc/os/mxapiperson?oslc.select=displayname&oslc.where=${encodeURIComponent(`personid="${owner}"`)}`)).member[0];
            expect(member.owners, member.wonum).to.equal(person ? 1 : 0);
            expect(people[i].ownerperson?.displayname, member.wonum).to.equal(person?.displayname);
            owned += person ? 1 : 0;
        }

        expect(owned).to.be.above(0);
    });

    test('a request with a bad page and a bad select is answered about its page, though the select is planned first', async () => {

        for (const [query, named] of [[`oslc.where=${encodeURIComponent('zzwhere="x"')}&oslc.select=zzselect`, 'zzwhere'], ['oslc.pageSize=100000&oslc.select=zzselect', 'oslc.pageSize'], ['oslc.orderBy=zzorder&oslc.select=zzselect', 'zzorder'], ['oslc.select=zzselect', 'zzselect']]) {
            const res = await t.inject({ url: `${wos}?${query}`, headers: wilson });
            expect(res.statusCode, query).to.equal(400);
            expect(res.result.Error.message, query).to.contain(named);
        }
    });

    test('allowedactions are worked out from the whole row: the status action is offered where the status can move on', async () => {

        const page = await get(`${wos}?oslc.select=wonum,allowedactions&oslc.orderBy=%2Bwonum&oslc.pageSize=60`);
        let offered = 0;
        for (const member of page.member) {
            const whole = await get(`${local(member.href)}?oslc.select=status,allowedactions`);
            expect(member.allowedactions, member.wonum).to.equal(whole.allowedactions);
            offered += whole.allowedactions.changeStatus ? 1 : 0;
        }

        expect(offered).to.be.within(1, page.member.length - 1);
    });

    test('a secret is revealed from its whole row: an API key\'s value to its owner, who is known by the row\'s userid', async () => {

        const keys = '/maximo/oslc/os/mxapiapikey';
        const made = await t.inject({ method: 'POST', url: keys, headers: { ...maxadmin, properties: 'apikeytokenid' }, payload: { userid: 'WILSON', expiration: -1 } });
        expect(made.statusCode, made.payload).to.equal(201);
        const own = (await get(`${new URL(made.headers.location as string).pathname}?oslc.select=apikey`)).apikey;
        expect(own).to.be.a.string();
        const listed = await get(`${keys}?oslc.select=apikeytokenid,apikey&oslc.pageSize=1000`);
        expect(listed.member.find((key: any) => key.apikeytokenid === made.result.apikeytokenid).apikey).to.equal(own);
    });

    // test/auth/api-key-active.test.ts reads an expired key's computed `active` through a select naming it.
    test('the plan decides: every stored column where a hook may read the row, else only what renders', () => {

        const { registry } = t.server.app.osprey;
        const structure = registry.get('MXAPIWODETAIL')!;
        const plan = (text: string) => planSelect(structure.root, parseSelect(text), { parameter: 'oslc.select', registry, structure });
        expect(renderColumns(structure.root, plan('*'))).to.not.exist();
        expect(renderColumns(structure.root, plan('wonum,allowedactions'))).to.not.exist();
        expect(renderColumns(structure.root, plan('wonum,woactivity{taskid}'))).to.equal(storedColumns(structure.root).filter((column) => ['workorderid', 'siteid', 'wonum', 'rowstamp'].includes(column)));
        expect(renderColumns(structure.root, plan('description,asset.description'))).to.equal(storedColumns(structure.root).filter((column) => ['workorderid', 'siteid', 'wonum', 'description', 'assetnum', 'rowstamp'].includes(column)));
        expect(renderColumns(structure.root, undefined, ['status'])).to.equal(storedColumns(structure.root).filter((column) => ['workorderid', 'siteid', 'wonum', 'status', 'rowstamp'].includes(column)));

        const keys = registry.get('MXAPIAPIKEY')!;
        expect(renderColumns(keys.root, planSelect(keys.root, parseSelect('userid,active'), { parameter: 'oslc.select', registry, structure: keys }))).to.not.exist();
    });
});

lab.experiment('the keys that match linked rows to their parents', () => {

    test('are equal exactly when the values are, as text; a null has none', () => {

        // The second tuple cuts the first's text anew: tuples whose texts run together are the ones a key could
        // confuse.
        const value = Fc.oneof(Fc.string({ unit: Fc.constantFrom('1', '2', ':', 'a', '-') }), Fc.integer({ min: -20, max: 20 }));
        const names = ['a', 'b', 'c'];
        const row = (values: readonly unknown[]) => Object.fromEntries(names.map((name, i) => [name, values[i]]));
        Fc.assert(Fc.property(Fc.array(value, { minLength: 3, maxLength: 3 }), Fc.nat(), Fc.nat(), (one, x, y) => {

            const text = one.map(String).join('');
            const [from, to] = [x % (text.length + 1), y % (text.length + 1)].sort((p, q) => p - q) as [number, number];
            const two = [text.slice(0, from), text.slice(from, to), text.slice(to)];
            const same = one.every((each, i) => String(each) === two[i]);
            expect(joinKeyOf(row(one), names) === joinKeyOf(row(two), names)).to.equal(same);
            expect(joinKeyOf(row(one), names)).to.equal(joinKeyOf(row(one.map(String)), names));
        }), { numRuns: 2000 });
        expect(joinKeyOf({ a: 1, b: '1' }, ['a'])).to.equal(joinKeyOf({ a: '1' }, ['a']));
        expect(joinKeyOf({ a: 'x', b: null }, ['a', 'b'])).to.be.undefined();
        expect(joinKeyOf({ a: 'x' }, ['a', 'b'])).to.be.undefined();
    });
});
