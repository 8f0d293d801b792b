import { PassThrough, Readable } from 'node:stream';

import * as Code from '@hapi/code';
import * as Lab from '@hapi/lab';

import type { ReportAttachment } from '../src/reports/attachments';
import type { ReportColumn } from '../src/reports/columns';
import { csvLines } from '../src/reports/csv';
import { fontOf } from '../src/reports/fonts';
import { csvCell, datetimeText, defaultFormats, isoDatetime, pdfCellText } from '../src/reports/format';
import { drained, pdfStream } from '../src/reports/pdf';
import { columnWidths, wrap } from '../src/reports/table';
import { parseCsv, pdfText } from './helpers/report-text';


const { experiment, test } = exports.lab = Lab.script();
const { expect } = Code;

const columns: ReportColumn[] = [
    { name: 'name', title: 'Name', path: ['name'], numeric: false, family: 'string' },
    { name: 'qty', title: 'Quantity', path: ['qty'], numeric: true, family: 'decimal', scale: 2 }
];

const collect = (stream: NodeJS.ReadableStream): Promise<Buffer> => new Promise((resolve, reject) => {

    const chunks: Buffer[] = [];
    stream.on('data', (chunk: Buffer) => chunks.push(chunk)).on('end', () => resolve(Buffer.concat(chunks))).on('error', reject);
});

