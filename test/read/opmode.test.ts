import * as Code from '@hapi/code';
import * as Lab from '@hapi/lab';

import { onEachDatabase } from '../helpers/experiments';
import { wilson } from '../helpers/server';
import { tableCount } from '../helpers/tables';


const lab = exports.lab = Lab.script();
const { test, before } = lab;
const { expect } = Code;

onEachDatabase(lab, 'opmodeor and opmode', (t) => {

    const wos = '/maximo/oslc/os/mxapiwodetail';
    const created: Record<string, string> = {};
    before(async () => {

        for (const [name, payload] of Object.entries({
            a: { description: 'opm-a', wopriority: 1 },
            b: { description: 'opm-b', wopriority: 2 },
            c: { description: 'opm-c', wopriority: 3, woactivity: [{ taskid: 10, description: 'opm-task' }] }
        })) {
            const res = await t.inject({ method: 'POST', url: wos, headers: { ...wilson, properties: 'wonum' }, payload: { siteid: 'NASHUA', lead: 'OPMODE', ...payload } });
            expect(res.statusCode, res.payload).to.equal(201);
            created[name] = res.result.wonum;
        }
    });

    const get = (url: string) => t.inject({ url, headers: wilson });
    const names = async (where: string, extra = '') => {

        const res = await get(`${wos}?oslc.where=${encodeURIComponent(where)}&oslc.select=wonum&oslc.orderBy=%2Bwonum${extra}`);
        expect(res.statusCode, res.payload).to.equal(200);
        return res.result.member.map((member: any) => Object.keys(created).find((name) => created[name] === member.wonum) ?? member.wonum);
    };

    test('opmode=or (the npm client\'s opMode) turns the ands into ors, as opmodeor=1 does', async () => {

        const where = 'description="opm-a" and description="opm-b"';
        expect(await names(where)).to.equal([]);
        expect(await names(where, '&opmodeor=1')).to.equal(['a', 'b']);
        expect(await names(where, '&opmode=or')).to.equal(['a', 'b']);
        expect(await names(where, '&opmode=OR')).to.equal(['a', 'b']);
        expect(await names(where, '&opmode=or&opmodeor=1')).to.equal(['a', 'b']);
        expect(await names(where, '&opmode=and')).to.equal([]);
        expect(await names(where, '&opmode=and&opmodeor=0')).to.equal([]);
        // At every depth, child scopes included; or stays or.
        expect(await names('lead="OPMODE" and (wopriority=1 and description="opm-b")', '&opmode=or&oslc.pageSize=1000').then((all) => all.filter((name: string) => name.length === 1))).to.equal(['a', 'b', 'c']);
        expect(await names('woactivity{description="opm-task" and taskid=99} and description="opm-a"', '&opmode=or')).to.equal(['a', 'c']);
        expect(await names('woactivity{description="opm-task" and taskid=99} and description="opm-a"')).to.equal([]);
        // The where's ands only: the saved query and search terms stay AND-ed with it.
        expect(await names(where, '&opmode=or&oslc.searchTerms=nothinglikethis')).to.equal([]);
        // opmode=or with no where filters nothing: every work order.
        expect((await get(`${wos}?opmode=or&count=1`)).result).to.equal({ totalCount: await tableCount(t, 'workorder') });
    });

    test('an opmode that is neither and nor or, or that contradicts opmodeor, is a 400 naming opmode', async () => {

        for (const [query, detail] of [
            ['opmode=xor', 'expected "and" or "or", found "xor"'],
            ['opmode=', 'expected "and" or "or", found ""'],
            ['opmode=1', 'expected "and" or "or", found "1"'],
            ['opmode=and&opmodeor=1', 'and contradicts opmodeor=1']
        ]) {
            const res = await get(`${wos}?oslc.where=${encodeURIComponent('description="opm-a"')}&${query}`);
            expect(res.statusCode, query).to.equal(400);
            expect(res.result.Error.reasonCode).to.equal('BMXAA8744E');
            expect(res.result.Error.message).to.equal(`BMXAA8744E - opmode: ${detail} at column 1`);
        }
    });
});
