import Joi from 'joi';
import type { Knex } from 'knex';


// The one table that interprets Maximo's attribute types: the column each becomes, how input is validated,
// and how stored values are written to JSON. Nothing else in the code base switches on a Maximo type.

export const maximoTypeNames = ['upper', 'aln', 'lower', 'integer', 'smallint', 'bigint', 'decimal', 'amount', 'date', 'datetime', 'yorn', 'clob'] as const;
export type MaximoTypeName = typeof maximoTypeNames[number];

export const isMaximoType = (value: unknown): value is MaximoTypeName => maximoTypeNames.includes(value as MaximoTypeName);

export interface TypedAttribute {
    readonly type: MaximoTypeName;
    readonly length?: number;
    readonly scale?: number;
}

export type JsonValue = string | number | boolean | null;
export type ColumnFamily = 'string' | 'integer' | 'decimal' | 'date' | 'datetime' | 'boolean' | 'text';

interface TypeEntry {
    readonly family: ColumnFamily;
    readonly jsonType: 'string' | 'integer' | 'number' | 'boolean';
    readonly defaultLength?: number;
    readonly defaultScale?: number;
    /** The whole numbers an integer column holds (its input's min and max). */
    readonly range?: readonly [number, number];
    readonly column: (table: Knex.CreateTableBuilder | Knex.AlterTableBuilder, name: string, attr: TypedAttribute) => Knex.ColumnBuilder;
    readonly input: (attr: TypedAttribute) => Joi.Schema;
}

const two = (value: number) => String(value).padStart(2, '0');

// Years are written with four digits, as ISO-8601 and both databases read them: year 99 is 0099.
const year = (value: Date) => String(value.getUTCFullYear()).padStart(4, '0');

// Datetimes are stored and compared as UTC; the wire form is ISO-8601 with an explicit offset, to the second.
export const formatDatetime = (value: Date): string => {

    return `${year(value)}-${two(value.getUTCMonth() + 1)}-${two(value.getUTCDate())}T${two(value.getUTCHours())}:${two(value.getUTCMinutes())}:${two(value.getUTCSeconds())}+00:00`;
};

export const formatDate = (value: Date): string => `${year(value)}-${two(value.getUTCMonth() + 1)}-${two(value.getUTCDate())}`;

// The decimal places a number has, read from its shortest text: 1e-7 has 7 and 1.5e-7 has 8, though neither text
// holds a point. Counting only what follows a point let 1e-7 through a scale of 2, and the databases then
// disagreed on what was stored (SQLite 1e-7, PostgreSQL 0.00).
export const decimalPlaces = (value: number): number => {

    const [mantissa = '', exponent = '0'] = String(value).split('e');
    const point = mantissa.indexOf('.');
    return Math.max(0, (point === -1 ? 0 : mantissa.length - point - 1) - Number(exponent));
};

const maxDecimals = (scale: number) => {

    return (value: number, helpers: Joi.CustomHelpers) => (decimalPlaces(value) > scale ? helpers.error('number.scale', { limit: scale }) : value);
};

// A lone surrogate is no character: SQLite would store it as invalid UTF-8 that no read can return, and
// PostgreSQL refuses it. Text must be well-formed Unicode.
export const loneSurrogate = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

const text = () => {

    return Joi.string().allow('').custom((value: string, helpers) => (loneSurrogate.test(value) ? helpers.error('string.unicode') : value))
        .messages({ 'string.unicode': '{{#label}} must be well-formed Unicode text (it holds a lone surrogate)' });
};

const string = (attr: TypedAttribute, fallback: number) => text().max(attr.length ?? fallback);

// An upper or lower attribute stores its value in that case, as Maximo does, but a letter whose case changes into
// more than one letter (ß → SS, ﬁ → FI, İ → i̇) or into an ASCII letter it is not (ı → I, ſ → S, the Kelvin sign
// → k) would store another text than the one sent, and join two names into one (`STRAßE` stored as `STRASSE`, a
// user ID as another's): it is refused, checked on the value as sent (before Joi changes its case).
const foldsAway = (sent: string, change: (letter: string) => string): boolean => {

    for (const letter of sent) {
        if (letter.charCodeAt(0) < 128) {
            continue;
        }

        const changed = change(letter);
        if (changed.length !== letter.length || /[\x00-\x7f]/.test(changed)) {
            return true;
        }
    }

    return false;
};

