import type { ReportColumn } from './columns';


// How a report prints its values. A datetime prints in the report's time zone (its YAML `timezone`, else
// OSPREY_REPORT_TIMEZONE, else UTC) with a pattern of YYYY, MM, DD, HH, mm and ss; a date is a calendar day and
// prints without a zone; a decimal prints with its attribute's scale. The PDF uses the report's patterns
// (`dateFormat`, `datetimeFormat`, a column's `format`); the CSV, read by programs and spreadsheets, always
// writes ISO 8601: YYYY-MM-DD for a date and YYYY-MM-DDTHH:mm:ss±hh:mm in the report's zone for a datetime.

export interface ReportFormats {
    readonly timeZone: string;
    readonly dateFormat: string;
    readonly datetimeFormat: string;
}

export const defaultFormats: ReportFormats = { timeZone: 'UTC', dateFormat: 'YYYY-MM-DD', datetimeFormat: 'YYYY-MM-DD HH:mm' };

type Parts = Readonly<Record<'YYYY' | 'MM' | 'DD' | 'HH' | 'mm' | 'ss', string>>;

const tokens = /YYYY|MM|DD|HH|mm|ss/g;

const fill = (pattern: string, parts: Parts) => pattern.replace(tokens, (token) => parts[token as keyof Parts]);

// One formatter per zone: making one is far dearer than using it.
const formatters = new Map<string, Intl.DateTimeFormat>();

const formatterOf = (timeZone: string) => {

    let formatter = formatters.get(timeZone);
    if (!formatter) {
        formatter = new Intl.DateTimeFormat('en-GB', { timeZone, year: 'numeric', month: '2-digit', day: '2-digit', hour: '2-digit', minute: '2-digit', second: '2-digit', hourCycle: 'h23' });
        formatters.set(timeZone, formatter);
    }

    return formatter;
};

// The wall-clock parts of an instant in a zone, and the zone's offset from UTC then (minutes).
export const zonedParts = (instant: Date, timeZone: string): { parts: Parts; offset: number } => {

    const parts: Record<string, string> = {};
    for (const { type, value } of formatterOf(timeZone).formatToParts(instant)) {
        parts[type] = value;
    }

    const wall = Date.UTC(Number(parts.year), Number(parts.month) - 1, Number(parts.day), Number(parts.hour), Number(parts.minute), Number(parts.second));
    const offset = Math.round((wall - Math.floor(instant.getTime() / 1000) * 1000) / 60000);
    return { parts: { YYYY: parts.year!, MM: parts.month!, DD: parts.day!, HH: parts.hour!, mm: parts.minute!, ss: parts.second! }, offset };
};

const offsetText = (minutes: number) => {

    const size = Math.abs(minutes);
    return `${minutes < 0 ? '-' : '+'}${String(Math.floor(size / 60)).padStart(2, '0')}:${String(size % 60).padStart(2, '0')}`;
};

// A date's text (YYYY-MM-DD…, as records render it) in a pattern; its time parts are zeros.
const dayText = (value: string, pattern: string) => fill(pattern, { YYYY: value.slice(0, 4), MM: value.slice(5, 7), DD: value.slice(8, 10), HH: '00', mm: '00', ss: '00' });

export const datetimeText = (value: string | Date, pattern: string, timeZone: string): string => {

    const instant = typeof value === 'string' ? new Date(value) : value;
    return fill(pattern, zonedParts(instant, timeZone).parts);
};

// ISO 8601 in the zone, with its offset; records render datetimes in UTC already (…+00:00), so the default zone
// costs nothing.
export const isoDatetime = (value: string, timeZone: string): string => {

    if (timeZone === 'UTC') {
        return value;
    }

    const { parts, offset } = zonedParts(new Date(value), timeZone);
    return `${fill('YYYY-MM-DDTHH:mm:ss', parts)}${offsetText(offset)}`;
};

const numberText = (column: ReportColumn) => {

    const { scale } = column;
    return scale === undefined ? String : (value: number) => value.toFixed(scale);
};

export type CellText = (value: unknown) => string;

// A column's printer for the PDF: its values as a planner reads them; null is empty.
export const pdfCellText = (column: ReportColumn, formats: ReportFormats): CellText => {

    const { family } = column;
    const text = family === 'datetime' ? (value: unknown) => datetimeText(String(value), column.format ?? formats.datetimeFormat, formats.timeZone) :
        family === 'date' ? (value: unknown) => dayText(String(value), column.format ?? formats.dateFormat) :
            family === 'integer' || family === 'decimal' ? numberText(column) as (value: unknown) => string :
                family === 'boolean' ? (value: unknown) => (value ? 'Y' : 'N') :
                    (value: unknown) => String(value);
    return (value) => (value === null || value === undefined ? '' : text(value));
};

// A column's field for the CSV when its values need printing: numbers with their scale and ISO dates, which
// programs and spreadsheets read back (never quoted nor taken for a formula: "-2.50" is a number, not a formula);
// undefined where a value is written as it is (a string, an integer, a boolean), so that those cost nothing more.
export const csvCell = (column: ReportColumn, formats: ReportFormats): CellText | undefined => {

    switch (column.family) {
        case 'datetime':
            return (value) => (typeof value === 'string' ? isoDatetime(value, formats.timeZone) : '');
        case 'date':
            return (value) => (typeof value === 'string' ? value.slice(0, 10) : '');
        case 'decimal':
            return (value) => (typeof value === 'number' ? value.toFixed(column.scale ?? 2) : '');
        default:
            return undefined;
    }
};
