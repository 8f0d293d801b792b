import type { ReportColumn } from './columns';
import { columnValue } from './columns';


// RFC 4180 CSV: a header line of the column names, then one line per record, CRLF line ends. A field with a
// comma, quote or line break is quoted. A text that a spreadsheet would run as a formula (it starts with =, +, -,
// @, tab or carriage return) is prefixed with an apostrophe, as OWASP advises for CSV exports; numbers never are.

const formula = /^[=+\-@\t\r]/;

export const csvField = (value: unknown): string => {

    if (value === null || value === undefined) {
        return '';
    }

    const text = typeof value === 'string' && formula.test(value) ? `'${value}` : String(value);
    return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
};

export const csvLines = async function* (columns: readonly ReportColumn[], batches: AsyncIterable<readonly Record<string, unknown>[]>): AsyncGenerator<string> {

    yield `${columns.map((column) => csvField(column.name)).join(',')}\r\n`;
    for await (const records of batches) {
        yield records.map((record) => `${columns.map((column) => csvField(columnValue(record, column))).join(',')}\r\n`).join('');
    }
};
