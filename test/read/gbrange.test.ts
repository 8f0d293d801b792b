import * as Code from '@hapi/code';
import * as Lab from '@hapi/lab';

import { parseGroupRange } from '../../src/read/parse/group-range';
import { onEachDatabase } from '../helpers/experiments';
import { wilson } from '../helpers/server';
import { expectQueryError } from './helpers';


const lab = exports.lab = Lab.script();
const { experiment, test, before } = lab;
const { expect } = Code;

experiment('gbrange parser', () => {

    test('clauses of sets and intervals', () => {

        expect(parseGroupRange('status={[APPR:WAPPR]}')).to.equal([{ name: 'status', position: 1, ranges: [{ kind: 'set', position: 9, values: [{ text: 'APPR', position: 10 }, { text: 'WAPPR', position: 15 }] }] }]);
        expect(parseGroupRange('WOPriority={[1..3],[4..7)}')).to.equal([{
            name: 'wopriority', position: 1, ranges: [
                { kind: 'interval', position: 13, low: { text: '1', position: 14 }, high: { text: '3', position: 17 }, lowIncluded: true, highIncluded: true },
                { kind: 'interval', position: 20, low: { text: '4', position: 21 }, high: { text: '7', position: 24 }, lowIncluded: true, highIncluded: false }
            ]
        }]);
        const two = parseGroupRange(' status = { [ APPR : WAPPR ] , [COMP] } , estdur={(0.5..2.25]}, reportdate={["2024-01-01T00:00:00Z"..2024-07-01)}');
        expect(two.map((clause) => clause.name)).to.equal(['status', 'estdur', 'reportdate']);
        expect(two[0]!.ranges.map((range) => (range.kind === 'set' ? range.values.map((value) => value.text) : []))).to.equal([['APPR', 'WAPPR'], ['COMP']]);
        expect(two[1]!.ranges[0]).to.include({ kind: 'interval', lowIncluded: false, highIncluded: true });
        expect(two[1]!.ranges[0]).to.include({ low: { text: '0.5', position: 52 }, high: { text: '2.25', position: 57 } });
        expect(two[2]!.ranges[0]).to.include({ low: { text: '2024-01-01T00:00:00Z', position: 78 }, high: { text: '2024-07-01', position: 102 } });
        expect(parseGroupRange('x={["a:b":c]}')[0]!.ranges[0]).to.include({ values: [{ text: 'a:b', position: 5 }, { text: 'c', position: 11 }] });
    });

    test('anything else is refused naming gbrange and the column', () => {

        for (const [text, position, message] of [
            ['', 1, 'expected a group column, found end of text'],
            ['status', 7, 'expected "=", found end of text'],
            ['status=[A]', 8, 'expected "{", found "[A]"'],
            ['status={}', 9, 'expected "[" or "(", found "}"'],
            ['status={[]}', 10, 'expected a value, found "]}"'],
            ['status={[A:]}', 12, 'expected a value, found "]}"'],
            ['status={[A:B}', 13, 'expected ":", ".." or "]", found "}"'],
            ['status={(A:B)}', 11, 'expected ".." (a set of values is written in [ ]), found ":B)}"'],
            ['x={[1..]}', 8, 'expected a value, found "]}"'],
            ['x={[1..2}', 9, 'expected "]" or ")", found "}"'],
            ['x={[1..2]', 10, 'expected "," or "}", found end of text'],
            ['x={[abc', 8, 'expected ":", ".." or "]", found end of text'],
            ['x={[1..2]} y', 12, 'expected "," or end of text, found "y"'],
            ['x={["a]}', 5, 'expected a closing \'"\', found "\\"a]}"'],
            ['1x={[1]}', 1, 'expected a group column, found "1x={[1]}"'],
            ['status={[APPR:WAPPR:COMP:CLOSE:CAN]}z', 37, 'expected "," or end of text, found "z"'],
            ['status={[APPR]},{[WAPPR]}', 17, 'expected a group column, found "{[WAPPR]}"']
        ] as const) {
            expectQueryError(() => parseGroupRange(text), 'gbrange', position, message);
        }

        expectQueryError(() => parseGroupRange(`x={[${'a'.repeat(10_000)}]}`), 'gbrange', 10_001, 'expected at most 10000 characters, found 10006');
    });
});