experiment('the PDF renderer', () => {

    test('draws any text in full: a long one wraps in its column, Japanese and Cyrillic print, totals and the count end it', async () => {

        const long = `Ölpumpe – 東京 ポンプ点検 ${Array.from({ length: 60 }, (_, i) => `word${i}`).join(' ')} Жук end`;
        const batches = (async function* () {

            yield [{ name: long, qty: 1.5 }, { name: null, qty: null }, { name: 'tab\there\r\nnext line', qty: 3 }];
            yield [{ name: 'last', qty: -2 }];
        })();
        const pdf = await collect(pdfStream({ title: 'Test ✓ 東京', lines: ['a subtitle'], footer: 'footer' }, columns, batches, { totals: ['qty'] }));
        expect(pdf.subarray(0, 5).toString()).to.equal('%PDF-');
        const text = pdfText(pdf);
        expect(text).to.contain('Test ✓ 東京');
        // Every word of the long text, in order, over several lines.
        const words = text.replace(/\s+/g, ' ');
        expect(words).to.contain(long);
        expect(words).to.contain('tab here next line');
        expect(pdfText(pdf, true)).to.match(/Total \(4 records\)\s+2\.50\n/);
        expect(text).to.contain('Page 1 of 1');
    });

    test('groups with subtotals, a sum first in the row, a row taller than a page over several pages, "Page N of M" on each', async () => {

        const qtyFirst = [columns[1]!, { ...columns[0]!, width: 60 }];
        const records = [{ name: null, qty: 0.5 }, { name: 'a', qty: 1 }, { name: 'a', qty: 2.25 }, { name: 'b', qty: 4 }, { name: 'tall '.repeat(2000), qty: 1 }];
        const batches = (async function* () {

            yield records;
        })();
        const pdf = await collect(pdfStream({ title: 'T', lines: [], footer: 'f' }, qtyFirst, batches, { groupBy: 'name', totals: ['qty'] }));
        const text = pdfText(pdf);
        const pages = Number(/Page 1 of (\d+)/.exec(text)![1]);
        expect(pages).to.be.above(2);
        for (let i = 1; i <= pages; ++i) {
            expect(text).to.contain(`Page ${i} of ${pages}`);
        }

        expect(text).to.contain('Name: (none)');
        expect(text).to.contain('Subtotal (none) (1 record)');
        expect(text).to.contain('Name: a');
        expect(text).to.contain('Subtotal a (2 records)');
        expect(text).to.contain('Subtotal b (1 record)');
        expect(text).to.contain('3.25');
        expect(text).to.contain('Total (5 records)');
        expect(text).to.contain('8.75');
        // Every word of the tall text in its row, its group's heading and its subtotal's label.
        expect(text.match(/tall/g)).to.have.length(3 * 2000);
    });

    test('an empty report: its header, and a count of none', async () => {

        const batches = (async function* () {

            yield [];
        })();
        const text = pdfText(await collect(pdfStream({ title: 'T', lines: [], footer: 'f' }, columns, batches, { groupBy: 'name', totals: ['qty'] })));
        expect(text).to.contain('Quantity');
        expect(text).to.contain('Total (0 records)');
        expect(text).to.not.contain('Subtotal');
    });

    test('wraps between words, a word wider than the width between its characters, Japanese anywhere', () => {

        const measure = (text: string) => text.length;
        expect(wrap(measure, 'short', 10)).to.equal(['short']);
        expect(wrap(measure, 'one two three four', 9)).to.equal(['one two', 'three', 'four']);
        expect(wrap(measure, 'abcdefghijklmnopqrstuvwxyz', 10)).to.equal(['abcdefghij', 'klmnopqrst', 'uvwxyz']);
        expect(wrap(measure, 'a\nb', 10)).to.equal(['a', 'b']);
        expect(wrap(measure, 'a\n\nb', 10)).to.equal(['a', '', 'b']);
        expect(wrap(measure, '東京ポンプ点検', 3)).to.equal(['東京ポ', 'ンプ点', '検']);
        expect(wrap(() => 5, 'xy', 1)).to.equal(['x', 'y']);
    });

    test('columns as wide as their content; the text ones share what is left when they do not fit', () => {

        expect(columnWidths([10, 20], [true, true], [undefined, undefined], 100)).to.equal([10, 20]);
        expect(columnWidths([10, 200, 300], [false, true, true], [undefined, undefined, undefined], 210)).to.equal([10, 100, 100]);
        expect(columnWidths([10, 50, 300], [false, true, true], [undefined, undefined, 80], 200)).to.equal([10, 50, 80]);
        expect(columnWidths([10, 50, 300], [false, true, true], [undefined, undefined, undefined], 200)).to.equal([10, 50, 140]);
        // No room left for the text: everything in proportion.
        expect(columnWidths([300, 100], [false, true], [undefined, undefined], 200)).to.equal([150, 50]);
    });

    test('dates in the zone and pattern, numbers with their scale; the CSV in ISO 8601 with the zone\'s offset', () => {

        const tokyo = { ...defaultFormats, timeZone: 'Asia/Tokyo' };
        expect(datetimeText('2024-03-01T23:30:05+00:00', 'DD/MM/YYYY HH:mm:ss', 'Asia/Tokyo')).to.equal('02/03/2024 08:30:05');
        expect(isoDatetime('2024-03-01T23:30:05+00:00', 'UTC')).to.equal('2024-03-01T23:30:05+00:00');
        expect(isoDatetime('2024-03-01T23:30:05+00:00', 'Asia/Tokyo')).to.equal('2024-03-02T08:30:05+09:00');
        expect(isoDatetime('2024-01-15T12:00:00+00:00', 'America/St_Johns')).to.equal('2024-01-15T08:30:00-03:30');
        const at = (family: ReportColumn['family'], extra: Partial<ReportColumn> = {}): ReportColumn => ({ name: 'x', title: 'X', path: ['x'], numeric: false, family, ...extra });
        expect(pdfCellText(at('datetime'), tokyo)('2024-03-01T23:30:05+00:00')).to.equal('2024-03-02 08:30');
        expect(pdfCellText(at('datetime', { format: 'HH:mm' }), tokyo)('2024-03-01T23:30:05+00:00')).to.equal('08:30');
        expect(pdfCellText(at('date'), tokyo)('2024-03-01T00:00:00+00:00')).to.equal('2024-03-01');
        expect(pdfCellText(at('date', { format: 'DD.MM.YYYY HH' }), tokyo)('2024-03-01T00:00:00+00:00')).to.equal('01.03.2024 00');
        expect(pdfCellText(at('decimal', { scale: 3 }), tokyo)(1.5)).to.equal('1.500');
        expect(pdfCellText(at('integer'), tokyo)(12)).to.equal('12');
        expect(pdfCellText(at('boolean'), tokyo)(true)).to.equal('Y');
        expect(pdfCellText(at('boolean'), tokyo)(false)).to.equal('N');
        expect(pdfCellText(at('string'), tokyo)(null)).to.equal('');
        expect(csvCell(at('datetime'), tokyo)!('2024-03-01T23:30:05+00:00')).to.equal('2024-03-02T08:30:05+09:00');
        expect(csvCell(at('datetime'), tokyo)!(null)).to.equal('');
        expect(csvCell(at('date'), tokyo)!('2024-03-01T00:00:00+00:00')).to.equal('2024-03-01');
        expect(csvCell(at('date'), tokyo)!(null)).to.equal('');
        expect(csvCell(at('decimal'), tokyo)!(-2.5)).to.equal('-2.50');
        expect(csvCell(at('decimal', { scale: 1 }), tokyo)!(null)).to.equal('');
        expect(csvCell(at('string'), tokyo)).to.be.undefined();
    });

    test('the CSV: titles as headers, a byte-order mark when asked', async () => {

        const batches = (async function* () {

            yield [{ name: '-x', qty: -1 }];
        })();
        const text = (await collect(Readable.from(csvLines(columns, batches, { bom: true }), { objectMode: false }))).toString('utf8');
        expect(text.charCodeAt(0)).to.equal(0xfeff);
        expect(parseCsv(text.slice(1))).to.equal([['Name', 'Quantity'], ['\'-x', '-1.00']]);
    });

    test('a text is drawn in Noto Sans when it has every character, else in Noto Sans JP', () => {

        const covers = (code: number) => code < 0x3000;
        expect(fontOf(covers, 'plain', false)).to.equal('regular');
        expect(fontOf(covers, 'Жук', true)).to.equal('bold');
        expect(fontOf(covers, '東京', false)).to.equal('cjk');
        expect(fontOf(covers, 'Жук 東京', true)).to.equal('cjkBold');
    });

    test('lists a record\'s documents under its row, across pages when they are many, the header again on each', async () => {

        const many = { name: 'many', qty: 1 };
        const none = { name: 'none', qty: 2 };
        const attachment = (i: number): ReportAttachment => ({
            href: `http://host/doclinks/${i}`, fileName: `file${i}.txt`, description: i === 0 ? 'first\nof them' : null, docType: 'Attachments', urlType: 'FILE',
            mimeType: 'text/plain', attachmentSize: 2048 * i, createby: 'WILSON', created: '2024-01-02T03:04:05+00:00'
        });
        const documents = new Map<object, ReportAttachment[]>([[many, Array.from({ length: 120 }, (_, i) => attachment(i))]]);
        const batches = (async function* () {

            yield [many, none];
        })();
        const pdf = await collect(pdfStream({ title: 'T', lines: ['s'], footer: 'f' }, columns, batches, { documents: (record) => documents.get(record) ?? [] }));
        const lines = pdfText(pdf, true).split('\n').map((line) => line.trim());
        expect(lines).to.include(['• file0.txt · Attachments, text/plain, 0 B · first of them · WILSON 2024-01-02 03:04', '• file119.txt · Attachments, text/plain, 238 KB · WILSON 2024-01-02 03:04']);
        const footers = lines.filter((line) => /^f +Page \d+ of 3$/.test(line));
        expect(footers).to.have.length(3);
        expect(lines.filter((line) => /^Name +Quantity$/.test(line))).to.have.length(3);
        expect(lines.findIndex((line) => /^none +2\.00$/.test(line))).to.be.above(lines.indexOf('• file119.txt · Attachments, text/plain, 238 KB · WILSON 2024-01-02 03:04'));
    });

    test('a failure of the records it draws ends the document with that error', async () => {

        const batches = (async function* () {

            yield [{ name: 'first', qty: 1 }];
            throw new Error('the database went away');
        })();
        await expect(collect(pdfStream({ title: 'T', lines: ['s'], footer: 'f' }, columns, batches))).to.reject('the database went away');
    });

    test('waits while more than the limit waits for the reader, and not once the reader took it or left', async () => {

        // Like pdfkit's document: a Readable its producer pushes into whatever the reader takes.
        const doc = new Readable({ read: () => undefined });
        const sink = new PassThrough();
        doc.pipe(sink);
        doc.push(Buffer.alloc(100));
        await drained(doc, sink, 1000);                                // under the limit: at once

        sink.pause();
        // More than the sink takes while its reader pauses, in the small pieces pdfkit pushes.
        Array.from({ length: 100 }, () => doc.push(Buffer.alloc(1000)));
        let done = false;
        const waiting = drained(doc, sink, 1000).then(() => (done = true));
        await new Promise((resolve) => setImmediate(resolve));
        expect(done).to.be.false();
        sink.resume();                                                 // the reader takes it
        await waiting;

        sink.pause();
        Array.from({ length: 100 }, () => doc.push(Buffer.alloc(1000)));
        const leaving = drained(doc, sink, 1000);
        sink.destroy();                                                // the reader went away
        await leaving;
    });
});
