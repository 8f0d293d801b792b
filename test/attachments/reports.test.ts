import * as Code from '@hapi/code';
import * as Lab from '@hapi/lab';

import { insertDocument } from '../../src/attachments/documents';
import { transaction } from '../../src/db/transaction';
import { ReportDocuments } from '../../src/reports/attachments';
import type { ResourceRequest } from '../../src/request';
import { onEachDatabase } from '../helpers/experiments';
import { parseCsv, pdfText } from '../helpers/report-text';
import { maxadmin, wilson, type TestServer } from '../helpers/server';


const lab = exports.lab = Lab.script();
const { before, test } = lab;
const { expect } = Code;

// genreport's attachment=1 (issue 36; IBM's guide, report/BIRT.mdx): each record of the report lists the documents
// attached to it, in CSV, JSON and PDF; a structure without attachments refuses it; a report lists at most
// OSPREY_MAX_ANSWER_ROWS documents.

const wos = '/maximo/oslc/os/mxapiwodetail';
const genreport = (params: Record<string, string>) => `${wos}?${new URLSearchParams({ action: 'genreport', reportname: 'woprint.rptdesign', ...params }).toString()}`;

interface Made {
    readonly wonum: string;
    /** The record's path (…/os/mxapiwodetail/{id}). */
    readonly path: string;
    readonly workorderid: number;
}

const workOrder = async (t: TestServer, description: string): Promise<Made> => {

    const made = await t.inject({ method: 'POST', url: wos, headers: { ...wilson, properties: 'wonum,workorderid' }, payload: { siteid: 'BEDFORD', description } });
    expect(made.statusCode, made.payload).to.equal(201);
    return { wonum: made.result.wonum, path: new URL(made.result.href).pathname, workorderid: Number(made.result.workorderid) };
};

// Through the upload route, as a client attaches a file: its meta as the engine answers it.
const attach = async (t: TestServer, record: Made, name: string, type: string, body: string, description?: string) => {

    const upload = await t.inject({ method: 'POST', url: `${record.path}/doclinks`, headers: { ...wilson, slug: name, 'content-type': type, ...description ? { 'x-document-description': description } : {} }, payload: body });
    expect(upload.statusCode, upload.payload).to.equal(201);
    const location = new URL(String(upload.headers.location)).pathname;
    const meta = await t.inject({ url: location.replace('/doclinks/', '/doclinks/meta/'), headers: wilson });
    expect(meta.statusCode).to.equal(200);
    return { location, meta: meta.result };
};