onEachDatabase(lab, 'gbrange through HTTP', (t) => {

    const wos = '/maximo/oslc/os/mxapiwodetail';
    // worktype, wopriority, siteid, reportdate
    const rows: [string | null, number | null, string, string][] = [
        ['CM', 1, 'BEDFORD', '2024-01-10T08:00:00Z'],
        ['CM', 2, 'NASHUA', '2024-02-10T08:00:00Z'],
        ['PM', 3, 'BEDFORD', '2024-03-10T08:00:00Z'],
        ['PM', 4, 'BEDFORD', '2024-04-10T08:00:00Z'],
        ['EM', 5, 'NASHUA', '2024-05-10T08:00:00Z'],
        ['EM', 7, 'BEDFORD', '2024-06-10T08:00:00Z'],
        [null, null, 'BEDFORD', '2024-07-10T08:00:00Z'],
        ['CP', 6, 'BEDFORD', '2024-08-10T08:00:00Z']
    ];

    before(async () => {

        for (const [worktype, wopriority, siteid, reportdate] of rows) {
            const res = await t.inject({ method: 'POST', url: wos, headers: wilson, payload: { lead: 'GBRANGE', worktype, wopriority, siteid, reportdate } });
            expect(res.statusCode, res.payload).to.equal(201);
        }
    });

    const get = (url: string) => t.inject({ url, headers: wilson });
    const groupsOf = async (where: string, query: string) => {

        const res = await get(`${wos}?oslc.where=${encodeURIComponent(`lead="GBRANGE"${where}`)}&${query}`);
        expect(res.statusCode, res.payload).to.equal(200);
        return res.result as any[];
    };

    const bare = (group: any) => Object.fromEntries(Object.entries(group).filter(([name]) => name !== 'collectionref'));
    // The group's own terms: its collectionref AND-s them to the request's where, `(lead="GBRANGE" …) and …`.
    const whereOf = (group: any) => new URL(group.collectionref).searchParams.get('oslc.where')!.replace(/^\(lead="GBRANGE"[^)]*\) and /, '');
    // What the group's collectionref selects counts what the group counts.
    const checkRefs = async (groups: any[]) => {

        for (const group of groups) {
            const ref = new URL(group.collectionref);
            expect(ref.searchParams.get('oslc.where')!.startsWith('(lead="GBRANGE"')).to.be.true();
            const res = await get(`${ref.pathname}${ref.search}&count=1`);
            expect(res.result.totalCount, whereOf(group)).to.equal(group.count);
        }
    };

    test('a set of text values makes one group whose value is the set (IBM\'s status={[APPR:WAPPR]})', async () => {

        const groups = await groupsOf(' and worktype="*"', 'gbcols=worktype,count.*&gbrange=worktype={[CM:PM]}&gbsortby=worktype');
        expect(groups.map(bare)).to.equal([{ worktype: ['CM', 'PM'], count: 4 }, { worktype: 'CP', count: 1 }, { worktype: 'EM', count: 2 }]);
        expect(groups.map(whereOf)).to.equal(['worktype in ["CM","PM"]', 'worktype="CP"', 'worktype="EM"']);
        await checkRefs(groups);
        // Two sets, values typed as the attribute stores them (upper case), a value in no set stays its own group.
        const two = await groupsOf(' and worktype="*"', 'gbcols=worktype,count.*&gbrange=worktype={[cm],[pm:ep:em]}&gbsortby=-count');
        expect(two.map(bare)).to.equal([{ worktype: ['PM', 'EP', 'EM'], count: 4 }, { worktype: ['CM'], count: 2 }, { worktype: 'CP', count: 1 }]);
        await checkRefs(two);
    });

    test('numeric intervals include [ ] and exclude ( ) ends (IBM\'s wopriority={[1..3],[4..7)})', async () => {

        const groups = await groupsOf(' and wopriority="*"', 'gbcols=wopriority,count.*&gbrange=wopriority={[1..3],[4..7)}&gbsortby=wopriority');
        expect(groups.map(bare)).to.equal([{ wopriority: [1, 3], count: 3 }, { wopriority: [4, 7], count: 3 }, { wopriority: 7, count: 1 }]);
        expect(groups.map(whereOf)).to.equal(['wopriority>=1 and wopriority<=3', 'wopriority>=4 and wopriority<7', 'wopriority=7']);
        await checkRefs(groups);
        const open = await groupsOf(' and wopriority="*"', 'gbcols=wopriority,count.*&gbrange=wopriority={(1..3),(3..7]}&gbsortby=-wopriority');
        expect(open.map(bare)).to.equal([{ wopriority: [3, 7], count: 4 }, { wopriority: 3, count: 1 }, { wopriority: [1, 3], count: 1 }, { wopriority: 1, count: 1 }]);
        await checkRefs(open);
    });

    test('date intervals, with ISO dates as in oslc.where', async () => {

        const groups = await groupsOf('', 'gbcols=reportdate,count.*&gbrange=reportdate={[2024-01-01..2024-04-01),["2024-04-01T00:00:00Z"..2024-07-01)}&gbsortby=reportdate');
        expect(groups.map(bare)).to.equal([
            { reportdate: ['2024-01-01T00:00:00+00:00', '2024-04-01T00:00:00+00:00'], count: 3 },
            { reportdate: ['2024-04-01T00:00:00+00:00', '2024-07-01T00:00:00+00:00'], count: 3 },
            { reportdate: '2024-07-10T08:00:00+00:00', count: 1 },
            { reportdate: '2024-08-10T08:00:00+00:00', count: 1 }
        ]);
        expect(whereOf(groups[0])).to.equal('reportdate>="2024-01-01T00:00:00.000Z" and reportdate<"2024-04-01T00:00:00.000Z"');
        await checkRefs(groups);
    });

    test('ranges with other group columns, other aggregates, two ranged columns, gbfilter and gbsortby', async () => {

        const groups = await groupsOf(' and wopriority="*"', 'gbcols=siteid,wopriority,count.*,sum.wopriority,max.wopriority&gbrange=wopriority={[1..4]}&gbsortby=siteid,wopriority');
        expect(groups.map(bare)).to.equal([
            { siteid: 'BEDFORD', wopriority: [1, 4], count: 3, sum_wopriority: 8, max_wopriority: 4 },
            { siteid: 'BEDFORD', wopriority: 6, count: 1, sum_wopriority: 6, max_wopriority: 6 },
            { siteid: 'BEDFORD', wopriority: 7, count: 1, sum_wopriority: 7, max_wopriority: 7 },
            { siteid: 'NASHUA', wopriority: [1, 4], count: 1, sum_wopriority: 2, max_wopriority: 2 },
            { siteid: 'NASHUA', wopriority: 5, count: 1, sum_wopriority: 5, max_wopriority: 5 }
        ]);
        expect(whereOf(groups[3])).to.equal('siteid="NASHUA" and wopriority>=1 and wopriority<=4');
        await checkRefs(groups);

        const both = await groupsOf('', 'gbcols=worktype,wopriority,count.*&gbrange=worktype={[CM:PM]},wopriority={[1..4]}');
        const key = (group: any) => JSON.stringify([group.worktype, group.wopriority]);
        expect(both.map(bare).sort((a, b) => key(a).localeCompare(key(b)))).to.equal([
            { worktype: 'CP', wopriority: 6, count: 1 },
            { worktype: 'EM', wopriority: 5, count: 1 },
            { worktype: 'EM', wopriority: 7, count: 1 },
            { worktype: ['CM', 'PM'], wopriority: [1, 4], count: 4 },
            { worktype: null, wopriority: null, count: 1 }
        ]);
        expect(whereOf(both.find((group) => group.count === 4))).to.equal('worktype in ["CM","PM"] and wopriority>=1 and wopriority<=4');
        expect(whereOf(both.find((group) => group.worktype === null))).to.equal('worktype!="*" and wopriority!="*"');
        await checkRefs(both);

        const filtered = await groupsOf(' and worktype="*"', `gbcols=worktype,count.*&gbrange=worktype={[CM:PM]}&gbfilter=${encodeURIComponent('count>1')}&gbsortby=-count`);
        expect(filtered.map(bare)).to.equal([{ worktype: ['CM', 'PM'], count: 4 }, { worktype: 'EM', count: 2 }]);
    });

    test('a set of booleans (yorn) groups and sorts on both databases', async () => {

        const assets = '/maximo/oslc/os/mxapiasset';
        const plain = (await get(`${assets}?gbcols=isrunning,count.*&gbsortby=isrunning`)).result as any[];
        expect(plain.map((group) => group.isrunning)).to.equal([false, true]);
        const res = await get(`${assets}?gbcols=isrunning,count.*&gbrange=isrunning=${encodeURIComponent('{[Y]}')}&gbsortby=-isrunning`);
        expect(res.statusCode, res.payload).to.equal(200);
        expect(res.result.map(bare)).to.equal([{ isrunning: [true], count: plain[1].count }, { isrunning: false, count: plain[0].count }]);
        expect(whereOf(res.result[0])).to.equal('isrunning in [true]');
    });

    test('ranges that touch without sharing a value are accepted; aggregates of nothing are null', async () => {

        for (const ranges of ['[1..3),[3..5]', '(1..3],[1]', '[1..1],(1..2]', '[2..3],[1..2)', '(2..3],[1..2]', '[1:2],[3..4]', '[5..6],[1:4]', '(1..2),[1],[2]', '[1..2),[2..3),[3..4)']) {
            const res = await get(`${wos}?gbcols=wopriority,count.*&gbrange=wopriority=${encodeURIComponent(`{${ranges}}`)}`);
            expect(res.statusCode, ranges).to.equal(200);
        }

        for (const ranges of ['[1..3],[2]', '[1..3],(2..4)', '(1..3),[2..2]', '[1..2],[2..3]', '[2..3],[1..2]', '[1..5],[2..3]', '[1..1),[0..3]']) {
            const res = await get(`${wos}?gbcols=wopriority,count.*&gbrange=wopriority=${encodeURIComponent(`{${ranges}}`)}`);
            expect(res.statusCode, ranges).to.equal(400);
        }

        const groups = await groupsOf('', 'gbcols=worktype,count.*,sum.estdur&gbrange=worktype={[CM:PM]}&gbfilter=count>3');
        expect(groups.map(bare)).to.equal([{ worktype: ['CM', 'PM'], count: 4, sum_estdur: null }]);
        // A null group sorts after every value, ranges by their smallest value, on both databases.
        const ascending = await groupsOf('', 'gbcols=wopriority,count.*&gbrange=wopriority={[4..7]}&gbsortby=wopriority');
        expect(ascending.map((group) => group.wopriority)).to.equal([1, 2, 3, [4, 7], null]);
        const descending = await groupsOf('', 'gbcols=worktype,count.*&gbrange=worktype={[CM:PM]}&gbsortby=-worktype');
        expect(descending.map((group) => group.worktype)).to.equal([null, 'EM', 'CP', ['CM', 'PM']]);
        const all = await groupsOf('', 'gbcols=count.*');
        expect(all).to.equal([{ count: 8, collectionref: 'http://127.0.0.1:8080/maximo/oslc/os/mxapiwodetail?oslc.where=lead%3D%22GBRANGE%22' }]);
    });

    test('bad gbrange is a 400 BMXAA8744E naming the parameter and the column', async () => {

        for (const [query, parameter, detail] of [
            ['gbcols=worktype,count.*&gbrange=wopriority={[1..3]}', 'gbrange', 'wopriority is not one of the gbcols columns (worktype) at column 1'],
            ['gbcols=count.*&gbrange=wopriority={[1..3]}', 'gbrange', 'wopriority is not one of the gbcols columns at column 1'],
            ['gbcols=worktype,count.*&gbrange=worktype={[CM..PM]}', 'gbrange', 'worktype is neither a number nor a date: group its values in sets such as {[A:B]} at column 11'],
            ['gbcols=wopriority,count.*&gbrange=wopriority={[3..1]}', 'gbrange', 'the range [3..1] holds no value at column 13'],
            ['gbcols=wopriority,count.*&gbrange=wopriority={(1..1]}', 'gbrange', 'the range (1..1] holds no value at column 13'],
            ['gbcols=wopriority,count.*&gbrange=wopriority={[1..3],[3..5]}', 'gbrange', 'this range of wopriority overlaps an earlier one: a value can fall in one range only at column 20'],
            ['gbcols=wopriority,count.*&gbrange=wopriority={[1..3],[5:3]}', 'gbrange', 'this range of wopriority overlaps an earlier one'],
            ['gbcols=wopriority,count.*&gbrange=wopriority={[4:5],[1..4]}', 'gbrange', 'this range of wopriority overlaps an earlier one'],
            ['gbcols=worktype,count.*&gbrange=worktype={[CM:PM],[EM:pm]}', 'gbrange', 'this range of worktype overlaps an earlier one'],
            ['gbcols=wopriority,count.*&gbrange=wopriority={[a..3]}', 'gbrange', 'wopriority is a number; "a" is not at column 14'],
            ['gbcols=wopriority,count.*&gbrange=wopriority={[0x1..0x2]}', 'gbrange', 'wopriority is a number; "0x1" is not'],
            ['gbcols=reportdate,count.*&gbrange=reportdate={[someday..2024-01-01]}', 'gbrange', 'reportdate is a date; "someday" is not at column 14'],
            ['gbcols=reportdate,count.*&gbrange=reportdate={[2025-01-01..2025-02-30]}', 'gbrange', 'reportdate is a date; "2025-02-30" is not'],
            // Values the attribute cannot hold, as a write would refuse them.
            ['gbcols=wopriority,count.*&gbrange=wopriority={[1.5..3]}', 'gbrange', 'wopriority cannot hold 1.5: must be an integer at column 14'],
            ['gbcols=wopriority,count.*&gbrange=wopriority={[1..2147483648]}', 'gbrange', 'wopriority cannot hold 2147483648: must be less than or equal to 2147483647'],
            ['gbcols=estdur,count.*&gbrange=estdur={[0..1.005]}', 'gbrange', 'estdur cannot hold 1.005'],
            ['gbcols=worktype,count.*&gbrange=worktype={[TOOLONGVALUE:CM]}', 'gbrange', 'worktype cannot hold TOOLONGVALUE: length must be less than or equal to'],
            ['gbcols=wopriority,count.*&gbrange=wopriority={[1]},wopriority={[2]}', 'gbrange', 'wopriority has a second clause; list all its ranges in one {…} at column 18'],
            ['gbcols=wopriority,count.*&gbrange=wopriority={[1..3]', 'gbrange', 'expected "," or "}", found end of text'],
            ['gbcols=worktype,count.*&gbrange=worktype={[CM:PM]}&gbfilter=worktype="CM"', 'gbfilter', 'worktype is grouped in ranges (gbrange), so a group has no one value of it to compare at column 1']
        ]) {
            const res = await get(`${wos}?${query!.replace(/[{}[\]"]/g, encodeURIComponent)}`);
            expect(res.statusCode, query).to.equal(400);
            expect(res.result.Error.reasonCode, query).to.equal('BMXAA8744E');
            expect(res.result.Error.message, query).to.contain(`BMXAA8744E - ${parameter}: ${detail}`);
        }
    });
});
