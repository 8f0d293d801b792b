import * as Code from '@hapi/code';
import * as Lab from '@hapi/lab';

import { onEachDatabase } from '../helpers/experiments';
import { parseCsv, pdfText, pdfWords } from '../helpers/report-text';
import { maxadmin, wilson } from '../helpers/server';


const lab = exports.lab = Lab.script();
const { test, before } = lab;
const { expect } = Code;

const wos = '/maximo/oslc/os/mxapiwodetail';

// The demo's woplan.rptdesign (structures/mxapiwodetail.yaml): grouped by site, the labor hours and cost summed,
// datetimes as DD/MM/YYYY HH:mm, the description 160 points wide; the server prints datetimes in Tokyo's time.
onEachDatabase(lab, 'a report laid out for a planner', { settings: { reportTimezone: 'Asia/Tokyo' } }, (t) => {

    // A description of 100 characters (the attribute's length), each word told apart, too long for its column.
    const long = Array.from({ length: 14 }, (_, i) => `w${String(i).padStart(2, '0')}xyz`).join(' ');
    const made = [
        { siteid: 'BEDFORD', description: long, estlabhrs: 2.5, estlabcost: 100.25, targstartdate: '2024-03-01T23:30:00+00:00' },
        { siteid: 'BEDFORD', description: '東京 ポンプ点検', estlabhrs: 1.25, estlabcost: 10.1, targstartdate: '2024-06-30T15:00:00+00:00' },
        { siteid: 'BEDFORD', description: 'Ölpumpe Жук', estlabhrs: null, estlabcost: 0.2 },
        { siteid: 'NASHUA', description: 'Nashua one', estlabhrs: 4, estlabcost: 1000 },
        { siteid: 'NASHUA', description: 'Nashua two', estlabhrs: 0.75, estlabcost: 33.33 }
    ];
    let where = '';

    before(async () => {

        const ids: number[] = [];
        for (const payload of made) {
            const res = await t.inject({ method: 'POST', url: wos, headers: { ...maxadmin, properties: 'workorderid' }, payload });
            expect(res.statusCode, res.payload).to.equal(201);
            ids.push(res.result.workorderid);
        }

        where = `workorderid in [${ids.join(',')}]`;
    });

    const report = (params: Record<string, string>) => t.inject({ url: `${wos}?${new URLSearchParams({ action: 'genreport', reportname: 'woplan.rptdesign', 'oslc.where': where, ...params }).toString()}`, headers: wilson });

    test('PDF: dates in the zone, descriptions in full, Japanese, subtotals per site and the totals, the heading', async () => {

        const res = await report({});
        expect(res.statusCode).to.equal(200);
        const text = pdfText(res.rawPayload, true);
        // Heading: what it covers, when, in which zone.
        expect(text).to.contain(`where ${where}`);
        expect(text).to.contain('grouped by siteid');
        expect(text).to.match(/Generated \d{4}-\d\d-\d\d \d\d:\d\d \(Asia\/Tokyo\) by WILSON/);
        // 23:30 UTC is 08:30 the next day in Tokyo; 15:00 UTC is midnight.
        expect(text).to.contain('02/03/2024 08:30');
        expect(text).to.contain('01/07/2024 00:00');
        // The long description wraps over several lines, every word in order.
        const words = text.match(/w\d\dxyz/g)!;
        expect(words.join(' ')).to.equal(long);
        expect(text.split('\n').filter((line) => /w\d\dxyz/.test(line)).length).to.be.above(1);
        expect(text).to.contain('東京 ポンプ点検');
        expect(text).to.contain('Ölpumpe Жук');

        // Sums computed here from the records made, each with its scale.
        const sum = (site: string | undefined, key: 'estlabhrs' | 'estlabcost') => made.filter((wo) => !site || wo.siteid === site).reduce((total, wo) => total + (wo[key] ?? 0), 0).toFixed(2);
        const row = (label: string, site?: string) => new RegExp(`${label.replace(/[()]/g, '\\$&')} +${sum(site, 'estlabhrs')} +${sum(site, 'estlabcost')}\\n`);
        expect(text).to.match(row('Subtotal BEDFORD (3 records)', 'BEDFORD'));
        expect(text).to.match(row('Subtotal NASHUA (2 records)', 'NASHUA'));
        expect(text).to.match(row('Total (5 records)'));
        expect(text.indexOf('Site: BEDFORD')).to.be.below(text.indexOf('Subtotal BEDFORD'));
        expect(text.indexOf('Subtotal BEDFORD')).to.be.below(text.indexOf('Site: NASHUA'));
        expect(text).to.contain('Page 1 of 1');
        // Numbers with their scale, right-aligned: the costs of different lengths end at one place.
        const ends = pdfWords(res.rawPayload).filter((word) => ['1000.00', '33.33', '0.20'].includes(word.text)).map((word) => Math.round(word.xMax));
        expect(ends).to.have.length(3);
        expect(new Set(ends).size).to.equal(1);
    });

    test('the heading names the report\'s parameters (the site), and only what the request gave', async () => {

        const assets = await t.inject({ url: `${wos}?action=genreport&reportname=woassets.rptdesign&site=BEDFORD&oslc.where=${encodeURIComponent('wonum<"1010"')}`, headers: wilson });
        expect(assets.statusCode).to.equal(200);
        const lines = pdfText(assets.rawPayload, true).split('\n');
        expect(lines.slice(0, 4)).to.equal(['Open work orders of a site with their assets', 'MXAPIWODETAIL · woassets.rptdesign', 'site = BEDFORD · where wonum<"1010"', lines[3]!]);
        // woassets.rptdesign names its own zone (timezone: UTC) over the server's.
        expect(lines[3]).to.match(/^Generated \d{4}-\d\d-\d\d \d\d:\d\d \(UTC\) by WILSON$/);

        const plain = pdfText((await t.inject({ url: `${wos}?action=genreport&reportname=woprint.rptdesign`, headers: wilson })).rawPayload, true).split('\n');
        expect(plain[1]).to.equal('MXAPIWODETAIL · woprint.rptdesign');
        expect(plain[2]).to.match(/^Generated .* \(Asia\/Tokyo\) by WILSON$/);
    });

    test('a report of many pages says "Page N of M" on each', async () => {

        const res = await t.inject({ url: `${wos}?action=genreport&reportname=woplan.rptdesign&oslc.where=${encodeURIComponent('siteid="BEDFORD"')}`, headers: wilson });
        const text = pdfText(res.rawPayload);
        const pages = res.rawPayload.toString('latin1').match(/\/Type \/Page\n/g)!.length;
        expect(pages).to.be.above(2);
        for (let i = 1; i <= pages; ++i) {
            expect(text).to.contain(`Page ${i} of ${pages}`);
        }
    });

    test('CSV: the titles as headers, a byte-order mark when asked, ISO datetimes in the zone, numbers with their scale', async () => {

        const res = await report({ reportformat: 'csv', bom: '1', 'oslc.orderBy': '+workorderid' });
        expect(res.statusCode).to.equal(200);
        expect(res.rawPayload.subarray(0, 3)).to.equal(Buffer.from([0xef, 0xbb, 0xbf]));
        const rows = parseCsv(res.payload.slice(1));
        expect(rows[0]).to.equal(['Site', 'Work Order', 'Description', 'Status', 'Start', 'Estimated Labor Hours', 'Labor cost']);
        expect(rows.slice(1).map((row) => [row[0], row[2], row[4], row[5], row[6]])).to.equal([
            ['BEDFORD', long, '2024-03-02T08:30:00+09:00', '2.50', '100.25'],
            ['BEDFORD', '東京 ポンプ点検', '2024-07-01T00:00:00+09:00', '1.25', '10.10'],
            ['BEDFORD', 'Ölpumpe Жук', '', '', '0.20'],
            ['NASHUA', 'Nashua one', '', '4.00', '1000.00'],
            ['NASHUA', 'Nashua two', '', '0.75', '33.33']
        ]);

        const plain = await report({ reportformat: 'csv', bom: '0' });
        expect(plain.payload.startsWith('Site,')).to.be.true();
    });
});
