import { sizeText, type DocumentsOfRecord, type ReportAttachment } from './attachments';
import type { ReportColumn } from './columns';
import { columnValue } from './columns';
import { csvCell, defaultFormats, type CellText, type ReportFormats } from './format';


// RFC 4180 CSV: a header line of the column titles (the PDF's), optionally after a UTF-8 byte-order mark (which
// spreadsheets need to read UTF-8 rather than their local code page), then one line per record, CRLF line ends. A field with a
// comma, quote or line break is quoted. A text that a spreadsheet would run as a formula (it starts with =, +, -,
// @, tab or carriage return) is prefixed with an apostrophe, as OWASP advises for CSV exports; numbers never are.

const quoted = /[",\r\n]/;

// The first characters that start a formula: = + - @ tab and carriage return, tested by code (a report tests every
// text field it writes; a regular expression here cost as much again as the test for quoting).
const formulaStart = new Set([0x3d, 0x2b, 0x2d, 0x40, 0x09, 0x0d]);

export const csvField = (value: unknown): string => {

    if (value === null || value === undefined) {
        return '';
    }

    // A number's text never starts a formula nor holds a comma, quote or line break.
    if (typeof value === 'number') {
        return String(value);
    }

    const text = typeof value === 'string' && formulaStart.has(value.charCodeAt(0)) ? `'${value}` : String(value);
    return quoted.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
};

// With attachment=1, one more column, `attachments`: each document of the record as "name (size)" (a URL
// document: "name (address)"), joined by "; ". A column rather than a row per document, so that the CSV stays one
// row per record: a spreadsheet user sorts, filters, counts and pivots records, and rows of documents would repeat
// (or leave blank) the record's values and count a record once per document. The documents' other details (type,
// description, who attached them and when) are in the JSON and PDF reports.
export const attachmentsField = (documents: readonly ReportAttachment[]): string => documents.map((document) => `${document.fileName} (${document.urlType === 'URL' ? document.urlname ?? '' : sizeText(document.attachmentSize)})`).join('; ');

// One line per record, built by concatenation: a report renders every one of its rows through here (the arrays
// of fields and lines that map and join made were a tenth of a CSV report's time on the event loop).
const csvBatch = (columns: readonly ReportColumn[], cells: readonly (CellText | undefined)[], records: readonly Record<string, unknown>[], documents: DocumentsOfRecord | undefined): string => {

    let text = '';
    for (const record of records) {
        let line = '';
        for (let i = 0; i < columns.length; ++i) {
            const value = columnValue(record, columns[i]!);
            const cell = cells[i];
            const field = cell ? cell(value) : csvField(value);
            line += i ? `,${field}` : field;
        }

        if (documents) {
            line += `,${csvField(attachmentsField(documents(record)))}`;
        }

        text += `${line}\r\n`;
    }

    return text;
};

export interface CsvOptions {
    readonly bom?: boolean;
    readonly formats?: ReportFormats;
    readonly documents?: DocumentsOfRecord | undefined;
}

export const csvLines = async function* (columns: readonly ReportColumn[], batches: AsyncIterable<readonly Record<string, unknown>[]>, options: CsvOptions = {}): AsyncGenerator<string> {

    const { documents } = options;
    const cells = columns.map((column) => csvCell(column, options.formats ?? defaultFormats));
    yield `${options.bom ? '\ufeff' : ''}${[...columns.map((column) => column.title), ...documents ? ['Attachments'] : []].map(csvField).join(',')}\r\n`;
    for await (const records of batches) {
        yield csvBatch(columns, cells, records, documents);
    }
};
