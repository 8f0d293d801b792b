import * as Path from 'node:path';

import * as Code from '@hapi/code';
import * as Lab from '@hapi/lab';

import { UnregisteredRendererError } from '../../src/reports/renderers';
import { ComputedError } from '../../src/structures/computed';
import { testDatabases } from '../helpers/databases';
import { onEachDatabase } from '../helpers/experiments';
import { copyFixture, removeCopy, type FixtureCopy } from '../helpers/fixtures';
import { startTestServer, wilson } from '../helpers/server';


const lab = exports.lab = Lab.script();
const { experiment, test } = lab;
const { expect } = Code;

const plugin = Path.join(__dirname, '..', 'fixtures', 'plugins', 'renderer-computed');
const wos = '/maximo/oslc/os/mxapiwodetail';
const query = (params: Record<string, string>) => `${wos}?${new URLSearchParams(params).toString()}`;

// The demo's structures, with two reports a plugin renders and two computed attributes of MXAPIWODETAIL.
const fixture: FixtureCopy = {
    from: Path.join('..', '..', '..', 'structures'),
    edit: (text, file) => (file !== 'mxapiwodetail.yaml' ? text : text
        .replace('attributes:\n', 'attributes:\n  descriptionlength: { type: integer, persistent: false, title: Description length }\n  agedays: { type: integer, persistent: false, title: Days since reported }\n  one: { type: integer, persistent: false }\n  nothing: { type: integer, persistent: false }\n  reportcopy: { type: datetime, persistent: false }\n')
        .replace('reports:\n', 'reports:\n  - { name: wotext, title: Work orders as text, handler: plainText, where: \'siteid=:site\' }\n  - { name: worefused, title: Refused, handler: refusing }\n  - { name: wolength, title: Work orders by description length, columns: [wonum, description, descriptionlength], groupBy: descriptionlength, totals: [descriptionlength] }\n'))
};

