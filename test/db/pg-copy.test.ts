import * as Code from '@hapi/code';
import * as Lab from '@hapi/lab';
import * as Fc from 'fast-check';

import { poolDb } from '../../src/db/db';
import { createKnex } from '../../src/db/knex';
import { binaryRows, joined, parseBinaryCopy } from '../../src/db/pg-copy';
import { transaction } from '../../src/db/transaction';
import { testDatabases } from '../helpers/databases';


const { experiment, test } = exports.lab = Lab.script();
const { expect } = Code;

// PostgreSQL's binary COPY output for rows of fields (null or bytes), as the server writes it.
const binaryCopy = (rows: readonly (readonly (Buffer | null)[])[], extension = Buffer.alloc(0)): Buffer => {

    const parts: Buffer[] = [Buffer.from('PGCOPY\n\xff\r\n\0', 'latin1'), Buffer.alloc(4), Buffer.alloc(4)];
    parts[2]!.writeInt32BE(extension.length);
    parts.push(extension);
    for (const row of rows) {
        const count = Buffer.alloc(2);
        count.writeInt16BE(row.length);
        parts.push(count);
        for (const field of row) {
            const length = Buffer.alloc(4);
            length.writeInt32BE(field === null ? -1 : field.length);
            parts.push(length, ...field === null ? [] : [field]);
        }
    }

    parts.push(Buffer.from([0xff, 0xff]));
    return Buffer.concat(parts);
};

// The same bytes cut where the socket happened to cut them.
const cut = (data: Buffer, at: readonly number[]): Buffer[] => {

    const points = [...new Set(at.map((point) => point % (data.length + 1)))].sort((a, b) => a - b);
    const pieces: Buffer[] = [];
    let from = 0;
    for (const point of [...points, data.length]) {
        pieces.push(data.subarray(from, point));
        from = point;
    }

    return pieces;
};

experiment('binary COPY reader', () => {

    test('reads every row and field wherever the pieces are cut, nulls and empty fields too', () => {

        const field = Fc.oneof(Fc.constant(null), Fc.uint8Array({ maxLength: 300 }).map((bytes) => Buffer.from(bytes)));
        Fc.assert(Fc.property(
            Fc.array(Fc.array(field, { maxLength: 4 }), { maxLength: 6 }),
            Fc.uint8Array({ maxLength: 8 }).map((bytes) => Buffer.from(bytes)),
            Fc.array(Fc.nat(), { maxLength: 12 }),
            (rows, extension, at) => {

                const parsed = parseBinaryCopy(cut(binaryCopy(rows, extension), at));
                expect(parsed.map((row) => row.map((value) => (value === null ? null : [...joined(value)])))).to.equal(rows.map((row) => row.map((value) => (value === null ? null : [...value]))));
            }));
    });

    test('refuses what is not a binary COPY, or one cut short', () => {

        expect(() => parseBinaryCopy([Buffer.from('PGCOPY\nxx\r\n\0\0\0\0\0\0\0\0\0\xff\xff', 'latin1')])).to.throw(/binary COPY/);
        const whole = binaryCopy([[Buffer.from('abcdef')]]);
        for (const length of [0, 5, 19, 23, 27]) {
            expect(() => parseBinaryCopy([whole.subarray(0, length)])).to.throw();
        }
    });
});

// Where the tests have a PostgreSQL server (TEST_DATABASE_URL), as every database-bound experiment.
const postgres = testDatabases.find((database) => database.name === 'postgresql');
if (postgres) {
    experiment('binary COPY on PostgreSQL', () => {

        test('answers bytes as stored, on the pool and in a transaction; a failing statement leaves the connection usable', async () => {

            const { url, drop } = await postgres.create();
            const knex = createKnex({ databaseUrl: url });
            try {
                const every = Buffer.from([...Array(256).keys()]);
                await knex.schema.createTable('t_bytes', (table) => {

                    table.integer('seq');
                    table.string('label');
                    table.binary('data');
                });
                await knex('t_bytes').insert([{ seq: 1, label: 'every byte', data: every }, { seq: 2, label: 'ünïcode', data: Buffer.alloc(0) }, { seq: 3, label: null, data: null }]);
                const sql = 'select "seq", "label", "data" from "t_bytes" order by "seq"';
                const expected = [[1, 'every byte', every], [2, 'ünïcode', Buffer.alloc(0)], [3, null, null]];
                const read = (rows: (Buffer[] | null)[][]) => rows.map(([seq, label, data]) => [joined(seq!).readInt32BE(0), label === null ? null : joined(label!).toString('utf8'), data === null ? null : joined(data!)]);
                expect(read(await binaryRows(poolDb(knex), sql))).to.equal(expected);
                expect(read(await transaction(knex, (db) => binaryRows(db, sql)))).to.equal(expected);
                await expect(binaryRows(poolDb(knex), 'select "nothing" from "t_bytes"')).to.reject(/nothing/);
                expect(read(await binaryRows(poolDb(knex), sql))).to.equal(expected);
            }
            finally {
                await knex.destroy();
                await drop();
            }
        });
    });
}
