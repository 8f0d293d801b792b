import { PassThrough, type Readable } from 'node:stream';

import { slicer } from '../slices';
import { sizeText, type DocumentsOfRecord, type ReportAttachment } from './attachments';
import { columnValue, type ReportColumn } from './columns';


// A report as a PDF table, drawn with pdfkit as the records arrive, page by page: a title and what the report
// covers, a header row repeated on every page, one line per record (a text too wide for its column is cut with
// an ellipsis), page numbers. pdfkit's standard fonts write Windows-1252, so other characters print as "?".
// With attachment=1 a record's documents are listed under its row, one smaller indented line each, on the
// record's shading so that they read as part of it.

interface Page {
    readonly width: number;
    readonly height: number;
    readonly margins: { top: number; bottom: number; left: number; right: number };
}

// The part of pdfkit's document this module draws with (pdfkit ships no type definitions).
interface PdfDocument extends Readable {
    readonly page: Page;
    font(name: string): this;
    fontSize(size: number): this;
    fillColor(color: string): this;
    text(text: string, x: number, y: number, options?: { lineBreak?: boolean }): this;
    widthOfString(text: string): number;
    addPage(): this;
    rect(x: number, y: number, width: number, height: number): this;
    fill(color: string): this;
    moveTo(x: number, y: number): this;
    lineTo(x: number, y: number): this;
    lineWidth(width: number): this;
    stroke(color?: string): this;
    end(): void;
}

const PDFDocument = require('pdfkit') as new (options: object) => PdfDocument;

export interface PdfHead {
    readonly title: string;
    /** One line under the title: what the report covers, when and for whom it was made. */
    readonly subtitle: string;
    readonly footer: string;
}

const rowHeight = 12;
const documentHeight = 10;
const documentIndent = 14;
const padding = 3;
const buffered = 256 * 1024;

// Windows-1252: Latin-1 and the printable characters it puts in 0x80–0x9F.
const cp1252 = new Set('€‚ƒ„…†‡ˆ‰Š‹ŒŽ‘’“”•–—˜™š›œžŸ');
const printable = (text: string) => Array.from(text, (char) => ((char >= ' ' && char <= '~') || (char >= '\u00a0' && char <= '\u00ff') || cp1252.has(char) ? char : '?')).join('');

const cellText = (value: unknown) => (value === null ? '' : printable(typeof value === 'string' ? value.replace(/\s+/g, ' ') : String(value)));

// The longest start of the text that fits the width with an ellipsis.
const fit = (doc: PdfDocument, text: string, width: number) => {

    if (doc.widthOfString(text) <= width) {
        return text;
    }

    let low = 0;
    let high = text.length;
    while (low < high) {
        const middle = Math.ceil((low + high) / 2);
        if (doc.widthOfString(`${text.slice(0, middle)}…`) <= width) {
            low = middle;
        }
        else {
            high = middle - 1;
        }
    }

    return `${text.slice(0, low)}…`;
};

// A document's line: name · what it is · description · who attached it and when (a URL document: its address
// in place of its type and size).
export const documentLine = (document: ReportAttachment): string => {

    const what = document.urlType === 'URL' ? `URL ${document.urlname ?? ''}` : `${document.docType}, ${document.mimeType}, ${sizeText(document.attachmentSize)}`;
    const when = document.created.slice(0, 16).replace('T', ' ');
    return ['•', document.fileName, '·', what, ...document.description ? ['·', document.description] : [], '·', document.createby, when].join(' ');
};

// Waits while more than `limit` bytes of PDF wait in the document for the client (the sink it is piped to), so
// a large report does not pile up in memory; a client that went away ends the wait.
export const drained = (doc: Readable, sink: Readable, limit = buffered): Promise<void> => {

    return new Promise((resolve) => {

        const check = () => {

            if (doc.readableLength < limit || sink.destroyed) {
                doc.off('data', check);
                sink.off('close', check);
                resolve();
            }
        };

        doc.on('data', check);
        sink.on('close', check);
        check();
    });
};

