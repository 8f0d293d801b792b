import * as Code from '@hapi/code';
import * as Lab from '@hapi/lab';

import { onEachDatabase } from '../helpers/experiments';
import { wilson } from '../helpers/server';
import { tableCount } from '../helpers/tables';


const lab = exports.lab = Lab.script();
const { test } = lab;
const { expect } = Code;

const wos = '/maximo/oslc/os/mxapiwodetail';

onEachDatabase(lab, 'saved queries, search terms, distinct and group-by', (t) => {

    const get = (url: string) => t.inject({ url, headers: wilson });
    const rows = (build: (query: any) => unknown) => {

        const query = t.server.app.osprey.knex('workorder');
        build(query);
        return query;
    };

    test('savedQuery runs the declared where with its sqp: parameters, AND-ed with oslc.where', async () => {

        const open = await get(`${wos}?savedQuery=OPENWO&count=1`);
        expect(open.result.totalCount).to.equal((await rows((q) => q.whereIn('status', ['WAPPR', 'APPR', 'WSCH', 'WMATL', 'INPRG']))).length);
        const both = await get(`${wos}?savedQuery=OPENWO&count=1&oslc.where=${encodeURIComponent('siteid="BEDFORD"')}`);
        expect(both.result.totalCount).to.equal((await rows((q) => q.whereIn('status', ['WAPPR', 'APPR', 'WSCH', 'WMATL', 'INPRG']).where({ siteid: 'BEDFORD' }))).length);
        const byAsset = await get(`${wos}?savedQuery=WOBYASSET&sqp:asset=11001&oslc.select=assetnum`);
        expect(byAsset.result.member).to.not.be.empty();
        expect(byAsset.result.member.every((row: any) => row.assetnum === '11001')).to.be.true();
        // IBM's Java client sends the value quoted.
        const quotedParam = await get(`${wos}?savedQuery=WOBYASSET&sqp:asset=%2211001%22&oslc.select=assetnum`);
        expect(quotedParam.result.member).to.equal(byAsset.result.member);
        // An empty name or an empty required parameter names nothing: refused, not read as no saved query or ''.
        for (const url of [`${wos}?savedQuery=openwo`, `${wos}?savedQuery=WOBYASSET`, `${wos}?savedQuery=`, `${wos}?savedQuery=%20`, `${wos}?savedQuery=WOBYASSET&sqp:asset=`, `${wos}?savedQuery=WOBYASSET&sqp:asset=%22%22`]) {
            const res = await get(url);
            expect(res.statusCode, url).to.equal(400);
            expect(res.result.Error.reasonCode).to.equal('BMXAA8744E');
        }

        const meta = await get('/maximo/oslc/apimeta/mxapiwodetail');
        expect(meta.result.queryCapability.map((entry: any) => entry.name)).to.include(['OPENWO', 'EMERGENCYWO', 'WOBYASSET']);
    });

    test('search terms match any word in the search attributes; a quoted phrase matches whole', async () => {

        const words = await get(`${wos}?oslc.searchTerms=${encodeURIComponent('bearing leak')}&count=1`);
        const expected = await rows((q) => q.whereRaw('lower(description) like ?', ['%bearing%']).orWhereRaw('lower(description) like ?', ['%leak%']).orWhereRaw('lower(wonum) like ?', ['%bearing%']));
        expect(words.result.totalCount).to.equal(expected.length);
        const wonum = await get(`${wos}?oslc.searchTerms=%22%221000%22%22&searchAttributes=wonum&oslc.select=wonum`);
        expect(wonum.result.member.map((row: any) => row.wonum)).to.equal(['1000']);
        // One pair of quotes (how the clients quote every term) is a word search, not an exact match.
        const quoted = await get(`${wos}?oslc.searchTerms=%22100%22&searchAttributes=wonum&count=1`);
        expect(quoted.result.totalCount).to.equal((await rows((q) => q.whereRaw('wonum like ?', ['%100%']))).length);
        expect(quoted.result.totalCount as number).to.be.above(1);
        // Case folds beyond ASCII on both databases (PostgreSQL's text columns collate by code point).
        await t.server.app.osprey.knex('workorder').where({ wonum: '1000' }).update({ description: 'Contrôle des ÉMISSIONS' });
        const accented = await get(`${wos}?oslc.searchTerms=${encodeURIComponent('émissions')}&searchAttributes=description&oslc.select=wonum`);
        expect(accented.result.member.map((row: any) => row.wonum)).to.equal(['1000']);
        const bad = await get(`${wos}?oslc.searchTerms=x&searchAttributes=wopriority`);
        expect(bad.statusCode).to.equal(400);
        const none = await t.inject({ url: '/maximo/oslc/os/mxapiapikey?oslc.searchTerms=x', headers: { maxauth: Buffer.from('maxadmin:maxadmin').toString('base64') } });
        expect(none.statusCode).to.equal(400);
        expect(none.result.Error.message).to.contain('no search attributes');
    });

    // Several words are one test per attribute (src/read/compile/sql-types.ts orLikes): the same rows as the words
    // searched one by one, with LIKE's and regular expressions' characters, a word twice, exact words beside others.
    test('several search words find the rows each word finds alone', async () => {

        const knex = t.server.app.osprey.knex;
        await knex('workorder').where({ wonum: '1001' }).update({ description: 'Valve (x.y) 50% off_road' });
        await knex('workorder').where({ wonum: '1002' }).update({ description: 'a|b [c] \\ end' });
        const keys = async (search: string) => {

            const res = await get(`${wos}?oslc.searchTerms=${encodeURIComponent(search)}&searchAttributes=description,wonum&oslc.select=wonum,siteid&oslc.pageSize=1000`);
            expect(res.statusCode, res.payload).to.equal(200);
            return (res.result.member as { wonum: string; siteid: string }[]).map(({ wonum, siteid }) => `${siteid}/${wonum}`).sort();
        };

        for (const words of [['(x.y)', '50%', 'pump'], ['off_road', '[c]', '\\', 'a|b'], ['leak', 'leak', 'LEAK'], ['.', '*', '""1003""', 'seal'], ['""1001""', '""1002""']]) {
            const alone = new Set<string>();
            for (const word of words) {
                (await keys(word)).forEach((key) => alone.add(key));
            }

            expect(await keys(words.map((word) => (word.startsWith('""') ? word : `"${word}"`)).join(' ')), words.join(' ')).to.equal([...alone].sort());
            expect(alone.size, words.join(' ')).to.be.above(0);
        }
    });

    test('distinct answers the distinct values of an attribute', async () => {

        const res = await get(`${wos}?distinct=siteid`);
        expect(res.result).to.equal(['BEDFORD', 'NASHUA']);
        const filteredStatus = await get(`${wos}?distinct=status&oslc.where=${encodeURIComponent('status in ["APPR","WAPPR"]')}`);
        expect(filteredStatus.result).to.equal(['APPR', 'WAPPR']);
        expect((await get(`${wos}?distinct=colour`)).statusCode).to.equal(400);
    });

    test('gbcols groups with counts and sums, sorted by gbsortby, each with its query href', async () => {

        const res = await get(`${wos}?gbcols=siteid,status,count.*,sum.wopriority,avg.estdur,min.wopriority,max.wopriority&gbsortby=-count,siteid`);
        expect(res.statusCode).to.equal(200);
        const groups = res.result as any[];
        const expected = await rows((q) => q.select('siteid', 'status').count({ n: '*' }).groupBy('siteid', 'status'));
        expect(groups.length).to.equal(expected.length);
        expect(groups.reduce((sum, group) => sum + group.count, 0)).to.equal(await tableCount(t, 'workorder'));
        expect(groups[0].count >= groups[1].count).to.be.true();
        expect(Object.keys(groups[0]).sort()).to.equal(['avg_estdur', 'collectionref', 'count', 'max_wopriority', 'min_wopriority', 'siteid', 'status', 'sum_wopriority']);
        const check = await get(`${new URL(groups[0].collectionref).pathname}${new URL(groups[0].collectionref).search}&count=1`);
        expect(check.result.totalCount).to.equal(groups[0].count);

        // A group's collectionref lists the group's rows among those the request chose, not the whole structure.
        const counted = async (ref: string) => (await get(`${new URL(ref).pathname}${new URL(ref).search}&count=1`)).result.totalCount;
        for (const filters of ['oslc.where=siteid="NASHUA"', 'oslc.where=siteid="NASHUA" or wopriority=1', 'oslc.searchTerms=pump', 'savedQuery=OPENWO']) {
            const filteredGroups = await get(`${wos}?gbcols=worktype,count.*&${filters.replace(/"/g, '%22').replace(/ /g, '%20')}`);
            expect(filteredGroups.statusCode, filters).to.equal(200);
            expect((filteredGroups.result as any[]).length, filters).to.be.above(0);
            for (const group of filteredGroups.result as any[]) {
                expect(await counted(group.collectionref), `${filters} ${group.worktype}`).to.equal(group.count);
            }
        }

        // Under opmode or the group's terms cannot be AND-ed in: no collectionref rather than one that lists others.
        const or = await get(`${wos}?gbcols=worktype,count.*&opmodeor=1&oslc.where=${encodeURIComponent('siteid="NASHUA" and wopriority=1')}`);
        expect(or.statusCode).to.equal(200);
        expect((or.result as any[]).every((group) => group.collectionref === undefined)).to.be.true();
        // The spellings IBM's Java client sends (Aggregation.sortBy): the gbcols form of an aggregate, with a sign.
        const javaSpelling = await get(`${wos}?gbcols=siteid,status,count.*,sum.wopriority&gbsortby=${encodeURIComponent('-count.*,+sum.wopriority')}`);
        expect(javaSpelling.statusCode, javaSpelling.payload).to.equal(200);
        const sorted = javaSpelling.result as any[];
        expect(sorted.every((group, i) => i === 0 || sorted[i - 1].count > group.count || (sorted[i - 1].count === group.count && sorted[i - 1].sum_wopriority <= group.sum_wopriority))).to.be.true();
        // Without gbsortby, and after its terms, groups come in the order of their values (found by a hostile probe:
        // each database chose its own order).
        const open = (await get(`${wos}?gbcols=worktype,siteid,count.*`)).result as { worktype: string | null; siteid: string }[];
        const byValue = [...open].sort((a, b) => (a.worktype === b.worktype ? (a.siteid < b.siteid ? -1 : a.siteid > b.siteid ? 1 : 0) : a.worktype === null ? 1 : b.worktype === null ? -1 : a.worktype < b.worktype ? -1 : 1));
        expect(open.map((group) => `${group.worktype}/${group.siteid}`)).to.equal(byValue.map((group) => `${group.worktype}/${group.siteid}`));
        const tied = (await get(`${wos}?gbcols=siteid,status,count.*&gbsortby=siteid`)).result as { siteid: string; status: string }[];
        expect(tied.map((group) => `${group.siteid}/${group.status}`)).to.equal(tied.map((group) => `${group.siteid}/${group.status}`).sort());
        for (const url of [`${wos}?gbcols=colour`, `${wos}?gbcols=siteid,count.*&gbsortby=status`, `${wos}?gbcols=sum.nothing`, `${wos}?gbcols=siteid,count.*&gbsortby=%2Bsiteid,-siteid`, `${wos}?gbcols=siteid,count.*&gbsortby=-count,count.*`]) {
            expect((await get(url)).statusCode, url).to.equal(400);
        }
    });

    test('a group whose value reads as a pattern, a null test or a list in a where links to its own rows only', async () => {

        const picked = await rows((q) => q.select('workorderid', 'wonum', 'description').where({ siteid: 'BEDFORD' }).orderBy('workorderid').limit(7)) as { workorderid: number; wonum: string; description: string }[];
        const values = ['50% off', '50 off', '50x off', '*', '[a,b]', 'a', 'b'];
        const knex = t.server.app.osprey.knex;
        try {
            for (const [i, row] of picked.entries()) {
                await knex('workorder').where({ workorderid: row.workorderid }).update({ description: values[i] });
            }

            const where = `siteid="BEDFORD" and wonum in [${picked.map((row) => `"${row.wonum}"`).join(',')}]`;
            const res = await get(`${wos}?gbcols=description,count.*&oslc.where=${encodeURIComponent(where)}`);
            expect(res.statusCode, res.payload).to.equal(200);
            const groups = res.result as any[];
            expect(groups.map((group) => group.description).sort()).to.equal([...values].sort());
            for (const group of groups) {
                expect(group.count).to.equal(1);
                const ref = new URL(group.collectionref);
                const listed = await get(`${ref.pathname}${ref.search}&oslc.select=description`);
                expect(listed.statusCode, `${group.description}: ${listed.payload}`).to.equal(200);
                expect(listed.result.member.map((member: any) => member.description), group.description).to.equal([group.description]);
            }

            // Values with no special reading keep the plain form.
            expect(new URL(groups.find((group) => group.description === 'a').collectionref).searchParams.get('oslc.where')!).to.endWith(' and description="a"');
        }
        finally {
            for (const row of picked) {
                await knex('workorder').where({ workorderid: row.workorderid }).update({ description: row.description });
            }
        }
    });

    test('gbfilter keeps the groups whose outputs match, in the where syntax (SQL HAVING)', async () => {

        // Without gbsortby the groups come in the database's order.
        const all = (await get(`${wos}?gbcols=siteid,status,count.*,sum.wopriority`)).result as any[];
        const filter = (text: string) => get(`${wos}?gbcols=siteid,status,count.*,sum.wopriority&gbsortby=siteid,status&gbfilter=${encodeURIComponent(text)}`);
        const big = await filter('count>=40 and sum.wopriority>100');
        expect(big.statusCode, big.payload).to.equal(200);
        const expected = all.filter((group) => group.count >= 40 && group.sum_wopriority > 100).sort((a, b) => `${a.siteid}/${a.status}`.localeCompare(`${b.siteid}/${b.status}`));
        expect(expected.length > 0 && expected.length < all.length).to.be.true();
        expect(big.result).to.equal(expected);
        // count.* as gbcols spells it (IBM's Java client's Aggregation.having); a quoted value is left as it is.
        const javaSpelling = await filter('count.*>=40 and sum.wopriority>100');
        expect(javaSpelling.result).to.equal(expected);
        const quoted = await filter('siteid!="count.*" and count.*>=40 and sum.wopriority>100');
        expect(quoted.result).to.equal(expected);
        const site = await filter('siteid="NASHUA" and not status in ["CLOSE","CAN"] and sum_wopriority>0');
        expect(site.result.length).to.equal(all.filter((group) => group.siteid === 'NASHUA' && !['CLOSE', 'CAN'].includes(group.status) && group.sum_wopriority > 0).length);
        for (const text of ['wopriority>1', 'count>', 'woactivity.taskid>1', 'avg.estdur>1']) {
            const res = await filter(text);
            expect(res.statusCode, text).to.equal(400);
            expect(res.result.Error.reasonCode, text).to.equal('BMXAA8744E');
        }
    });
});
