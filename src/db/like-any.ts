// osprey_like_any(value, osprey_like_set(patterns)): SQLite's form of PostgreSQL's `lower(value) LIKE ANY (ARRAY[lower(p1),
// …])`, for the OR-ed case-insensitive LIKEs of one attribute (src/read/compile/sql-types.ts foldedLikeAny), the
// patterns joined by NUL. osprey_like_set is deterministic and its argument a constant, so SQLite calls it once per
// statement (it factors constant expressions out of its loops) and passes each row only the set's number: a hostile
// probe's two 4,900-letter search words over 10 attributes, passed to every row as text, took 13.9 s on 50,000 rows
// where the LIKEs had taken 1.0 s. Written as `lower(v) like lower(p1) escape '\' or lower(v) like lower(p2) …`, SQLite
// calls Osprey's JavaScript lower() once per row and term: 100 terms over 200,000 rows were 20 million calls and
// 12.7 s alone (9.7 s in the bench). Measured alone, the same 100 patterns as 100 arguments took 3.3 s (1.1 s of it
// passing the arguments), joined in one 2.3 s, and as one regular expression 0.08 s.
//
// It is source text, not a function of this module, because the read workers (read-workers.ts) run it too: they are
// started from source, where neither this module nor the test runner's TypeScript hook can be required.
//
// Matching is SQLite's LIKE with ESCAPE '\' on values both sides folded with toLowerCase (the lower() Osprey gives
// every connection), for the patterns Osprey writes (an oslc.where's "%…%", a search word): `%` the only wildcard,
// `\` before a literal character, `_` always escaped. A pattern that ends in a lone `\` matches nothing, as in
// SQLite. A null value gives null, as LIKE does, so that NOT of it stays unknown.
export const likeAnySource = `(() => {
    const special = /[\\\\^$.*+?()[\\]{}|\\/-]/g;
    // A pattern's literal runs between its % wildcards; null for one that ends in a lone escape.
    const segmentsOf = (pattern) => {
        const segments = [];
        let text = '';
        for (let i = 0; i < pattern.length; ++i) {
            const char = pattern[i];
            if (char === '%') {
                segments.push(text);
                text = '';
            }
            else if (char === '\\\\') {
                if (++i === pattern.length) {
                    return null;
                }
                text += pattern[i];
            }
            else {
                text += char;
            }
        }
        segments.push(text);
        return segments;
    };
    // Leftmost match of each literal run in turn: linear in the value for each run, whatever the pattern.
    const matches = (value, segments) => {
        if (segments.length === 1) {
            return value === segments[0];
        }
        const first = segments[0];
        const last = segments[segments.length - 1];
        if (value.length < first.length + last.length || !value.startsWith(first) || !value.endsWith(last)) {
            return false;
        }
        const end = value.length - last.length;
        let at = first.length;
        for (let i = 1; i < segments.length - 1; ++i) {
            const found = value.indexOf(segments[i], at);
            if (found < 0 || found + segments[i].length > end) {
                return false;
            }
            at = found + segments[i].length;
        }
        return true;
    };
    // The patterns of one statement as one test. "%word%" patterns (the common form: a where's "%x%", a search
    // word) become one regular expression of literal alternatives, which scans the value once for all of them,
    // with no backtracking to blow up; the other patterns are matched run by run.
    const compile = (joined) => {
        const words = [];
        const others = [];
        for (const pattern of joined.toLowerCase().split('\\u0000')) {
            const segments = segmentsOf(pattern);
            if (segments === null) {
                continue;
            }
            if (segments.length === 3 && segments[0] === '' && segments[2] === '') {
                words.push(segments[1].replace(special, '\\\\$&'));
            }
            else {
                others.push(segments);
            }
        }
        const found = words.length ? new RegExp(words.join('|')) : null;
        return (value) => (found !== null && found.test(value)) || others.some((segments) => matches(value, segments));
    };
    // The compiled sets, by their joined text and by the number osprey_like_set answers for it. The oldest is let go
    // past 256: a statement's own sets (at most one per pair of its terms: 50) are always the newest.
    const byText = new Map();
    const byNumber = new Map();
    let last = 0;
    const set = (joined) => {
        if (joined === null) {
            return null;
        }
        const text = String(joined);
        let number = byText.get(text);
        if (number === undefined) {
            number = ++last;
            byNumber.set(number, compile(text));
        }
        else {
            byText.delete(text);
        }
        byText.set(text, number);
        if (byText.size > 256) {
            const [oldest, gone] = byText.entries().next().value;
            byText.delete(oldest);
            byNumber.delete(gone);
        }
        return number;
    };
    const test = (value, number) => {
        if (value === null || number === null) {
            return null;
        }
        const matches = byNumber.get(number);
        if (matches === undefined) {
            throw new Error('osprey_like_any: no pattern set ' + number + ' on this connection');
        }
        return matches(String(value).toLowerCase()) ? 1 : 0;
    };
    return { set, test };
})()`;

export const likeAnyFunction = 'osprey_like_any';
export const likeSetFunction = 'osprey_like_set';

export interface LikeAny {
    /** osprey_like_set(joined): the number of the compiled set of patterns, on this connection. */
    set: (joined: unknown) => number | null;
    /** osprey_like_any(value, number): 1 if the value matches a pattern of the set, 0 if none, null for a null value. */
    test: (value: unknown, number: unknown) => 0 | 1 | null;
}

// A connection's sets (knex.ts registers both functions on every better-sqlite3 connection of the main thread).
export const likeAny = (): LikeAny => new Function(`return ${likeAnySource};`)() as LikeAny;

/** The patterns as osprey_like_set's argument: joined by NUL, which no pattern holds (likeAnyJoins). */
export const joinPatterns = (patterns: readonly string[]): string => patterns.join('\u0000');

export const likeAnyJoins = (patterns: readonly string[]): boolean => patterns.every((pattern) => !pattern.includes('\u0000'));
