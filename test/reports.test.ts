import { PassThrough, Readable } from 'node:stream';

import * as Code from '@hapi/code';
import * as Lab from '@hapi/lab';

import type { ReportAttachment } from '../src/reports/attachments';
import type { ReportColumn } from '../src/reports/columns';
import { drained, pdfStream } from '../src/reports/pdf';
import { pdfText } from './helpers/report-text';


const { experiment, test } = exports.lab = Lab.script();
const { expect } = Code;

const columns: ReportColumn[] = [
    { name: 'name', title: 'Name', path: ['name'], width: 10, numeric: false },
    { name: 'qty', title: 'Quantity', path: ['qty'], width: 5, numeric: true }
];

const collect = (stream: NodeJS.ReadableStream): Promise<Buffer> => new Promise((resolve, reject) => {

    const chunks: Buffer[] = [];
    stream.on('data', (chunk: Buffer) => chunks.push(chunk)).on('end', () => resolve(Buffer.concat(chunks))).on('error', reject);
});

experiment('the PDF renderer', () => {

    test('draws any text: too long for its column it is cut, characters beyond Windows-1252 print as "?"', async () => {

        const batches = (async function* () {

            yield [{ name: `Ölpumpe – 東京 ${'very long '.repeat(40)}`, qty: 1.5 }, { name: null, qty: null }];
            yield [{ name: 'last', qty: -2 }];
        })();
        const pdf = await collect(pdfStream({ title: 'Test ✓', subtitle: 'a subtitle', footer: 'footer' }, columns, batches));
        expect(pdf.subarray(0, 5).toString()).to.equal('%PDF-');
        expect(pdf.toString('latin1')).to.contain('%%EOF');
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
        const pdf = await collect(pdfStream({ title: 'T', subtitle: 's', footer: 'f' }, columns, batches, (record) => documents.get(record) ?? []));
        const lines = pdfText(pdf).split('\n');
        expect(lines).to.include(['\x95 file0.txt · Attachments, text/plain, 0 B · first of them · WILSON 2024-01-02 03:04', '\x95 file119.txt · Attachments, text/plain, 238 KB · WILSON 2024-01-02 03:04', 'Page 2']);
        expect(lines.filter((line) => line === 'Name')).to.have.length(lines.filter((line) => line.startsWith('Page ')).length);
        expect(lines.indexOf('none')).to.be.above(lines.indexOf('\x95 file119.txt · Attachments, text/plain, 238 KB · WILSON 2024-01-02 03:04'));
    });

    test('a failure of the records it draws ends the document with that error', async () => {

        const batches = (async function* () {

            yield [{ name: 'first', qty: 1 }];
            throw new Error('the database went away');
        })();
        await expect(collect(pdfStream({ title: 'T', subtitle: 's', footer: 'f' }, columns, batches))).to.reject('the database went away');
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