const cased = (attr: TypedAttribute, fallback: number, upper: boolean) => {

    const change = upper ? (letter: string) => letter.toUpperCase() : (letter: string) => letter.toLowerCase();
    const base = string(attr, fallback).custom((value: string, helpers) => (typeof helpers.original === 'string' && foldsAway(helpers.original, change) ? helpers.error('string.folds') : value))
        .messages({ 'string.folds': `{{#label}} holds a letter whose ${upper ? 'upper' : 'lower'} case is another text (such as ß, ﬁ, ı, ſ or İ), so it would not be stored as sent: write it as it is to be stored` });
    return upper ? base.uppercase() : base.lowercase();
};

// Years 0001 to 9999, the range both databases and ISO-8601's four-digit form share: a year 0 or 10000 would be
// stored in a form that compares wrongly as text (SQLite) or fails (PostgreSQL).
// A day the month does not have (2024-02-30) is refused, not rolled into the next month as Date would.
// Whether the month of year `y` has the day (months 1 to 12); a query's date is checked by it too (compile-where.ts).
export const monthHasDay = (y: number, month: number, day: number): boolean => month >= 1 && month <= 12 && day >= 1 && day <= new Date(Date.UTC(y, month, 0)).getUTCDate();

const realDay = (value: unknown, helpers: Joi.CustomHelpers) => {

    const [, y, month, day] = /^([+-]?\d{4,6})-(\d{2})-(\d{2})/.exec(String(helpers.original)) ?? [];
    if (y !== undefined && !monthHasDay(Number(y), Number(month), Number(day))) {
        return helpers.error('date.day');
    }

    return value;
};

export const dateInput = (): Joi.DateSchema => {

    return Joi.date().iso().min('0001-01-01T00:00:00.000Z').max('9999-12-31T23:59:59.999Z').custom(realDay)
        .messages({ 'date.min': '{{#label}} must be a date in the years 0001 to 9999', 'date.max': '{{#label}} must be a date in the years 0001 to 9999', 'date.day': '{{#label}} names a day its month does not have' });
};

// A date attribute keeps the day the text names, whatever time and offset follow it: `2025-03-04T23:30:00-05:00`
// is 4 March, as written (its instant falls on 5 March in UTC, a day the client never named), and the midnight
// UTC a date is answered as (`2025-03-04T00:00:00+00:00`) reads back as the same day.
const writtenDay = (value: unknown, helpers: Joi.CustomHelpers) => {

    const [, y, month, day] = /^(\d{4})-(\d{2})-(\d{2})/.exec(String(helpers.original)) ?? [];
    if (y === undefined) {
        return value;
    }

    const date = new Date(Date.UTC(2000, Number(month) - 1, Number(day)));
    date.setUTCFullYear(Number(y));
    return date;
};

const dayInput = (): Joi.DateSchema => dateInput().custom(writtenDay);

const integer = ([min, max]: readonly [number, number]) => Joi.number().integer().min(min).max(max);

const int32 = [-(2 ** 31), 2 ** 31 - 1] as const;
const int16 = [-32768, 32767] as const;
const safe = [Number.MIN_SAFE_INTEGER, Number.MAX_SAFE_INTEGER] as const;

const decimal = (attr: TypedAttribute, precision: number, scale: number) => {

    const digits = (attr.length ?? precision) - (attr.scale ?? scale);
    const limit = 10 ** digits;
    return Joi.number().greater(-limit).less(limit).custom(maxDecimals(attr.scale ?? scale))
        .messages({ 'number.scale': '{{#label}} must have no more than {{#limit}} decimal places' });
};

