import { PassThrough, type Readable } from 'node:stream';

import { slicer } from '../slices';
import { sizeText, type DocumentsOfRecord, type ReportAttachment } from './attachments';
import { columnValue, type ReportColumn } from './columns';
import { coverage, fontOf, registerFonts, useFont, type EmbeddedFont } from './fonts';
import { datetimeText, defaultFormats, pdfCellText, type ReportFormats } from './format';
import { columnWidths, wrap } from './table';


// A report as a PDF table, drawn with pdfkit as the records arrive: a title and what the report covers (its
// structure, where, parameters, when and for whom), a header row repeated on every page, one row per record
// whose texts wrap within their columns (nothing is cut), subtotals after each group (`groupBy`), the totals and
// the count of records at the end, "Page N of M" on every page. Its fonts are Noto Sans and Noto Sans JP,
// embedded (./fonts.ts), so any text prints. With attachment=1 a record's documents are listed under its row,
// one smaller indented line each, on the record's shading so that they read as part of it.
//
// The columns are as wide as the first page of records (500, read before the document starts) and their titles
// need, or as the YAML declares (./table.ts). "of M" is known only at the end, when the first pages are long
// sent: each page's footer draws M as a form XObject (one object every page refers to) whose content is written
// once the last page is done. Keeping the pages instead (pdfkit's bufferPages) to write their footers at the
// end held 20,000 records' pages in memory: 290 MB more, and nothing sent until the end.

interface Page {
    readonly width: number;
    readonly height: number;
    readonly margins: { top: number; bottom: number; left: number; right: number };
    readonly xobjects: Record<string, unknown>;
}

// The part of pdfkit's document this module draws with (pdfkit ships no type definitions).
interface PdfDocument extends Readable {
    readonly page: Page;
    readonly _font: EmbeddedFont;
    readonly _fontSize: number;
    registerFont(name: string, data: Buffer): this;
    font(name: string): this;
    fontSize(size: number): this;
    fillColor(color: string): this;
    text(text: string, x: number, y: number, options?: { lineBreak?: boolean }): this;
    widthOfString(text: string): number;
    addPage(): this;
    ref(data: object): { data: Record<string, unknown>; end(content: string): void };
    addContent(content: string): this;
    save(): this;
    restore(): this;
    transform(a: number, b: number, c: number, d: number, e: number, f: number): this;
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
    /** Lines under the title: what the report covers, its parameters, when and for whom it was made. */
    readonly lines: readonly string[];
    readonly footer: string;
}

export interface PdfOptions {
    readonly formats?: ReportFormats;
    /** The name of the column whose values group the records (they come ordered by it). */
    readonly groupBy?: string | undefined;
    /** The names of the numeric columns summed per group and at the end. */
    readonly totals?: readonly string[] | undefined;
    readonly documents?: DocumentsOfRecord | undefined;
}

const size = 8;
const lineHeight = 10;
const documentSize = 7;
const documentLineHeight = 9;
const documentIndent = 14;
const padding = 3;
const buffered = 256 * 1024;

// A value's text as drawn: control characters (which no font draws) as spaces, line breaks kept.
const drawable = (text: string) => text.replace(/\r\n?/g, '\n').replace(/[\u0000-\u0009\u000b-\u001f\u007f]/g, ' ');