onEachDatabase(lab, 'reports with attachment=1', (t) => {

    let a: Made;
    let b: Made;
    let c: Made;
    let where: string;
    let pump: Awaited<ReturnType<typeof attach>>;
    let readme: Awaited<ReturnType<typeof attach>>;
    let note: Awaited<ReturnType<typeof attach>>;
    let link: number;

    before(async () => {

        a = await workOrder(t, 'Pump with documents');
        b = await workOrder(t, 'Valve with a note');
        c = await workOrder(t, 'Nothing attached');
        where = `siteid="BEDFORD" and wonum in ["${a.wonum}","${b.wonum}","${c.wonum}"]`;
        pump = await attach(t, a, 'pump.bin', 'application/octet-stream', 'seven b', 'A pump');
        readme = await attach(t, a, 'readme.txt', 'text/plain', 'x'.repeat(12_600));
        note = await attach(t, b, 'note.txt', 'text/plain', 'hello');
        // A link to a document elsewhere (no route makes one yet): its row, as the engine stores one.
        link = (await transaction(t.server.app.osprey.knex, (db) => insertDocument(db, {
            ownertable: 'WORKORDER', ownerid: a.workorderid, document: 'Vendor manual', description: 'The vendor\'s manual', doctype: 'Attachments', urltype: 'URL',
            urlname: 'https://example.com/pump.pdf', mimetype: 'text/html', size: 0, sha256: null, contentkey: null, chunksize: null, store: null, createby: 'MAXADMIN', created: Date.UTC(2024, 0, 2, 3, 4, 5)
        }))).doclinksid;
    });

    test('CSV: one more column, each document as "name (size)" (a link: its address) joined by "; ", one row per record still', async () => {

        const res = await t.inject({ url: genreport({ reportformat: 'csv', 'oslc.where': where, 'oslc.orderBy': '+wonum', attachment: '1' }), headers: wilson });
        expect(res.statusCode, res.payload).to.equal(200);
        expect(res.headers['content-disposition']).to.equal('attachment; filename="woprint.csv"');
        const rows = parseCsv(res.payload);
        expect(rows[0]).to.equal(['Work Order', 'Site', 'Description', 'Status', 'Work Type', 'Asset', 'Location', 'Attachments']);
        expect(rows.slice(1).map((row) => [row[0], row[7]])).to.equal([
            [a.wonum, 'pump.bin (7 B); readme.txt (12.3 KB); Vendor manual (https://example.com/pump.pdf)'],
            [b.wonum, 'note.txt (5 B)'],
            [c.wonum, '']
        ]);

        // Without it, the report as before: the same rows, no column of documents.
        const plain = parseCsv((await t.inject({ url: genreport({ reportformat: 'csv', 'oslc.where': where, 'oslc.orderBy': '+wonum' }), headers: wilson })).payload);
        expect(plain).to.equal(rows.map((row) => row.slice(0, 7)));
    });

    test('JSON: each member\'s attachments, with the names of the document\'s meta; none without attachment=1', async () => {

        const res = await t.inject({ url: genreport({ reportformat: 'json', 'oslc.where': where, 'oslc.orderBy': '+wonum', attachment: '1' }), headers: wilson });
        expect(res.statusCode, res.payload).to.equal(200);
        expect(res.headers['content-disposition']).to.equal('attachment; filename="woprint.json"');
        const report = JSON.parse(res.payload);
        expect(report.member.map((member: { wonum: string }) => member.wonum)).to.equal([a.wonum, b.wonum, c.wonum]);
        const asMeta = ({ location, meta }: Awaited<ReturnType<typeof attach>>) => ({
            href: meta.href.replace('/doclinks/meta/', '/doclinks/'), fileName: meta.fileName, description: meta.description === '' ? null : meta.description, docType: meta.docType,
            urlType: 'FILE', mimeType: meta.format.label, attachmentSize: meta.attachmentSize, createby: 'WILSON', created: meta.created, location
        });
        const listed = report.member.map((member: { attachments: { href: string }[] }) => member.attachments.map((document) => ({ ...document, location: new URL(document.href).pathname })));
        expect(listed[0].slice(0, 2)).to.equal([asMeta(pump), asMeta(readme)]);
        expect(listed[0][0]).to.include({ description: 'A pump', attachmentSize: 7, mimeType: 'application/octet-stream' });
        expect(listed[0][1]).to.include({ description: null, attachmentSize: 12_600 });
        expect(listed[0][2]).to.equal({
            href: listed[0][2].href, location: `${a.path}/doclinks/${link}`, fileName: 'Vendor manual', description: 'The vendor\'s manual', docType: 'Attachments', urlType: 'URL',
            urlname: 'https://example.com/pump.pdf', mimeType: 'text/html', attachmentSize: 0, createby: 'MAXADMIN', created: '2024-01-02T03:04:05+00:00'
        });
        expect(listed[1]).to.equal([asMeta(note)]);
        expect(listed[2]).to.equal([]);

        const plain = JSON.parse((await t.inject({ url: genreport({ reportformat: 'json', 'oslc.where': where }), headers: wilson })).payload);
        expect(plain.member).to.have.length(3);
        expect(plain.member.every((member: object) => !('attachments' in member))).to.be.true();
    });

    test('PDF: a record\'s documents in small indented lines under its row; none without attachment=1', async () => {

        const res = await t.inject({ url: genreport({ 'oslc.where': where, 'oslc.orderBy': '+wonum', attachment: '1' }), headers: wilson });
        expect(res.statusCode).to.equal(200);
        expect(res.headers['content-type']).to.equal('application/pdf');
        expect(res.headers['content-disposition']).to.equal('attachment; filename="woprint.pdf"');
        const lines = pdfText(res.rawPayload, true).split('\n').map((line) => line.trim()).filter(Boolean);
        expect(lines.some((line) => line.includes('with attachments'))).to.be.true();
        const minute = (iso: string) => iso.slice(0, 16).replace('T', ' ');
        const documentLines = [
            `• pump.bin · Attachments, application/octet-stream, 7 B · A pump · WILSON ${minute(pump.meta.created)}`,
            `• readme.txt · Attachments, text/plain, 12.3 KB · WILSON ${minute(readme.meta.created)}`,
            '• Vendor manual · URL https://example.com/pump.pdf · The vendor\'s manual · MAXADMIN 2024-01-02 03:04',
            `• note.txt · Attachments, text/plain, 5 B · WILSON ${minute(note.meta.created)}`
        ];
        const at = (text: string) => lines.indexOf(text);
        expect(documentLines.map(at).every((index) => index > 0)).to.be.true();
        // In the records' order, each under its record's row (the row's cells on one line, then its documents).
        const row = (wo: { wonum: string }, description: string) => lines.findIndex((line) => new RegExp(`^${wo.wonum} +BEDFORD +${description} +WAPPR$`).test(line));
        const order = [row(a, 'Pump with documents'), ...documentLines.slice(0, 3).map(at), row(b, 'Valve with a note'), at(documentLines[3]!), row(c, 'Nothing attached')];
        expect(order[0]).to.be.above(0);
        expect(order.every((position, i) => i === 0 || position === order[i - 1]! + 1)).to.be.true();

        const plain = pdfText((await t.inject({ url: genreport({ 'oslc.where': where }), headers: wilson })).rawPayload);
        expect(plain).to.contain(a.wonum);
        expect(plain).to.not.contain('pump.bin');
        expect(plain).to.not.contain('with attachments');
    });

    test('attachment=1 where the structure has no attachments, or a value other than 1/0, is a 400 that names it', async () => {

        const none = await t.inject({ url: '/maximo/oslc/os/mxapiwfassignment?action=genreport&reportname=any&attachment=1', headers: maxadmin });
        expect(none.statusCode).to.equal(400);
        expect(none.result.Error.message).to.contain('attachment=1 lists each record\'s attached documents, and MXAPIWFASSIGNMENT records have none');
        const off = await t.inject({ url: '/maximo/oslc/os/mxapiwfassignment?action=genreport&reportname=any&attachment=0', headers: maxadmin });
        expect(off.result.Error.message).to.contain('it declares no reports');
        const other = await t.inject({ url: genreport({ attachment: 'yes' }), headers: wilson });
        expect(other.statusCode).to.equal(400);
        expect(other.result.Error.message).to.contain('attachment');
    });
});