export const typeTable: Record<MaximoTypeName, TypeEntry> = {
    upper: { family: 'string', jsonType: 'string', defaultLength: 30, column: (t, n, a) => t.string(n, a.length ?? 30), input: (a) => cased(a, 30, true) },
    aln: { family: 'string', jsonType: 'string', defaultLength: 100, column: (t, n, a) => t.string(n, a.length ?? 100), input: (a) => string(a, 100) },
    lower: { family: 'string', jsonType: 'string', defaultLength: 100, column: (t, n, a) => t.string(n, a.length ?? 100), input: (a) => cased(a, 100, false) },
    integer: { family: 'integer', jsonType: 'integer', range: int32, column: (t, n) => t.integer(n), input: () => integer(int32) },
    smallint: { family: 'integer', jsonType: 'integer', range: int16, column: (t, n) => t.smallint(n), input: () => integer(int16) },
    bigint: { family: 'integer', jsonType: 'integer', range: safe, column: (t, n) => t.bigInteger(n), input: () => integer(safe) },
    decimal: { family: 'decimal', jsonType: 'number', defaultLength: 15, defaultScale: 2, column: (t, n, a) => t.decimal(n, a.length ?? 15, a.scale ?? 2), input: (a) => decimal(a, 15, 2) },
    amount: { family: 'decimal', jsonType: 'number', defaultLength: 15, defaultScale: 2, column: (t, n, a) => t.decimal(n, a.length ?? 15, a.scale ?? 2), input: (a) => decimal(a, 15, 2) },
    date: { family: 'date', jsonType: 'string', column: (t, n) => t.date(n), input: dayInput },
    datetime: { family: 'datetime', jsonType: 'string', column: (t, n) => t.timestamp(n, { useTz: true }), input: dateInput },
    yorn: { family: 'boolean', jsonType: 'boolean', column: (t, n) => t.boolean(n), input: () => Joi.boolean().truthy(1, '1', 'Y', 'y').falsy(0, '0', 'N', 'n') },
    clob: { family: 'text', jsonType: 'string', column: (t, n) => t.text(n), input: text }
};

// A validated input value as it is bound in SQL. Both databases store datetimes as UTC instants and dates as
// 'YYYY-MM-DD', so comparisons give the same answer on SQLite and PostgreSQL.
export const toDb = (attr: TypedAttribute, value: unknown): unknown => {

    if (value === null || value === undefined || value === '') {
        return null;
    }

    switch (typeTable[attr.type].family) {
        case 'date': return formatDate(value as Date);
        case 'datetime': return new Date(Math.floor((value as Date).getTime() / 1000) * 1000).toISOString();
        default: return value;
    }
};

// A datetime as SQLite keeps it (toDb: toISOString of a whole second): its wire form is its first 19
// characters with the offset, without parsing it into a Date and writing it out again (which showed in the
// profile of a record read). Only text that names a real instant is cut; other text (written around toDb: a
// 30 February, an hour 24) is parsed and formatted as before, so its answer does not change.
const storedInstant = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;

const monthDays = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

const realInstant = (stored: string): boolean => {

    if (!storedInstant.test(stored)) {
        return false;
    }

    const y = Number(stored.slice(0, 4));
    const month = Number(stored.slice(5, 7));
    const day = Number(stored.slice(8, 10));
    const leap = month === 2 && y % 4 === 0 && (y % 100 !== 0 || y % 400 === 0);
    return month >= 1 && month <= 12 && day >= 1 && day <= monthDays[month - 1]! + (leap ? 1 : 0) &&
        Number(stored.slice(11, 13)) < 24 && Number(stored.slice(14, 16)) < 60 && Number(stored.slice(17, 19)) < 60;
};

type ToJson = (value: unknown) => JsonValue;

// A null is null whatever the family.
const orNull = (convert: (value: unknown) => JsonValue): ToJson => {

    return (value) => (value === null || value === undefined ? null : convert(value));
};

// A stored value of each family as it goes on the wire. Drivers differ (SQLite: 0/1 and strings; pg: booleans
// and Dates).
const jsonOf: Readonly<Record<ColumnFamily, ToJson>> = {
    integer: orNull(Number),
    decimal: orNull(Number),
    boolean: orNull((value) => value === true || value === 1 || value === '1' || value === 't'),
    date: orNull((value) => `${value instanceof Date ? formatDate(value) : String(value).slice(0, 10)}T00:00:00+00:00`),
    datetime: orNull((value) => (typeof value === 'string' && realInstant(value) ? `${value.slice(0, 19)}+00:00` : formatDatetime(value instanceof Date ? value : new Date(String(value))))),
    string: orNull(String),
    text: orNull(String)
};

// How a stored value of an attribute's type goes on the wire, chosen once (a record renders every attribute).
export const jsonConverter = (attr: TypedAttribute): ToJson => jsonOf[typeTable[attr.type].family];

export const toJson = (attr: TypedAttribute, value: unknown): JsonValue => jsonConverter(attr)(value);