// A document's line: name · what it is · description · who attached it and when (a URL document: its address
// in place of its type and size).
export const documentLine = (document: ReportAttachment, formats: ReportFormats = defaultFormats): string => {

    const what = document.urlType === 'URL' ? `URL ${document.urlname ?? ''}` : `${document.docType}, ${document.mimeType}, ${sizeText(document.attachmentSize)}`;
    const when = datetimeText(document.created, formats.datetimeFormat, formats.timeZone);
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

interface Cell {
    readonly x: number;
    readonly width: number;
    readonly lines: readonly string[];
    readonly right?: boolean;
}

export const pdfStream = (head: PdfHead, columns: readonly ReportColumn[], batches: AsyncIterable<readonly Record<string, unknown>[]>, options: PdfOptions = {}): Readable => {

    const { documents } = options;
    const doc = new PDFDocument({ size: 'A4', layout: columns.length > 5 ? 'landscape' : 'portrait', margin: 36, fontLayoutCache: false, info: { Title: head.title, Creator: 'Osprey' } });
    registerFonts(doc);
    const covers = coverage(doc);
    const { left, right, top, bottom } = doc.page.margins;
    const usable = doc.page.width - left - right;
    const limit = doc.page.height - bottom;
    const texts = columns.map((column) => pdfCellText(column, options.formats ?? defaultFormats));
    const group = columns.findIndex((column) => column.name === options.groupBy);
    const summed = columns.map((column) => options.totals?.includes(column.name) ?? false);
    let widths: number[] = [];
    let xs: number[] = [];
    let y = top;

    const measure = (bold: boolean, points = size) => {

        return (text: string) => {

            useFont(doc, fontOf(covers, text, bold));
            return doc.fontSize(points).widthOfString(text);
        };
    };

    const plain = measure(false);
    const strong = measure(true);

    const draw = (text: string, x: number, at: number, bold: boolean, points = size) => {

        useFont(doc, fontOf(covers, text, bold));
        doc.fontSize(points).text(text, x, at, { lineBreak: false });
    };

    // The columns' widths from the first records' texts and the titles (a sum gets room for more digits).
    const layout = (records: readonly Record<string, unknown>[]) => {

        const natural = columns.map((column, i) => {

            let widest = Math.max(...column.title.split(' ').map(strong), strong(column.title) / 2);
            for (const record of records) {
                for (const line of drawable(texts[i]!(columnValue(record, column))).split('\n')) {
                    widest = Math.max(widest, plain(line));
                }
            }

            return widest + (summed[i] ? plain('0000') : 0) + 2 * padding + 0.5;
        });
        widths = columnWidths(natural, columns.map((column) => column.family === 'string' || column.family === 'text'), columns.map((column) => column.width), usable);
        xs = widths.map((_, i) => left + widths.slice(0, i).reduce((sum, width) => sum + width, 0));
    };

    const cells = (values: readonly string[], bold: boolean): Cell[] => {

        return values.map((value, i) => ({ x: xs[i]!, width: widths[i]!, lines: wrap(bold ? strong : plain, drawable(value), widths[i]! - 2 * padding), right: columns[i]!.numeric && !bold }));
    };

    const tableWidth = () => widths.reduce((sum, width) => sum + width, 0);

    let header = () => undefined as void;

    // The number of pages, drawn on each page's footer and written at the end.
    const pages = doc.ref({ Type: 'XObject', Subtype: 'Form', BBox: [0, -5, 100, 10] });
    let page = 1;

    // Written into the bottom margin, where pdfkit would otherwise start a new page.
    const footer = () => {

        const margin = doc.page.margins.bottom;
        doc.page.margins.bottom = 0;
        doc.fillColor('#555555');
        const at = doc.page.height - margin + 12;
        draw(head.footer.replace(/\s+/g, ' '), left, at, false, 7);
        const number = `Page ${page} of `;
        const x = left + usable - 60;
        draw(number, x, at, false, 7);
        // Where pdfkit put the text's baseline, in the page's own coordinates (pdfkit's run from the top).
        const baseline = doc.page.height - at - doc._font.ascender / 1000 * doc._fontSize;
        doc.page.xobjects.Pages = pages;
        doc.save().transform(1, 0, 0, -1, 0, doc.page.height).addContent(`1 0 0 1 ${x + measure(false, 7)(number)} ${baseline} cm /Pages Do`).restore();
        doc.page.margins.bottom = margin;
    };

    const newPage = () => {

        footer();
        ++page;
        doc.addPage();
        y = top;
        header();
    };

    // A row of cells, on the next page when it does not fit on this one; a row taller than a page goes on over
    // as many pages as it needs.
    const row = (line: readonly Cell[], { bold = false, shade = undefined as string | undefined, points = size, height = lineHeight, color = '#000000' } = {}) => {

        const count = Math.max(1, ...line.map((cell) => cell.lines.length));
        const room = Math.floor((limit - top - 2 * lineHeight - 4) / height);
        if (y + count * height + 4 > limit && count <= room) {
            newPage();
        }

        let from = 0;
        while (from < count) {
            if (y + height + 4 > limit) {
                newPage();
            }

            const to = Math.min(count, from + Math.floor((limit - y - 4) / height));
            if (shade) {
                // With documents listed under the rows, the shading spans the page as their lines do.
                doc.rect(left, y, documents ? usable : tableWidth(), (to - from) * height + 4).fill(shade);
            }

            doc.fillColor(color);
            const at = y + 2;
            for (const cell of line) {
                cell.lines.slice(from, to).forEach((text, k) => {

                    const x = cell.right ? cell.x + cell.width - padding - measure(bold, points)(text) : cell.x + padding;
                    draw(text, x, at + k * height, bold, points);
                });
            }

            y += (to - from) * height + 4;
            from = to;
        }
    };

    header = () => {

        row(cells(columns.map((column) => column.title), true));
        doc.moveTo(left, y).lineTo(left + tableWidth(), y).lineWidth(0.5).stroke('#555555');
    };

    // A sums' row: its label over the columns before the first sum (on a line of its own when a sum is first).
    const sums = (label: string, count: number, values: readonly number[]) => {

        const first = summed.indexOf(true);
        const text = `${label} (${count} ${count === 1 ? 'record' : 'records'})`;
        const span = first > 0 ? xs[first]! - left : 0;
        // A label wider than the columns before the first sum has a line of its own, as wide as the table.
        const apart = first <= 0 || strong(text) > span - 2 * padding;
        const labelCell: Cell = apart ? { x: left, width: tableWidth(), lines: wrap(strong, drawable(text), tableWidth() - 2 * padding) } : { x: left, width: span, lines: [text] };
        const sumCells: Cell[] = columns.flatMap((column, i) => (summed[i] ? [{ x: xs[i]!, width: widths[i]!, lines: wrap(strong, texts[i]!(values[i]), widths[i]! - 2 * padding), right: true }] : []));
        doc.moveTo(left, y).lineTo(left + tableWidth(), y).lineWidth(0.5).stroke('#999999');
        if (!apart) {
            return row([labelCell, ...sumCells], { bold: true });
        }

        row([labelCell], { bold: true });
        if (sumCells.length) {
            row(sumCells, { bold: true });
        }
    };

    // The number of pages, once the last is done: its digits in Noto Sans, as the footers' text.
    const pageCount = () => {

        const font = useFont(doc, 'regular');
        const [glyphs] = font.encode(String(page));
        pages.data.Resources = { Font: { [font.id]: font.ref() } };
        pages.end(`BT /${font.id} 7 Tf 0.333 0.333 0.333 rg [<${glyphs.join('')}>] TJ ET`);
    };

    // Piped at once, so the document flows only as fast as the client reads (and `drained` may watch its data).
    const sink = new PassThrough();
    doc.pipe(sink);
    const write = async () => {

        const full = { x: left, width: usable };
        row([{ ...full, lines: wrap(measure(true, 14), drawable(head.title), usable) }], { bold: true, points: 14, height: 18 });
        for (const line of head.lines) {
            row([{ ...full, lines: wrap(plain, drawable(line), usable - 2 * padding) }], { color: '#555555' });
        }

        y += 6;
        let shaded = false;
        let count = 0;
        const totals = columns.map(() => 0);
        let groupKey: string | undefined;
        let groupCount = 0;
        let groupTotals = columns.map(() => 0);
        const subtotal = () => {

            sums(`Subtotal ${groupKey || '(none)'}`, groupCount, groupTotals);
            y += 4;
        };

        // Rendering is the slow part of a large report: it gives the event loop turns as it goes (src/slices.ts).
        const pause = slicer();
        for await (const records of batches) {
            if (!count && records.length) {
                layout(records);
                header();
            }

            for (const record of records) {
                await pause();
                const values = columns.map((column) => columnValue(record, column));
                if (group >= 0) {
                    const key = texts[group]!(values[group]);
                    if (!groupCount || key !== groupKey) {
                        if (groupCount) {
                            subtotal();
                        }

                        groupKey = key;
                        groupCount = 0;
                        groupTotals = columns.map(() => 0);
                        row([{ x: left, width: tableWidth(), lines: wrap(strong, drawable(`${columns[group]!.title}: ${key || '(none)'}`), tableWidth() - 2 * padding) }], { bold: true });
                        shaded = false;
                    }
                }

                for (let i = 0; i < columns.length; ++i) {
                    if (summed[i] && typeof values[i] === 'number') {
                        totals[i] += values[i] as number;
                        groupTotals[i] += values[i] as number;
                    }
                }

                ++count;
                ++groupCount;
                row(cells(values.map((value, i) => texts[i]!(value)), false), shaded ? { shade: '#f0f0f0' } : {});
                for (const document of documents?.(record) ?? []) {
                    row([{ x: left + documentIndent, width: usable - documentIndent, lines: wrap(measure(false, documentSize), documentLine(document, options.formats).replace(/\s+/g, ' '), usable - documentIndent - padding) }], { points: documentSize, height: documentLineHeight, color: '#333333', ...shaded ? { shade: '#f0f0f0' } : {} });
                }

                shaded = !shaded;
            }

            await drained(doc, sink);
            if (sink.destroyed) {
                return doc.destroy();
            }
        }

        if (!count) {
            layout([]);
            header();
        }

        if (group >= 0 && groupCount) {
            subtotal();
        }

        sums('Total', count, totals);
        footer();
        pageCount();
        doc.end();
    };

    write().catch((error: Error) => {

        doc.destroy();
        sink.destroy(error);
    });
    return sink;
};