onEachDatabase(lab, 'report renderers and computed attributes of a plugin', { settings: { plugins: [plugin] }, fixture }, (t) => {

    test('genreport hands the renderer the records the request names, in its order, and answers its document', async () => {

        const count = await t.inject({ url: query({ 'oslc.where': 'siteid="BEDFORD" and status="WAPPR"', count: '1' }), headers: wilson });
        const expected = count.result.totalCount as number;
        expect(expected).to.be.above(0);
        const res = await t.inject({ url: query({ action: 'genreport', reportname: 'wotext', reportformat: 'txt', site: 'BEDFORD', 'oslc.where': 'status="WAPPR"', 'oslc.orderBy': '-wonum' }), headers: wilson });
        expect(res.statusCode, res.payload).to.equal(200);
        expect(res.headers['content-type']).to.equal('text/plain; charset=utf-8');
        expect(res.headers['content-disposition']).to.equal('attachment; filename="wotext.txt"');
        const lines = res.payload.trim().split('\n').map((line) => line.split(' '));
        expect(lines.length).to.equal(expected);
        expect(lines.every(([, status]) => status === 'WAPPR')).to.be.true();
        const wonums = lines.map(([wonum]) => wonum!);
        expect(wonums).to.equal([...wonums].sort().reverse());
        // The records render as a read without a select: the computed attributes with them.
        expect(lines.every(([, , length]) => /^\d+$/.test(length!))).to.be.true();
    });

    test('with attachment=1 the renderer is given each record\'s documents, read once per page', async () => {

        const made = await t.inject({ method: 'POST', url: wos, headers: { ...wilson, properties: 'wonum' }, payload: { siteid: 'BEDFORD', description: 'Has a document' } });
        const other = await t.inject({ method: 'POST', url: wos, headers: { ...wilson, properties: 'wonum' }, payload: { siteid: 'BEDFORD', description: 'Has none' } });
        const upload = await t.inject({ method: 'POST', url: `${new URL(made.result.href).pathname}/doclinks`, headers: { ...wilson, slug: 'note.txt', 'content-type': 'text/plain' }, payload: 'twelve bytes' });
        expect(upload.statusCode, upload.payload).to.equal(201);
        const params = { action: 'genreport', reportname: 'wotext', site: 'BEDFORD', 'oslc.where': `wonum in ["${made.result.wonum}","${other.result.wonum}"]` };
        const listed = await t.inject({ url: query({ ...params, attachment: '1' }), headers: wilson });
        expect(listed.statusCode, listed.payload).to.equal(200);
        expect(listed.payload.trim().split('\n').map((line) => line.replace(/ \d+ \[/, ' [')).sort()).to.equal([`${made.result.wonum} WAPPR [note.txt 12]`, `${other.result.wonum} WAPPR []`].sort());
        const plain = await t.inject({ url: query(params), headers: wilson });
        expect(plain.payload).to.not.contain('[');
    });

    test('a format the renderer names, its own disposition, a buffer; another format, a missing parameter or the renderer\'s refusal is a 400', async () => {

        const html = await t.inject({ url: query({ action: 'genreport', reportname: 'wotext', reportformat: 'HTML', site: 'NOSUCHSITE' }), headers: wilson });
        expect(html.statusCode).to.equal(200);
        expect(html.headers['content-disposition']).to.equal('inline');
        expect(html.payload).to.equal('<h1>Work orders as text</h1><ul></ul>');
        const pdf = await t.inject({ url: query({ action: 'genreport', reportname: 'wotext', reportformat: 'pdf', site: 'BEDFORD' }), headers: wilson });
        expect(pdf.statusCode).to.equal(400);
        expect(String(pdf.result.Error.message)).to.endWith('reportformat pdf is not one the report wotext renders: txt, html.');
        const missing = await t.inject({ url: query({ action: 'genreport', reportname: 'wotext' }), headers: wilson });
        expect(missing.statusCode).to.equal(400);
        expect(missing.result.Error.message).to.contain('needs the parameter site');
        const refused = await t.inject({ url: query({ action: 'genreport', reportname: 'worefused' }), headers: wilson });
        expect(refused.statusCode).to.equal(400);
        expect(String(refused.result.Error.message)).to.endWith('The refusing renderer renders nothing.');
        const listed = await t.inject({ url: query({ action: 'listreports' }), headers: wilson });
        expect(listed.result.map((report: any) => report.reportname)).to.include(['wotext', 'worefused']);
    });

    test('a computed attribute renders selected or without a select; with its SQL it filters, without it a filter is refused by name', async () => {

        const selected = await t.inject({ url: query({ 'oslc.select': 'wonum,description,descriptionlength,agedays,reportdate', 'oslc.where': 'descriptionlength>20', 'oslc.pageSize': '50', lean: '1' }), headers: wilson });
        expect(selected.statusCode, selected.payload).to.equal(200);
        const members = selected.result.member as any[];
        expect(members.length).to.be.above(0);
        for (const record of members) {
            expect(record.descriptionlength).to.equal(record.description.length);
            expect(Number(record.descriptionlength)).to.be.above(20);
            expect(record.agedays).to.equal(Math.floor((Date.now() - new Date(record.reportdate).getTime()) / 86_400_000));
        }

        const all = await t.inject({ url: query({ 'oslc.select': '*', 'oslc.where': 'descriptionlength<=20', 'oslc.pageSize': '5', lean: '1' }), headers: wilson });
        expect(Number(all.result.member.length)).to.be.above(0);
        expect(all.result.member.every((record: any) => record.descriptionlength <= 20 && 'agedays' in record), JSON.stringify(all.result.member)).to.be.true();

        const filter = await t.inject({ url: query({ 'oslc.where': 'agedays>1' }), headers: wilson });
        expect(filter.statusCode).to.equal(400);
        expect(filter.result.Error.message).to.contain('WORKORDER.agedays is computed by a plugin that gives no SQL for it, so it cannot filter, sort or group');
        const sort = await t.inject({ url: query({ 'oslc.orderBy': '+agedays' }), headers: wilson });
        expect(sort.statusCode).to.equal(400);
        expect(sort.result.Error.message).to.contain('oslc.orderBy');
        expect(sort.result.Error.message).to.contain('WORKORDER.agedays is computed by a plugin that gives no SQL for it, so it cannot filter, sort or group');
        for (const params of [{ distinct: 'agedays' }, { gbcols: 'agedays,count.*' }, { gbcols: 'status,sum.agedays' }] as Record<string, string>[]) {
            const grouped = await t.inject({ url: query(params), headers: wilson });
            expect(grouped.statusCode, JSON.stringify(params)).to.equal(400);
            expect(grouped.result.Error.message).to.contain('WORKORDER.agedays is computed by a plugin that gives no SQL for it');
        }
    });

    // The work orders of one site, each with its description's length, as the plugin's value function gives it.
    const lengths = async (where: string): Promise<{ wonum: string; length: number | null; id: number }[]> => {

        const all = await t.inject({ url: query({ 'oslc.select': 'wonum,description,descriptionlength,workorderid', 'oslc.where': where, 'oslc.pageSize': '1000', lean: '1' }), headers: wilson });
        expect(all.statusCode, all.payload).to.equal(200);
        expect(all.result.responseInfo.nextPage).to.not.exist();
        return all.result.member.map((record: any) => ({ wonum: record.wonum, length: record.descriptionlength ?? null, id: record.workorderid }));
    };

    // Every page of a query, following nextPage: the work orders in the order served, and the links followed.
    const paged = async (first: string): Promise<{ seen: string[]; links: string[] }> => {

        const seen: string[] = [];
        const links: string[] = [];
        let url: string | undefined = first;
        while (url) {
            const page = await t.inject({ url, headers: wilson });
            expect(page.statusCode, page.payload).to.equal(200);
            seen.push(...page.result.member.map((record: any) => record.wonum));
            const next: string | undefined = page.result.responseInfo.nextPage?.href;
            url = next ? `${new URL(next).pathname}${new URL(next).search}` : undefined;
            links.push(...next ? [next] : []);
        }

        return { seen, links };
    };

    test('a computed attribute with its SQL orders a query, and stable pages follow its order across pages', async () => {

        // Two work orders without a description: their length is null, which sorts as nulls do (first descending).
        for (const wonum of ['NODESC1', 'NODESC2']) {
            const made = await t.inject({ method: 'POST', url: wos, headers: wilson, payload: { wonum, siteid: 'NASHUA' } });
            expect(made.statusCode, made.payload).to.equal(201);
        }

        const where = 'siteid="NASHUA"';
        const records = await lengths(where);
        expect(records.length).to.be.above(20);
        expect(new Set(records.map(({ length }) => length)).size).to.be.above(5);
        // Descending by length, nulls first, then by the unique id: what the database must answer.
        const expected = [...records].sort((a, b) => (a.length === b.length ? a.id - b.id : a.length === null ? -1 : b.length === null ? 1 : b.length - a.length)).map(({ wonum }) => wonum);
        expect(expected.slice(0, 2).sort()).to.equal(['NODESC1', 'NODESC2']);

        const one = await t.inject({ url: query({ 'oslc.select': 'wonum', 'oslc.where': where, 'oslc.orderBy': '-descriptionlength', 'oslc.pageSize': '1000', lean: '1' }), headers: wilson });
        expect(one.statusCode, one.payload).to.equal(200);
        expect(one.result.member.map((record: any) => record.wonum)).to.equal(expected);
        // The value it ordered by is not an attribute of the answer: only what the select names.
        expect(Object.keys(one.result.member[0]).sort()).to.equal(['_rowstamp', 'href', 'wonum']);

        // Page by page, with a stable cursor and with pageno: the same order, each record once.
        for (const stable of [true, false]) {
            const { seen, links } = await paged(query({ 'oslc.select': 'wonum', 'oslc.where': where, 'oslc.orderBy': '-descriptionlength', 'oslc.pageSize': '7', lean: '1', ...(stable ? { stablepaging: '1' } : {}) }));
            expect(links.length).to.be.above(1);
            expect(links.every((next) => !stable || next.includes('stableId'))).to.be.true();
            expect(seen, `stable: ${stable}`).to.equal(expected);
        }

        // Ascending: nulls last.
        const up = await t.inject({ url: query({ 'oslc.select': 'wonum', 'oslc.where': where, 'oslc.orderBy': '+descriptionlength,-wonum', 'oslc.pageSize': '1000', lean: '1' }), headers: wilson });
        const ascending = [...records].sort((a, b) => (a.length === b.length ? (a.wonum < b.wonum ? 1 : -1) : a.length === null ? 1 : b.length === null ? -1 : a.length - b.length)).map(({ wonum }) => wonum);
        expect(up.result.member.map((record: any) => record.wonum)).to.equal(ascending);
    });

    test('a computed attribute whose SQL is a constant orders and groups by its value, not a column, on both databases', async () => {

        const where = 'siteid="BEDFORD" and status="WAPPR"';
        const records = await lengths(where);
        const byWonum = records.map(({ wonum }) => wonum).sort();
        for (const orderBy of ['-one,+wonum', '+nothing,+wonum', '-nothing,+one,+wonum']) {
            const { seen } = await paged(query({ 'oslc.select': 'wonum', 'oslc.where': where, 'oslc.orderBy': orderBy, 'oslc.pageSize': '9', stablepaging: '1', lean: '1' }));
            expect(seen, orderBy).to.equal(byWonum);
        }

        const constant = await t.inject({ url: query({ gbcols: 'one,nothing,count.*,sum.nothing,max.one', 'oslc.where': where }), headers: wilson });
        expect(constant.statusCode, constant.payload).to.equal(200);
        expect(constant.result.map((group: any) => ({ ...group, collectionref: undefined }))).to.equal([{ one: 1, nothing: null, count: records.length, sum_nothing: null, max_one: 1, collectionref: undefined }]);
        const distinct = await t.inject({ url: query({ distinct: 'nothing' }), headers: wilson });
        expect(distinct.result).to.equal([]);

        // gbfilter compares a computed group column as it compares a stored one.
        const filtered = await t.inject({ url: query({ gbcols: 'descriptionlength,count.*', gbfilter: 'descriptionlength>30', 'oslc.where': where }), headers: wilson });
        expect(filtered.statusCode, filtered.payload).to.equal(200);
        const longer = records.filter(({ length }) => length !== null && length > 30);
        expect(filtered.result.reduce((sum: number, group: any) => sum + group.count, 0)).to.equal(longer.length);
        expect(filtered.result.every((group: any) => group.descriptionlength > 30)).to.be.true();
    });

    test('a value function reads the row in its JSON form, the same on both databases', async () => {

        const read = await t.inject({ url: query({ 'oslc.select': 'wonum,reportdate,reportcopy', 'oslc.where': 'siteid="BEDFORD"', 'oslc.pageSize': '20', lean: '1' }), headers: wilson });
        expect(read.statusCode, read.payload).to.equal(200);
        expect(read.result.member.some((record: any) => typeof record.reportdate === 'string')).to.be.true();
        for (const record of read.result.member) {
            expect(record.reportcopy ?? null, record.wonum).to.equal(record.reportdate ?? null);
        }
    });

    test('a computed attribute with its SQL answers distinct values and groups, counted and summed', async () => {

        const where = 'siteid="BEDFORD" and status="WAPPR"';
        const records = (await lengths(where)).filter(({ length }) => length !== null);
        const distinct = await t.inject({ url: query({ distinct: 'descriptionlength', 'oslc.where': where }), headers: wilson });
        expect(distinct.statusCode, distinct.payload).to.equal(200);
        expect(distinct.result).to.equal([...new Set(records.map(({ length }) => length))].sort((a, b) => a! - b!));

        const grouped = await t.inject({ url: query({ gbcols: 'descriptionlength,count.*', 'oslc.where': where, gbsortby: '-count' }), headers: wilson });
        expect(grouped.statusCode, grouped.payload).to.equal(200);
        const counts = new Map<number, number>();
        records.forEach(({ length }) => counts.set(length!, (counts.get(length!) ?? 0) + 1));
        expect(grouped.result.map((group: any) => [group.descriptionlength, group.count]).sort()).to.equal([...counts].sort());
        // A group's collectionref lists its rows: the computed term filters by the same SQL.
        const first = grouped.result[0];
        const ref = new URL(first.collectionref);
        const listed = await t.inject({ url: `${ref.pathname}${ref.search}&count=1`, headers: wilson });
        expect(listed.result.totalCount).to.equal(first.count);

        const summed = await t.inject({ url: query({ gbcols: 'status,sum.descriptionlength,max.descriptionlength', 'oslc.where': where }), headers: wilson });
        expect(summed.statusCode, summed.payload).to.equal(200);
        expect(summed.result.length).to.equal(1);
        expect(summed.result[0].sum_descriptionlength).to.equal(records.reduce((sum, { length }) => sum + length!, 0));
        expect(summed.result[0].max_descriptionlength).to.equal(Math.max(...records.map(({ length }) => length!)));

        const ranged = await t.inject({ url: query({ gbcols: 'descriptionlength,count.*', gbrange: 'descriptionlength={[0:10]}' }), headers: wilson });
        expect(ranged.statusCode).to.equal(400);
        expect(ranged.result.Error.message).to.contain('WORKORDER.descriptionlength is computed, so it groups by its value but not in ranges (gbrange)');
    });

    test('a report orders and groups by a computed attribute with its SQL, and prints its values', async () => {

        const where = 'siteid="BEDFORD" and status="WAPPR"';
        const records = await lengths(where);
        const csv = await t.inject({ url: query({ action: 'genreport', reportname: 'wolength', reportformat: 'csv', 'oslc.where': where, 'oslc.orderBy': '-wonum' }), headers: wilson });
        expect(csv.statusCode, csv.payload).to.equal(200);
        const rows = csv.payload.trim().split(/\r?\n/).slice(1).map((line) => line.split(','));
        expect(rows.length).to.equal(records.length);
        // Grouped by the length, ascending (nulls last), and by wonum descending within a group.
        const expected = [...records].sort((a, b) => (a.length === b.length ? (a.wonum < b.wonum ? 1 : -1) : a.length === null ? 1 : b.length === null ? -1 : a.length - b.length));
        expect(rows.map((row) => row[0])).to.equal(expected.map(({ wonum }) => wonum));
        expect(rows.map((row) => row[row.length - 1])).to.equal(expected.map(({ length }) => String(length ?? '')));

        const pdf = await t.inject({ url: query({ action: 'genreport', reportname: 'wolength', reportformat: 'pdf', 'oslc.where': where }), headers: wilson });
        expect(pdf.statusCode).to.equal(200);
        expect(pdf.headers['content-type']).to.equal('application/pdf');

        const refused = await t.inject({ url: query({ action: 'genreport', reportname: 'wolength', reportformat: 'csv', 'oslc.orderBy': 'agedays' }), headers: wilson });
        expect(refused.statusCode).to.equal(400);
        expect(refused.result.Error.message).to.contain('WORKORDER.agedays is computed by a plugin that gives no SQL for it');
    });

    test('a computed attribute the YAML does not declare, a stored one or one given twice is refused when registered', () => {

        const value = () => 1;
        expect(() => t.server.registerComputed('MXAPIWODETAIL', 'absent', { value })).to.throw(ComputedError, 'registerComputed: absent is not an attribute of WORKORDER; declare it in the YAML with persistent: false.');
        expect(() => t.server.registerComputed('MXAPIWODETAIL', 'wonum', { value })).to.throw(ComputedError, /is stored/);
        expect(() => t.server.registerComputed('MXAPIWODETAIL', 'agedays', { value })).to.throw(ComputedError, /computed twice/);
        expect(() => t.server.registerComputed('NOSUCH', 'agedays', { value })).to.throw(ComputedError, /no object structure NOSUCH/);
    });
});

experiment('a report naming a renderer nobody registered', () => {

    for (const database of testDatabases) {
        test(`stops the start with a sentence naming it (${database.name})`, async () => {

            const structures = copyFixture(fixture);
            try {
                await expect(startTestServer(database, { structures })).to.reject(UnregisteredRendererError, `${Path.join(structures, 'mxapiwodetail.yaml')}: the report wotext of MXAPIWODETAIL names the renderer plainText, which no plugin registered (server.registerReportRenderer); the registered renderers are: none.`);
            }
            finally {
                removeCopy(structures);
            }
        });
    }
});

experiment('a report printing or grouping by a computed attribute its plugin cannot give', () => {

    // The wolength report alone (no renderer's report), with the attributes declared and no plugin, or with a
    // groupBy of the attribute whose plugin gives no SQL.
    const only = (groupBy: string): FixtureCopy => ({
        from: fixture.from,
        edit: (text, file) => (file !== 'mxapiwodetail.yaml' ? text : text
            .replace('attributes:\n', 'attributes:\n  descriptionlength: { type: integer, persistent: false }\n  agedays: { type: integer, persistent: false }\n  one: { type: integer, persistent: false }\n  nothing: { type: integer, persistent: false }\n  reportcopy: { type: datetime, persistent: false }\n')
            .replace('reports:\n', `reports:\n  - { name: wolength, title: By length, columns: [wonum, descriptionlength, agedays], groupBy: ${groupBy} }\n`))
    });

    for (const database of testDatabases) {
        test(`stops the start with a sentence naming the report and the attribute (${database.name})`, async () => {

            const unplugged = copyFixture(only('descriptionlength'));
            const noSql = copyFixture(only('agedays'));
            try {
                const file = Path.join(unplugged, 'mxapiwodetail.yaml');
                await expect(startTestServer(database, { structures: unplugged })).to.reject(ComputedError, `${file}: the report wolength of MXAPIWODETAIL cannot print a column: WORKORDER.descriptionlength is not stored (persistent: false): writes accept it, and a record has no value of it to answer; a plugin computes such an attribute with server.registerComputed.`);
                await expect(startTestServer(database, { structures: noSql, plugins: [plugin] })).to.reject(ComputedError, `${Path.join(noSql, 'mxapiwodetail.yaml')}: the report wolength of MXAPIWODETAIL groups by agedays, which is not stored; a report groups by a stored attribute or by one a plugin computes with SQL (server.registerComputed with sql).`);
            }
            finally {
                removeCopy(unplugged);
                removeCopy(noSql);
            }
        });
    }
});
