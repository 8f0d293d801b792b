import * as Code from '@hapi/code';
import * as Lab from '@hapi/lab';
import BetterSqlite from 'better-sqlite3';
import * as Fc from 'fast-check';

import { createKnex } from '../../src/db/knex';
import { joinPatterns, likeAny as likeSets } from '../../src/db/like-any';


const { experiment, test, before, after } = exports.lab = Lab.script();
const { expect } = Code;

// osprey_like_any(value, p1, …) must answer what `lower(value) like lower(p1) escape '\' or …` answers on SQLite, for
// the patterns Osprey writes: `%` a wildcard, every `_` and `\` (and, in search terms, `%`) escaped.
experiment('osprey_like_any', () => {

    const knex = createKnex({ databaseUrl: 'sqlite::memory:' });
    after(() => knex.destroy());
    const sets = likeSets();
    const likeAny = (value: unknown, joined: unknown) => sets.test(value, sets.set(joined));

    // Letters that fold (ASCII, accented, ß, the dotted İ that lowers to two code units), LIKE's specials, a regular
    // expression's (the "%word%" patterns are one), a space, a character beyond the BMP.
    const chars = Fc.constantFrom('a', 'B', 'é', 'É', 'ß', 'İ', 'i', '%', '_', '\\', '.', '*', '(', '|', ' ', '😀');
    const value = Fc.option(Fc.array(chars, { maxLength: 8 }).map((list) => list.join('')), { freq: 8 });
    const token = Fc.oneof({ weight: 1, arbitrary: Fc.constant('%') }, { weight: 3, arbitrary: chars.map((char) => (['%', '_', '\\'].includes(char) ? `\\${char}` : char)) });
    const pattern = Fc.array(token, { maxLength: 6 }).map((list) => list.join(''));

    const classic = async (text: string | null, patterns: readonly string[]) => {

        const sql = patterns.map(() => `lower(?) like lower(?) escape '\\'`).join(' or ');
        const [row] = await knex.raw(`select ${sql} as matched`, patterns.flatMap((one) => [text, one])) as { matched: number | null }[];
        return row!.matched as 0 | 1 | null;
    };

    before(async () => {

        // The registered function, not only this module's copy: one call through the connection.
        const [row] = await knex.raw(`select osprey_like_any('Pompe É', osprey_like_set(?)) as matched`, [joinPatterns(['%x%', '%pe é'])]) as { matched: number }[];
        expect(row!.matched).to.equal(1);
    });

    test('agrees with OR-ed LIKEs on random values and patterns', async () => {

        await Fc.assert(Fc.asyncProperty(value, Fc.array(pattern, { minLength: 1, maxLength: 4 }), async (text, patterns) => {

            const [row] = await knex.raw(`select osprey_like_any(?, osprey_like_set(?)) as matched`, [text, joinPatterns(patterns)]) as { matched: number | null }[];
            const expected = await classic(text, patterns);
            expect(row!.matched, JSON.stringify([text, patterns])).to.equal(expected);
            expect(likeAny(text, joinPatterns(patterns))).to.equal(expected);
        }), { numRuns: 2000 });
    });

    // The design rests on SQLite calling a deterministic function of a constant once per statement, not per row.
    test('SQLite compiles a set once per statement, not per row, also inside a correlated EXISTS', () => {

        const db = new BetterSqlite(':memory:');
        const own = likeSets();
        let compiled = 0;
        db.function('osprey_like_set', { deterministic: true }, (joined: unknown) => (++compiled, own.set(joined)));
        db.function('osprey_like_any', { deterministic: true }, (text: unknown, set: unknown) => own.test(text, set));
        db.exec('create table t (d text)');
        const insert = db.prepare('insert into t values (?)');
        for (let i = 0; i < 1000; ++i) {
            insert.run(`row ${i}`);
        }

        const joined = joinPatterns(['%w 1%', '%ow 99%']);
        expect(db.prepare('select count(*) as n from t where osprey_like_any(d, osprey_like_set(?))').get(joined)).to.equal({ n: 1 + 10 + 100 + 1 + 10 });         // row 1, 1x, 1xx; row 99, 99x
        expect(compiled).to.equal(1);
        // In a correlated subquery: per statement still (SQLite 3.53 calls it twice here), not per row.
        expect(db.prepare('select count(*) as n from t q0 where exists (select 1 from t q1 where q1.d = q0.d and osprey_like_any(q1.d, osprey_like_set(?)))').get(joined)).to.equal({ n: 122 });
        expect(compiled).to.be.within(2, 3);
        db.close();
    });

    test('a connection keeps its newest 256 sets; a set no longer kept is an error, never a wrong answer', () => {

        const own = likeSets();
        const first = own.set('%pump%')!;
        expect(own.test('Big PUMP', first)).to.equal(1);
        // The same text again is the same set, and counts as new.
        expect(own.set('%pump%')).to.equal(first);
        const later = Array.from({ length: 256 }, (_, i) => own.set(`%w${i}%`)!);
        expect(() => own.test('pump', first)).to.throw(/no pattern set/);
        expect(own.test('a w255 b', later[255])).to.equal(1);
        expect(own.test('a w0 b', later[0])).to.equal(1);
        expect(own.set(null)).to.be.null();
        expect(own.test('x', null)).to.be.null();
    });

    test('a null value is unknown; a lone trailing escape matches nothing; many wildcards cost no backtracking', async () => {

        expect(likeAny(null, '%')).to.be.null();
        expect(likeAny('pump', null)).to.be.null();
        expect(likeAny('a\\', 'a\\')).to.equal(0);
        expect(await classic('a\\', ['a\\'])).to.equal(0);
        // Numbers fold as their text, as lower() does.
        expect(likeAny(1234, '%23%')).to.equal(1);
        // A pattern a regular expression would take exponential time on: each run is found once, left to right.
        const hostile = `${'%a'.repeat(40)}%b`;
        expect(likeAny('a'.repeat(100_000), joinPatterns([hostile, '%c%']))).to.equal(0);
        expect(likeAny(`${'a'.repeat(100_000)}b`, hostile)).to.equal(1);
    });
});