onEachDatabase(lab, 'reports with attachment=1 within OSPREY_MAX_ANSWER_ROWS', { settings: { maxAnswerRows: 4 } }, (t) => {

    test('a report whose records have more documents than the limit is a 400 before the document starts; fewer are listed', async () => {

        const a = await workOrder(t, 'Three documents');
        const b = await workOrder(t, 'Two documents');
        for (const [record, name] of [[a, 'a1.txt'], [a, 'a2.txt'], [a, 'a3.txt'], [b, 'b1.txt'], [b, 'b2.txt']] as const) {
            await attach(t, record, name, 'text/plain', name);
        }

        const both = `siteid="BEDFORD" and wonum in ["${a.wonum}","${b.wonum}"]`;
        for (const reportformat of ['pdf', 'csv', 'json']) {
            const res = await t.inject({ url: genreport({ reportformat, 'oslc.where': both, attachment: '1' }), headers: wilson });
            expect(res.statusCode).to.equal(400);
            expect(res.result.Error.message).to.contain('the records of this report have more than 4 attached documents');
            expect(res.result.Error.message).to.contain('OSPREY_MAX_ANSWER_ROWS');
        }

        // The records alone are not held to it, nor the documents of fewer records.
        expect((await t.inject({ url: genreport({ reportformat: 'csv', 'oslc.where': both }), headers: wilson })).statusCode).to.equal(200);
        const one = await t.inject({ url: genreport({ reportformat: 'csv', 'oslc.where': `siteid="BEDFORD" and wonum="${a.wonum}"`, attachment: '1' }), headers: wilson });
        expect(one.statusCode).to.equal(200);
        expect(parseCsv(one.payload)[1]![7]).to.equal('a1.txt (6 B); a2.txt (6 B); a3.txt (6 B)');

        // Documents attached after the count still count: a page that takes a pass beyond the limit fails it.
        const req = { osprey: t.server.app.osprey } as unknown as ResourceRequest;
        const structure = t.server.app.osprey.registry.get('MXAPIWODETAIL')!;
        const rows = await t.server.app.osprey.knex('workorder').where({ wonum: a.wonum, siteid: 'BEDFORD' }).select('workorderid', 'siteid', 'wonum');
        const rendered = [{}];
        const documents = new ReportDocuments(req, 'http://host/maximo/oslc/os/mxapiwodetail', 4);
        expect(await documents.page(t.server.app.osprey.db, structure, rows, rendered, 1)).to.equal(3);
        expect(documents.of(rendered[0]!).map((document) => document.fileName)).to.equal(['a1.txt', 'a2.txt', 'a3.txt']);
        expect(documents.of({})).to.equal([]);
        await expect(documents.page(t.server.app.osprey.db, structure, rows, [{}], 2)).to.reject(/more than 4 attached documents/);
    });

    test('a record\'s list of documents is an answer too: pages of at most the limit (found by a hostile probe: all of them)', async () => {

        const record = await workOrder(t, 'Six documents');
        for (const name of ['1.txt', '2.txt', '3.txt', '4.txt', '5.txt', '6.txt']) {
            await attach(t, record, name, 'text/plain', name);
        }

        const first = await t.inject({ url: `${record.path}/doclinks`, headers: wilson });
        expect(first.result.member).to.have.length(4);
        expect(first.result.responseInfo.nextPage.href).to.contain('pageno=2');
        const asked = await t.inject({ url: `${record.path}/doclinks?oslc.pageSize=5`, headers: wilson });
        expect(asked.statusCode).to.equal(400);
        expect(asked.result.Error.message).to.contain('oslc.pageSize is a whole number from 1 to 4');
    });
});
