import * as Code from '@hapi/code';
import * as Lab from '@hapi/lab';

import { csvField } from '../../src/reports/csv';
import { onEachDatabase } from '../helpers/experiments';
import { parseCsv, pdfText } from '../helpers/report-text';
import { maxadmin, wilson } from '../helpers/server';


const lab = exports.lab = Lab.script();
const { experiment, test } = lab;
const { expect } = Code;

const wos = '/maximo/oslc/os/mxapiwodetail';
const genreport = (params: Record<string, string>) => `${wos}?${new URLSearchParams({ action: 'genreport', reportname: 'woprint.rptdesign', ...params }).toString()}`;

experiment('CSV fields', () => {

    test('quote what needs quoting and disarm spreadsheet formulas in text, never in numbers', () => {

        const cases: [unknown, string][] = [
            [null, ''], [undefined, ''], ['plain', 'plain'], [12.5, '12.5'], [-3, '-3'], [true, 'true'],
            ['a,b', '"a,b"'], ['say "hi"', '"say ""hi"""'], ['two\r\nlines', '"two\r\nlines"'],
            ['=1+1', '\'=1+1'], ['+cmd', '\'+cmd'], ['-2', '\'-2'], ['@SUM(A1)', '\'@SUM(A1)'], ['=a,b', '"\'=a,b"']
        ];
        for (const [value, expected] of cases) {
            expect(csvField(value), String(value)).to.equal(expected);
        }
    });
});

