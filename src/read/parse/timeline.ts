import { QueryError } from './query-error';


// Timeline filters (IBM's REST API guide, "Timeline Filters"): the rows whose date attribute lies in a range
// counted from an index date, which is now unless tlattribute names one.
//
//   tlrange=-3M                          from 3 months before the index date up to it
//   tlrange=+3M                          from the index date up to 3 months after it
//   tlrange=+-3Y                         3 years either side of it
//   tlattribute=reportdate               the attribute, indexed on now
//   tlattribute=reportdate=2024-06-30    indexed on that date (ISO 8601; without an offset, UTC)
//
// Units are Y (years), M (months), W (weeks) and D (days), in upper case. Both ends are included. Years and
// months move the calendar in UTC, keeping the time of day, and a day the target month lacks becomes its last
// (31 March - 1M = 28 or 29 February). In a URL query `+` decodes to a space, so a leading space reads as `+`,
// and so does a space before an offset's hours.

export interface TimelineIndex {
    readonly name: string;
    /** The index date, when tlattribute gives one. */
    readonly index?: Date;
}

export interface TimelineRange {
    readonly from: Date;
    readonly to: Date;
}

const daysIn = (year: number, month: number) => new Date(Date.UTC(year, month + 1, 0)).getUTCDate();

const addMonths = (date: Date, amount: number): Date => {

    const total = date.getUTCFullYear() * 12 + date.getUTCMonth() + amount;
    const year = Math.floor(total / 12);
    const month = total - year * 12;
    const moved = new Date(date.getTime());
    moved.setUTCFullYear(year, month, Math.min(date.getUTCDate(), daysIn(year, month)));
    return moved;
};

type Move = (date: Date, amount: number) => Date;

const units = new Map<string, Move>([
    ['Y', (date, amount) => addMonths(date, amount * 12)],
    ['M', addMonths],
    ['W', (date, amount) => new Date(date.getTime() + amount * 7 * 86_400_000)],
    ['D', (date, amount) => new Date(date.getTime() + amount * 86_400_000)]
]);

// Years outside 0001–9999 have no common form on both databases (as in oslc.where).
const inYears = (date: Date) => date.getUTCFullYear() >= 1 && date.getUTCFullYear() <= 9999;

const rangeRx = /^(\+-|\+|-)(\d{1,4})([A-Za-z]?)$/;

export const parseTimelineRange = (text: string, index: Date, parameter = 'tlrange'): TimelineRange => {

    const source = text.replace(/^ /, '+');
    const match = rangeRx.exec(source);
    if (!match) {
        throw new QueryError(parameter, 1, `expected a sign (-, + or +-), a whole number and a unit (Y, M, W or D), such as -3M or +-1Y; found ${JSON.stringify(text)}`);
    }

    const [, sign, digits, unit] = match as unknown as [string, string, string, string];
    const move = units.get(unit);
    if (!move) {
        throw new QueryError(parameter, sign.length + digits.length + 1, `expected a unit: Y (years), M (months), W (weeks) or D (days); found ${JSON.stringify(unit)}`);
    }

    const amount = Number(digits);
    const range = { from: sign === '+' ? index : move(index, -amount), to: sign === '-' ? index : move(index, amount) };
    if (!inYears(range.from) || !inYears(range.to)) {
        throw new QueryError(parameter, 1, `${text} reaches beyond the years 0001-9999`);
    }

    return range;
};

// An ISO 8601 date or datetime: YYYY-MM-DD, optionally Thh:mm[:ss[.fff]] and Z or ±hh:mm.
const dateRx = /^(\d{4})-(\d\d)-(\d\d)(?:T(\d\d):(\d\d)(?::(\d\d)(?:\.(\d{1,9}))?)?(Z|[+-]\d\d:?\d\d)?)?$/;

const parseIndexDate = (text: string, parameter: string, position: number): Date => {

    const source = text.replace(/^"(.*)"$/, '$1').replace(/ (\d\d:?\d\d)$/, '+$1');
    const match = dateRx.exec(source);
    const fail = () => new QueryError(parameter, position, `expected an ISO 8601 date such as 2024-06-30 or 2024-06-30T12:00:00Z after "="; found ${JSON.stringify(text)}`);
    if (!match) {
        throw fail();
    }

    const [year, month, day, hours = 0, minutes = 0, seconds = 0] = match.slice(1, 7).map((part) => (part === undefined ? undefined : Number(part)));
    const millis = Number(`0.${match[7] ?? '0'}`) * 1000;
    const offset = match[8] && match[8] !== 'Z' ? (match[8].startsWith('-') ? -1 : 1) * (Number(match[8].slice(1, 3)) * 60 + Number(match[8].slice(-2))) : 0;
    // An offset is at most ±14:00 (UTC+14 is the earliest zone), its minutes below 60.
    const badOffset = Math.abs(offset) > 14 * 60 || (match[8] !== undefined && match[8] !== 'Z' && Number(match[8].slice(-2)) > 59);
    if (badOffset || month! < 1 || month! > 12 || day! < 1 || day! > daysIn(year!, month! - 1) || hours! > 23 || minutes! > 59 || seconds! > 59) {
        throw fail();
    }

    const local = new Date(Date.UTC(year!, month! - 1, day!, hours, minutes, seconds, millis));
    local.setUTCFullYear(year!, month! - 1, day!);      // Date.UTC reads the years 0–99 as 1900–1999
    const utc = new Date(local.getTime() - offset * 60_000);
    if (!inYears(utc)) {
        throw fail();
    }

    return utc;
};

// tlattribute: `name` or `name=<ISO date>`.
export const parseTimelineAttribute = (text: string, parameter = 'tlattribute'): TimelineIndex => {

    const equals = text.indexOf('=');
    const name = (equals < 0 ? text : text.slice(0, equals)).trim().toLowerCase();
    if (!/^[a-z_][a-z0-9_]*$/.test(name)) {
        throw new QueryError(parameter, 1, `expected the name of a date attribute, optionally followed by "=" and an ISO 8601 date; found ${JSON.stringify(text)}`);
    }

    return equals < 0 ? { name } : { name, index: parseIndexDate(text.slice(equals + 1).trim(), parameter, equals + 2) };
};
