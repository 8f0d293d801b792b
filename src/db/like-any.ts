// osprey_like_any(value, patterns): SQLite's form of PostgreSQL's `lower(value) LIKE ANY (ARRAY[lower(p1), …])`, for
// the OR-ed case-insensitive LIKEs of one attribute (src/read/compile/sql-types.ts foldedLikeAny), the patterns
// joined by NUL in one argument. Written as `lower(v) like lower(p1) escape '\' or lower(v) like lower(p2) …`, SQLite
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
    const compiled = new Map();
    return (value, joined) => {
        if (value === null || joined === null) {
            return null;
        }
        let test = compiled.get(joined);
        if (test === undefined) {
            if (compiled.size >= 256) {
                compiled.clear();
            }
            test = compile(String(joined));
            compiled.set(joined, test);
        }
        return test(String(value).toLowerCase()) ? 1 : 0;
    };
})()`;

export const likeAnyFunction = 'osprey_like_any';

// The main thread's copy (knex.ts registers it on every better-sqlite3 connection).
export const likeAny = new Function(`return ${likeAnySource};`)() as (value: unknown, joined: unknown) => 0 | 1 | null;

/** The patterns as osprey_like_any's second argument: joined by NUL, which no pattern holds (likeAnyJoins). */
export const joinPatterns = (patterns: readonly string[]): string => patterns.join('\u0000');

export const likeAnyJoins = (patterns: readonly string[]): boolean => patterns.every((pattern) => !pattern.includes('\u0000'));
