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
        .replace('attributes:\n', 'attributes:\n  descriptionlength: { type: integer, persistent: false, title: Description length }\n  agedays: { type: integer, persistent: false, title: Days since reported }\n')
        .replace('reports:\n', 'reports:\n  - { name: wotext, title: Work orders as text, handler: plainText, where: \'siteid=:site\' }\n  - { name: worefused, title: Refused, handler: refusing }\n'))
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
        const sort = await t.inject({ url: query({ 'oslc.orderBy': '+descriptionlength' }), headers: wilson });
        expect(sort.statusCode).to.equal(400);
        expect(sort.result.Error.message).to.contain('WORKORDER.descriptionlength is computed, so it filters (oslc.where) but cannot sort or group');
    });

    test('a computed attribute the YAML does not declare, a stored one or one given twice is refused when registered', () => {

        const value = () => 1;
        expect(() => t.server.registerComputed('MXAPIWODETAIL', 'nothing', { value })).to.throw(ComputedError, 'registerComputed: nothing is not an attribute of WORKORDER; declare it in the YAML with persistent: false.');
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
