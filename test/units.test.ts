import * as Code from '@hapi/code';
import * as Lab from '@hapi/lab';
import * as fc from 'fast-check';

import { createKnex, databaseVersion, isPostgres, pgTypes } from '../src/db/knex';
import { toMaximoBody } from '../src/errors/edge';
import { attributeError, batchedError } from '../src/errors/maximo-error';
import { formatDatetime, toDb, toJson, typeTable, type TypedAttribute } from '../src/structures/types';


const { experiment, test } = exports.lab = Lab.script();
const { expect } = Code;

experiment('the Maximo type table', () => {

    const accepts = (attr: TypedAttribute, value: unknown) => typeTable[attr.type].input(attr).validate(value);

    test('validates input per type', () => {

        expect(accepts({ type: 'upper', length: 5 }, 'abc').value).to.equal('ABC');
        expect(accepts({ type: 'lower' }, 'ABC').value).to.equal('abc');
        expect(accepts({ type: 'aln', length: 3 }, 'abcd').error!.message).to.contain('length must be less than or equal to 3');
        expect(accepts({ type: 'integer' }, 1.5).error).to.exist();
        expect(accepts({ type: 'smallint' }, 40000).error).to.exist();
        expect(accepts({ type: 'bigint' }, 2 ** 40).value).to.equal(2 ** 40);
        expect(accepts({ type: 'decimal', length: 5, scale: 2 }, 123.45).value).to.equal(123.45);
        expect(accepts({ type: 'decimal', length: 5, scale: 2 }, 1.234).error!.message).to.contain('no more than 2 decimal places');
        expect(accepts({ type: 'amount' }, 1e14).error).to.exist();
        expect(accepts({ type: 'yorn' }, 'Y').value).to.equal(true);
        expect(accepts({ type: 'yorn' }, 0).value).to.equal(false);
        expect(accepts({ type: 'date' }, '2026-01-05').value).to.be.a.date();
        expect(accepts({ type: 'datetime' }, 'yesterday').error).to.exist();
        expect(accepts({ type: 'clob' }, 'x'.repeat(100000)).error).to.not.exist();
    });

    test('converts to stored and wire values the same way on both databases', () => {

        expect(toDb({ type: 'aln' }, '')).to.equal(null);
        expect(toDb({ type: 'date' }, new Date('2026-01-05T23:00:00Z'))).to.equal('2026-01-05');
        expect(toDb({ type: 'datetime' }, new Date('2026-01-05T10:11:12.789+02:00'))).to.equal('2026-01-05T08:11:12.000Z');
        expect(toDb({ type: 'integer' }, 5)).to.equal(5);
        expect(toJson({ type: 'bigint' }, '42')).to.equal(42);
        expect(toJson({ type: 'yorn' }, 1)).to.equal(true);
        expect(toJson({ type: 'yorn' }, 0)).to.equal(false);
        expect(toJson({ type: 'yorn' }, 't')).to.equal(true);
        expect(toJson({ type: 'date' }, '2026-01-05')).to.equal('2026-01-05T00:00:00+00:00');
        expect(toJson({ type: 'date' }, new Date('2026-01-05T00:00:00Z'))).to.equal('2026-01-05T00:00:00+00:00');
        expect(toJson({ type: 'datetime' }, '2026-01-05T08:11:12.000Z')).to.equal('2026-01-05T08:11:12+00:00');
        expect(toJson({ type: 'datetime' }, new Date('2026-01-05T08:11:12Z'))).to.equal('2026-01-05T08:11:12+00:00');
        expect(toJson({ type: 'upper' }, 'X')).to.equal('X');
        expect(toJson({ type: 'upper' }, null)).to.equal(null);
        expect(formatDatetime(new Date(Date.UTC(2026, 11, 31, 23, 59, 59)))).to.equal('2026-12-31T23:59:59+00:00');
    });

    test('a datetime as SQLite keeps it renders as the instant it is, without being parsed', () => {

        // The text is cut rather than parsed (types.ts): for every instant of the years 0001 to 9999 as toDb
        // stores it, the cut text is the formatted instant.
        fc.assert(fc.property(fc.date({ min: new Date('0001-01-01T00:00:00Z'), max: new Date('9999-12-31T23:59:59Z'), noInvalidDate: true }), (date) => {

            const stored = toDb({ type: 'datetime' }, date) as string;
            expect(toJson({ type: 'datetime' }, stored)).to.equal(formatDatetime(new Date(stored)));
        }), { numRuns: 2000 });
        // Text of that form that names no real instant (written around toDb) renders as the parser makes it.
        const pad = (n: number, width = 2) => String(n).padStart(width, '0');
        fc.assert(fc.property(fc.integer({ min: 0, max: 9999 }), fc.integer({ min: 0, max: 13 }), fc.integer({ min: 0, max: 32 }), fc.integer({ min: 0, max: 25 }), fc.integer({ min: 0, max: 61 }), fc.integer({ min: 0, max: 61 }), (year, month, day, hour, minute, second) => {

            const text = `${pad(year, 4)}-${pad(month)}-${pad(day)}T${pad(hour)}:${pad(minute)}:${pad(second)}.000Z`;
            expect(toJson({ type: 'datetime' }, text), text).to.equal(formatDatetime(new Date(text)));
        }), { numRuns: 3000 });
        expect(toJson({ type: 'datetime' }, '2024-02-30T10:00:00.000Z')).to.equal('2024-03-01T10:00:00+00:00');
        expect(toJson({ type: 'datetime' }, '2024-02-29T10:00:00.000Z')).to.equal('2024-02-29T10:00:00+00:00');
        // Text in another form is parsed as before.
        expect(toJson({ type: 'datetime' }, '2026-01-05T10:11:12+02:00')).to.equal('2026-01-05T08:11:12+00:00');
        expect(toJson({ type: 'datetime' }, '2026-01-05 08:11:12')).to.equal(formatDatetime(new Date('2026-01-05 08:11:12')));
    });
});

