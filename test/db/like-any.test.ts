import * as Code from '@hapi/code';
import * as Lab from '@hapi/lab';
import * as Fc from 'fast-check';

import { createKnex } from '../../src/db/knex';
import { joinPatterns, likeAny } from '../../src/db/like-any';


const { experiment, test, before, after } = exports.lab = Lab.script();
const { expect } = Code;

// osprey_like_any(value, p1, …) must answer what `lower(value) like lower(p1) escape '\' or …` answers on SQLite, for
// the patterns Osprey writes: `%` a wildcard, every `_` and `\` (and, in search terms, `%`) escaped.
experiment('osprey_like_any', () => {

    const knex = createKnex({ databaseUrl: 'sqlite::memory:' });
    after(() => knex.destroy());

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
        const [row] = await knex.raw(`select osprey_like_any('Pompe É', ?) as matched`, [joinPatterns(['%x%', '%pe é'])]) as { matched: number }[];
        expect(row!.matched).to.equal(1);
    });

    test('agrees with OR-ed LIKEs on random values and patterns', async () => {

        await Fc.assert(Fc.asyncProperty(value, Fc.array(pattern, { minLength: 1, maxLength: 4 }), async (text, patterns) => {

            const [row] = await knex.raw(`select osprey_like_any(?, ?) as matched`, [text, joinPatterns(patterns)]) as { matched: number | null }[];
            const expected = await classic(text, patterns);
            expect(row!.matched, JSON.stringify([text, patterns])).to.equal(expected);
            expect(likeAny(text, joinPatterns(patterns))).to.equal(expected);
        }), { numRuns: 2000 });
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