export const pdfStream = (head: PdfHead, columns: readonly ReportColumn[], batches: AsyncIterable<readonly Record<string, unknown>[]>, documents?: DocumentsOfRecord): Readable => {

    const doc = new PDFDocument({ size: 'A4', layout: columns.length > 5 ? 'landscape' : 'portrait', margin: 36, info: { Title: head.title, Creator: 'Osprey' } });
    const { left, right, top, bottom } = doc.page.margins;
    const usable = doc.page.width - left - right;
    const total = columns.reduce((sum, column) => sum + column.width, 0);
    const widths = columns.map((column) => usable * column.width / total);
    const xs = widths.map((_, i) => left + widths.slice(0, i).reduce((sum, width) => sum + width, 0));
    const last = doc.page.height - bottom - rowHeight;
    let y = top;
    let page = 1;

    const line = (values: readonly string[], bold: boolean) => {

        doc.font(bold ? 'Helvetica-Bold' : 'Helvetica').fontSize(8).fillColor('#000000');
        values.forEach((value, i) => {

            const text = fit(doc, value, widths[i]! - 2 * padding);
            const x = columns[i]!.numeric && !bold ? xs[i]! + widths[i]! - padding - doc.widthOfString(text) : xs[i]! + padding;
            doc.text(text, x, y + 2, { lineBreak: false });
        });
        y += rowHeight;
    };

    const header = () => {

        line(columns.map((column) => column.title), true);
        doc.moveTo(left, y).lineTo(left + usable, y).lineWidth(0.5).stroke('#555555');
    };

    // Written into the bottom margin, where pdfkit would otherwise start a new page.
    const footer = () => {

        const margin = doc.page.margins.bottom;
        doc.page.margins.bottom = 0;
        doc.font('Helvetica').fontSize(7).fillColor('#555555');
        doc.text(printable(head.footer), left, doc.page.height - margin + 12, { lineBreak: false });
        const number = `Page ${page}`;
        doc.text(number, left + usable - doc.widthOfString(number), doc.page.height - margin + 12, { lineBreak: false });
        doc.page.margins.bottom = margin;
    };

    // A new page when the next line would not fit on this one.
    const room = () => {

        if (y > last) {
            footer();
            doc.addPage();
            ++page;
            y = top;
            header();
        }
    };

    // Piped at once, so the document flows only as fast as the client reads (and `drained` may watch its data).
    const sink = new PassThrough();
    doc.pipe(sink);
    const write = async () => {

        doc.font('Helvetica-Bold').fontSize(14).text(printable(head.title), left, y, { lineBreak: false });
        y += 20;
        doc.font('Helvetica').fontSize(8).fillColor('#555555').text(fit(doc, printable(head.subtitle), usable), left, y, { lineBreak: false });
        y += 16;
        header();
        let shaded = false;
        // Rendering is the slow part of a large report: it gives the event loop turns as it goes (src/slices.ts).
        const pause = slicer();
        for await (const records of batches) {
            for (const record of records) {
                await pause();
                room();
                if (shaded) {
                    doc.rect(left, y, usable, rowHeight).fill('#f0f0f0');
                }

                line(columns.map((column) => cellText(columnValue(record, column))), false);
                for (const document of documents?.(record) ?? []) {
                    room();
                    if (shaded) {
                        doc.rect(left, y, usable, documentHeight).fill('#f0f0f0');
                    }

                    doc.font('Helvetica').fontSize(7).fillColor('#333333');
                    doc.text(fit(doc, cellText(documentLine(document)), usable - documentIndent - padding), left + documentIndent, y + 1.5, { lineBreak: false });
                    y += documentHeight;
                }

                shaded = !shaded;
            }

            await drained(doc, sink);
            if (sink.destroyed) {
                return doc.destroy();
            }
        }

        footer();
        doc.end();
    };

    write().catch((error: Error) => {

        doc.destroy();
        sink.destroy(error);
    });
    return sink;
};
