import * as Code from '@hapi/code';
import * as Lab from '@hapi/lab';

import { onEachDatabase } from '../helpers/experiments';
import { wilson } from '../helpers/server';


const lab = exports.lab = Lab.script();
const { test } = lab;
const { expect } = Code;

const wos = '/maximo/oslc/os/mxapiwodetail';

onEachDatabase(lab, 'ordering and stable paging', (t) => {

    const get = (url: string) => t.inject({ url, headers: wilson });
    const create = async (payload: Record<string, unknown>) => {

        const res = await t.inject({ method: 'POST', url: wos, headers: { ...wilson, properties: 'wonum' }, payload: { siteid: 'BEDFORD', ...payload } });
        expect(res.statusCode, res.payload).to.equal(201);
        return res.result.wonum as string;
    };

    test('text orders by code point and nulls come last ascending, first descending, on both databases', async () => {

        const mine = [await create({ description: 'b', lead: 'ordering' }), await create({ description: 'B', lead: 'ordering' }), await create({ description: 'É', lead: 'ordering' }), await create({ description: 'a', lead: 'ordering' }), await create({ lead: 'ordering' })];
        const where = encodeURIComponent('lead="ordering"');
        const ascending = await get(`${wos}?oslc.where=${where}&oslc.select=wonum,description&oslc.orderBy=%2Bdescription`);
        expect(ascending.result.member.map((row: any) => row.description ?? null)).to.equal(['B', 'a', 'b', 'É', null]);
        const descending = await get(`${wos}?oslc.where=${where}&oslc.select=wonum,description&oslc.orderBy=-description`);
        expect(descending.result.member.map((row: any) => row.description ?? null)).to.equal([null, 'É', 'b', 'a', 'B']);
        // Equal values keep the unique id's order, so pages of a tie never overlap.
        const ties = await get(`${wos}?oslc.where=${where}&oslc.select=wonum&oslc.orderBy=lead&oslc.pageSize=2&pageno=2`);
        expect(ties.result.member.map((row: any) => row.wonum)).to.equal(mine.slice(2, 4));
    });

    test('stablepaging: a signed cursor in nextPage walks every row once although rows are inserted meanwhile', async () => {

        const common = `oslc.where=${encodeURIComponent('siteid="NASHUA"')}&oslc.select=wonum,wopriority&oslc.orderBy=-wopriority,%2Bwonum`;
        const query = `${common}&oslc.pageSize=40&stablepaging=1&collectioncount=1`;
        const expected = (await get(`${wos}?${common}&oslc.pageSize=1000`)).result.member.map((row: any) => row.wonum);
        const seen: string[] = [];
        let res = await get(`${wos}?${query}`);
        expect(res.result.responseInfo.totalCount).to.equal(expected.length);
        for (let i = 1; ; ++i) {
            expect(res.statusCode, res.payload).to.equal(200);
            expect(res.result.responseInfo.pagenum).to.equal(i);
            expect(res.result.responseInfo.previousPage).to.not.exist();
            seen.push(...res.result.member.map((row: any) => row.wonum));
            if (i === 2) {
                // Rows that sort before the cursor: offset paging would repeat rows; the cursor does not.
                for (let j = 0; j < 5; ++j) {
                    await create({ siteid: 'NASHUA', wopriority: 9, description: 'inserted while paging' });
                }
            }

            const next = res.result.responseInfo.nextPage?.href as string | undefined;
            if (!next) {
                break;
            }

            expect(next).to.contain('stableId=');
            res = await get(new URL(next).pathname + new URL(next).search);
        }

        expect(seen).to.equal(expected);
    });

    test('stablepaging crosses the nulls in both directions and matches offset paging when nothing changes', async () => {

        for (const orderBy of ['%2Bschedstart,-wopriority', '-schedstart,%2Bwopriority', '-lead']) {
            const common = `oslc.select=wonum&oslc.orderBy=${orderBy}`;
            const expected = (await get(`${wos}?${common}&oslc.pageSize=1000`)).result.member.map((row: any) => row.wonum);
            const seen: string[] = [];
            let url: string | undefined = `${wos}?${common}&oslc.pageSize=70&stablepaging=1`;
            while (url) {
                const res = await get(url);
                expect(res.statusCode, res.payload).to.equal(200);
                seen.push(...res.result.member.map((row: any) => row.wonum));
                const next = res.result.responseInfo.nextPage?.href as string | undefined;
                url = next && new URL(next).pathname + new URL(next).search;
            }

            expect(seen, orderBy).to.equal(expected);
        }
    });

    test('a stableId that was altered or belongs to another query is refused', async () => {

        const first = await get(`${wos}?oslc.select=wonum&oslc.pageSize=5&stablepaging=true&oslc.orderBy=-reportdate`);
        const next = new URL(first.result.responseInfo.nextPage.href);
        const ok = await get(next.pathname + next.search);
        expect(ok.statusCode).to.equal(200);
        expect(ok.result.member).to.have.length(5);
        expect(ok.result.member[0]).to.not.equal(first.result.member[0]);

        const token = next.searchParams.get('stableId')!;
        const altered = new URL(next.href);
        altered.searchParams.set('stableId', `${token.slice(0, -2)}${token.endsWith('AA') ? 'BB' : 'AA'}`);
        const other = new URL(next.href);
        other.searchParams.set('oslc.orderBy', '-wonum');
        for (const url of [altered, other]) {
            const res = await get(url.pathname + url.search);
            expect(res.statusCode, url.search).to.equal(400);
            expect(res.result.Error.message).to.contain('stableId');
        }

        // A pageno that names another page than the cursor's is not carried out: refused, naming both.
        const skipped = new URL(next.href);
        skipped.searchParams.set('pageno', '7');
        const skip = await get(skipped.pathname + skipped.search);
        expect(skip.statusCode).to.equal(400);
        expect(skip.result.Error.message).to.contain('pageno=7');
        expect(skip.result.Error.message).to.contain('page 2');
        const withoutPageno = new URL(next.href);
        withoutPageno.searchParams.delete('pageno');
        expect((await get(withoutPageno.pathname + withoutPageno.search)).result.member).to.equal(ok.result.member);

        // count=1 beside the cursor checks it too (IBM's Java client appends count=1 to the query it pages with).
        for (const url of [altered, next]) {
            const counted = new URL(url.href);
            counted.searchParams.set('count', '1');
            const res = await get(counted.pathname + counted.search);
            expect(res.statusCode, counted.search).to.equal(url === next ? 200 : 400);
        }
    });

    test('a cache buster _ that changes between pages is not part of the cursor\'s query', async () => {

        const first = await get(`${wos}?oslc.select=wonum&oslc.pageSize=3&stablepaging=1&_=111`);
        const next = new URL(first.result.responseInfo.nextPage.href);
        next.searchParams.set('_', '222');
        const res = await get(next.pathname + next.search);
        expect(res.statusCode, res.payload).to.equal(200);
        expect(res.result.member).to.have.length(3);
        expect(res.result.responseInfo.pagenum).to.equal(2);
    });

    test('count=1 checks the order and schema it is sent with, as a page would', async () => {

        for (const [query, words] of [['oslc.orderBy=nosuchattr', 'nosuchattr'], ['oslc.orderBy=%2B%2B', 'oslc.orderBy'], ['stablepaging=1&stableId=garbage', 'stableId'], ['addschema=1', 'addschema']]) {
            const res = await get(`${wos}?count=1&${query}`);
            expect(res.statusCode, query).to.equal(400);
            expect(res.result.Error.message, query).to.contain(words);
        }

        const good = await get(`${wos}?count=1&oslc.orderBy=-wonum&oslc.pageSize=5&collectioncount=1`);
        expect(good.statusCode).to.equal(200);
        expect(Number(good.result.totalCount)).to.be.above(0);
    });

    test('orderBy refuses what is not an attribute of the root object', async () => {

        for (const orderBy of ['-nosuch', 'asset.description', 'woactivity']) {
            const res = await get(`${wos}?oslc.orderBy=${orderBy}`);
            expect(res.statusCode, orderBy).to.equal(400);
            expect(res.result.Error.reasonCode).to.equal('BMXAA8744E');
        }

        // An attribute twice would order by the first term only: refused, naming it.
        for (const orderBy of ['%2Bwonum,-wonum', '-status,description,STATUS']) {
            const res = await get(`${wos}?oslc.orderBy=${orderBy}`);
            expect(res.statusCode, orderBy).to.equal(400);
            expect(res.result.Error.message).to.contain('named twice');
        }

        // A record read orders nothing: refused for that, not for distinct's or group-by's reason.
        const member = (await get(`${wos}?oslc.pageSize=1&oslc.select=wonum`)).result.member[0].href;
        const res = await get(`${new URL(member).pathname}?oslc.orderBy=wonum`);
        expect(res.statusCode).to.equal(400);
        expect(res.result.Error.message).to.contain('oslc.orderBy');
        expect(res.result.Error.message).to.not.contain('gbsortby');
    });
});