experiment('the error shape', () => {

    test('attribute errors name the attribute and object path; batched errors list all', () => {

        const one = toMaximoBody(attributeError({ attribute: 'wonum', objectPath: 'MXAPIWODETAIL', message: 'wonum is required', reason: 'required' }), 'http://x/y', 'id-1');
        expect(one.Error).to.include({ message: 'BMXAA4195E - wonum is required', reasonCode: 'BMXAA4195E', statusCode: '400', errorattrname: 'wonum', errorobjpath: 'MXAPIWODETAIL' });
        const all = toMaximoBody(batchedError([
            { attribute: 'wonum', objectPath: 'MXAPIWODETAIL', message: 'wonum is required', reason: 'required' },
            { attribute: 'taskid', objectPath: 'MXAPIWODETAIL.woactivity', message: 'taskid must be a number' }
        ]), 'http://x/y', 'id-2');
        expect(all.Error.reasonCode).to.equal('BMXAA4195E');
        expect(all.attrerrors).to.equal([
            { Error: { message: 'BMXAA4195E - wonum is required', reasonCode: 'BMXAA4195E', statusCode: '400', errorattrname: 'wonum', errorobjpath: 'MXAPIWODETAIL' } },
            { Error: { message: 'BMXAA4214E - taskid must be a number', reasonCode: 'BMXAA4214E', statusCode: '400', errorattrname: 'taskid', errorobjpath: 'MXAPIWODETAIL.woactivity' } }
        ]);
        expect(one.attrerrors).to.not.exist();
        const plain = toMaximoBody(attributeError({ attribute: 'x', objectPath: '', message: 'bad' }), 'h', 'i');
        expect(plain.Error.reasonCode).to.equal('BMXAA4214E');
    });
});

experiment('database connections', () => {

    test('PostgreSQL values arrive as numbers and plain dates', () => {

        expect(pgTypes.getTypeParser(20)('9007199254740991')).to.equal(9007199254740991);
        expect(pgTypes.getTypeParser(1700)('12.50')).to.equal(12.5);
        expect(pgTypes.getTypeParser(1082)('2026-01-05')).to.equal('2026-01-05');
        expect(pgTypes.getTypeParser(23)('7')).to.equal(7);
    });

    test('the sqlite3 driver is selectable and gets the same pragmas', async () => {

        const knex = createKnex({ databaseUrl: 'sqlite::memory:', sqliteDriver: 'sqlite3' });
        expect(await databaseVersion(knex, 'sqlite')).to.match(/^3\./);
        const [pragma] = await knex.raw('pragma foreign_keys');
        expect(pragma.foreign_keys).to.equal(1);
        await knex.destroy();
        const pg = createKnex({ databaseUrl: 'postgres://nobody@127.0.0.1:1/none' });
        expect(isPostgres(pg)).to.be.true();
        expect(isPostgres(knex)).to.be.false();
        await pg.destroy();
    });
});
