import { PassThrough, Readable } from 'node:stream';

import * as Code from '@hapi/code';
import * as Lab from '@hapi/lab';

import type { ReportColumn } from '../src/reports/columns';
import { drained, pdfStream } from '../src/reports/pdf';


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