onEachDatabase(lab, 'reports', (t) => {

    const get = (url: string, headers: Record<string, string> = wilson) => t.inject({ url, headers });

    test('listreports lists every report of the structure with the href that generates it, and the parameters it needs', async () => {

        const res = await get(`${wos}?action=listreports`);
        expect(res.statusCode).to.equal(200);
        expect(res.result).to.equal([
            { reportname: 'woprint.rptdesign', description: 'Work order details', genreport: 'http://127.0.0.1:8080/maximo/oslc/os/mxapiwodetail?action=genreport&reportname=woprint.rptdesign' },
            { reportname: 'woassets.rptdesign', description: 'Open work orders of a site with their assets', genreport: 'http://127.0.0.1:8080/maximo/oslc/os/mxapiwodetail?action=genreport&reportname=woassets.rptdesign', params: ['site'] },
            { reportname: 'woplan.rptdesign', description: 'Planned work by site', genreport: 'http://127.0.0.1:8080/maximo/oslc/os/mxapiwodetail?action=genreport&reportname=woplan.rptdesign' }
        ]);
        expect((await get('/maximo/api/os/mxapiperson?action=LISTREPORTS')).result).to.equal([]);
        // Each link answers with the parameters listed (found by a hostile probe: woassets' link alone was a 400).
        for (const report of res.result as { genreport: string; params?: string[] }[]) {
            const url = new URL(report.genreport);
            const run = await get(`${url.pathname}${url.search}&reportformat=csv${(report.params ?? []).map((name) => `&${name}=BEDFORD`).join('')}`);
            expect(run.statusCode, report.genreport).to.equal(200);
        }
    });

    test('CSV: a header of the columns, then every record the where names, in order, each field as stored', async () => {

        // A description a spreadsheet would misread, and one that needs quoting.
        const made = await t.inject({ method: 'POST', url: wos, headers: { ...wilson, properties: 'wonum' }, payload: { siteid: 'BEDFORD', description: '=HYPERLINK("x"), "quoted"' } });
        const res = await get(genreport({ reportformat: 'CSV', 'oslc.where': 'siteid="BEDFORD"' }));
        expect(res.statusCode).to.equal(200);
        expect(res.headers['content-type']).to.equal('text/csv; charset=utf-8');
        expect(res.headers['content-disposition']).to.equal('attachment; filename="woprint.csv"');
        const rows = parseCsv(res.payload);
        // The columns' titles, as the PDF heads them; no byte-order mark unless asked.
        expect(res.payload.charCodeAt(0)).to.equal('W'.charCodeAt(0));
        expect(rows[0]).to.equal(['Work Order', 'Site', 'Description', 'Status', 'Work Type', 'Asset', 'Location']);
        const stored = await t.server.app.osprey.knex('workorder').where({ siteid: 'BEDFORD' }).orderBy('workorderid').select('wonum', 'siteid', 'description', 'status', 'worktype', 'assetnum', 'location');
        expect(rows.length).to.equal(stored.length + 1);
        expect(rows.slice(1, 4)).to.equal(stored.slice(0, 3).map((row: Record<string, string | null>) => Object.values(row).map((value) => value ?? '')));
        expect(rows[rows.length - 1]).to.equal([made.result.wonum, 'BEDFORD', '\'=HYPERLINK("x"), "quoted"', 'WAPPR', '', '', '']);
    });

    test('more records than one page of the keyset reader arrive whole and in the order asked', async () => {

        // 600 demo work orders and 700 more: two batches of the keyset reader (batchSize, 1,000).
        const items = Array.from({ length: 700 }, (_, i) => ({ siteid: i % 2 ? 'NASHUA' : 'BEDFORD', description: `Report load ${i}`, wopriority: i % 4 === 0 ? null : i % 5 }));
        const bulk = await t.inject({ method: 'POST', url: wos, headers: { ...maxadmin, 'x-method-override': 'BULK' }, payload: items });
        expect(bulk.result.filter((item: { _responsemeta: { status: string } }) => item._responsemeta.status === '201')).to.have.length(700);
        const total = Number((await t.server.app.osprey.knex('workorder').count({ n: '*' }))[0]!.n);
        expect(total).to.be.above(1000);

        const rows = parseCsv((await get(genreport({ reportformat: 'csv', 'oslc.orderBy': '-wopriority,wonum' }))).payload).slice(1);
        expect(rows).to.have.length(total);
        const expected = await t.server.app.osprey.knex('workorder').select('wonum', 'siteid', 'wopriority', 'workorderid');
        // Osprey's ordering: nulls first when descending, then wonum, then the unique id.
        expected.sort((a: any, b: any) => (a.wopriority === b.wopriority ? 0 : a.wopriority === null ? -1 : b.wopriority === null ? 1 : b.wopriority - a.wopriority) || (a.wonum < b.wonum ? -1 : a.wonum > b.wonum ? 1 : 0) || a.workorderid - b.workorderid);
        expect(rows.map((row) => `${row[1]}/${row[0]}`)).to.equal(expected.map((row: any) => `${row.siteid}/${row.wonum}`));
    });

    test('each record once and in order across the batches, the next read while one renders, with writes landing meanwhile', async () => {

        // 600 demo work orders and 1,000 more: two batches of 1,000 (batchSize), the second read while the first renders.
        const items = Array.from({ length: 1000 }, (_, i) => ({ siteid: 'BEDFORD', description: `Batch ${i}` }));
        const bulk = await t.inject({ method: 'POST', url: wos, headers: { ...maxadmin, 'x-method-override': 'BULK' }, payload: items });
        expect(bulk.result.filter((item: { _responsemeta: { status: string } }) => item._responsemeta.status === '201')).to.have.length(1000);
        const key = (row: { siteid: string; wonum: string }) => `${row.siteid}/${row.wonum}`;
        const before = (await t.server.app.osprey.knex('workorder').orderBy('workorderid').select('siteid', 'wonum')).map(key);

        // Creates (after every record, in the report's order) and updates of records the report has not reached,
        // one after the other while it streams.
        const report = get(genreport({ reportformat: 'csv' }));
        const made: string[] = [];
        for (let i = 0; i < 6; ++i) {
            const create = await t.inject({ method: 'POST', url: wos, headers: { ...wilson, properties: 'siteid,wonum' }, payload: { siteid: 'NASHUA', description: `Made beside ${i}` } });
            expect(create.statusCode).to.equal(201);
            made.push(key(create.result));
            await t.server.app.osprey.knex('workorder').where('description', `Batch ${900 + i}`).update({ description: `Changed beside ${i}` });
        }

        const res = await report;
        expect(res.statusCode).to.equal(200);
        const rows = parseCsv(res.payload).slice(1).map((row) => `${row[1]}/${row[0]}`);
        expect(rows.slice(0, before.length)).to.equal(before);
        // The records made meanwhile come after them: those made before the last batch was read, in order.
        expect(rows.slice(before.length)).to.equal(made.slice(0, rows.length - before.length));
    });

    test('JSON: what the report is, its columns and one member per record; related values and aggregates as selects render them', async () => {

        const res = await get(`${wos}?action=genreport&reportname=woassets.rptdesign&reportformat=json&site=NASHUA&oslc.where=${encodeURIComponent('wonum<"1010"')}`);
        expect(res.statusCode).to.equal(200);
        expect(res.headers['content-type']).to.equal('application/json; charset=utf-8');
        expect(res.headers['content-disposition']).to.equal('attachment; filename="woassets.json"');
        const report = JSON.parse(res.payload);
        expect(report).to.include({ reportname: 'woassets.rptdesign', title: 'Open work orders of a site with their assets', structure: 'MXAPIWODETAIL', where: 'wonum<"1010"' });
        expect(report.columns.map((column: { name: string }) => column.name)).to.equal(['wonum', 'status', 'reportdate', 'assetnum', 'asset.description', 'location.description', 'woactivity._dbcount', 'wplabor.regularhrs._dbsum']);
        expect(report.columns[4].title).to.equal('Asset description');

        const query = await get(`${wos}?oslc.where=${encodeURIComponent('siteid="NASHUA" and status in ["WAPPR","APPR","WSCH","WMATL","INPRG"] and wonum<"1010"')}&oslc.select=wonum,status,reportdate,assetnum,asset.description,location.description,woactivity._dbcount,wplabor.regularhrs._dbsum&oslc.orderBy=%2Bworkorderid`);
        expect(report.member).to.have.length(query.result.member.length);
        expect(report.member.length > 0).to.be.true();
        report.member.forEach((member: Record<string, unknown>, i: number) => {

            const record = query.result.member[i];
            expect(member).to.equal({
                wonum: record.wonum, status: record.status, reportdate: record.reportdate, assetnum: record.assetnum ?? null,
                'asset.description': record.asset?.description ?? null, 'location.description': record.location?.description ?? null,
                'woactivity._dbcount': record.woactivity._dbcount, 'wplabor.regularhrs._dbsum': record.wplabor.regularhrs._dbsum
            });
        });

        const empty = JSON.parse((await get(`${wos}?action=genreport&reportname=woassets.rptdesign&reportformat=json&site=NOWHERE`)).payload);
        expect(empty.member).to.equal([]);
    });

    test('PDF by default: a titled table of every record, page by page', async () => {

        const res = await get(genreport({ 'oslc.where': 'wonum<"1100"' }));
        expect(res.statusCode).to.equal(200);
        expect(res.headers['content-type']).to.equal('application/pdf');
        expect(res.headers['content-disposition']).to.equal('attachment; filename="woprint.pdf"');
        const pdf = res.rawPayload;
        expect(pdf.subarray(0, 5).toString()).to.equal('%PDF-');
        expect(pdf.subarray(-6).toString()).to.contain('%%EOF');
        const pages = pdf.toString('latin1').match(/\/Type \/Page\n/g)!.length;
        expect(pages).to.be.within(2, 4);
        const text = pdfText(pdf, true);
        expect(text).to.contain('Work order details');
        // The titles, the longer ones on two lines (a column is no wider than its values or the title's half).
        expect(text).to.match(/Work +Site +Description +Status +Work +Asset +Location\nOrder +Type\n/);
        expect(text).to.contain('where wonum<"1100"');
        const wonums = text.split('\n').map((line) => /^ *(\d{4}) /.exec(line)?.[1]).filter(Boolean);
        expect(wonums).to.include(['1000', '1099']);
        expect(wonums).to.not.include('1100');
        expect(text).to.contain(`Page ${pages} of ${pages}`);
        expect(text).to.match(/Total \(100 records\)/);
    });

    test('what cannot be a report is a clear 400, before any document starts', async () => {

        const cases: [string, string][] = [
            [`${wos}?action=genreport`, 'genreport needs reportname'],
            [genreport({ reportname: 'nothere.rptdesign' }), 'woprint.rptdesign, woassets.rptdesign, woplan.rptdesign'],
            [`/maximo/oslc/os/mxapiperson?action=genreport&reportname=x`, 'it declares no reports'],
            [genreport({ reportformat: 'xlsx' }), 'not one of pdf, csv, json'],
            [genreport({ 'oslc.where': 'nosuch=1' }), 'BMXAA8744E'],
            [genreport({ reportformat: 'csv', bom: 'yes please' }), 'bom is 1 or 0 (true or false), not yes please'],
            [genreport({ reportformat: 'pdf', bom: '1' }), 'a pdf report has none'],
            [genreport({ 'oslc.orderBy': '+nosuch' }), 'BMXAA8744E'],
            [`${wos}?action=genreport&reportname=woassets.rptdesign`, 'needs the parameter site'],
            [`${wos}?action=unheard`, 'has no action unheard']
        ];
        for (const [url, message] of cases) {
            const res = await get(url);
            expect(res.statusCode, url).to.equal(400);
            expect(res.result.Error.message, url).to.contain(message);
        }

        expect((await get(genreport({}), {})).statusCode).to.equal(401);
    });
});
