// "Did you mean": the known name nearest to a misspelt one, by the optimal-string-alignment form of the
// Damerau–Levenshtein distance (an insertion, deletion, substitution or swap of two neighbours costs one), so that
// `titel`, `requried`, `MXAPIASET` and `logLevl` each find their name.

export const editDistance = (a: string, b: string): number => {

    const rows: number[][] = [];
    for (let i = 0; i <= a.length; ++i) {
        rows.push([i]);
    }

    for (let i = 1; i <= b.length; ++i) {
        rows[0]![i] = i;
    }

    for (let i = 1; i <= a.length; ++i) {
        for (let j = 1; j <= b.length; ++j) {
            const cost = a[i - 1] === b[j - 1] ? 0 : 1;
            let best = Math.min(rows[i - 1]![j]! + 1, rows[i]![j - 1]! + 1, rows[i - 1]![j - 1]! + cost);
            if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) {
                best = Math.min(best, rows[i - 2]![j - 2]! + 1);
            }

            rows[i]![j] = best;
        }
    }

    return rows[a.length]![b.length]!;
};

// The nearest of `known` to `name` (case aside), if near enough to be a slip: at most a third of its letters off.
export const nearest = (name: string, known: Iterable<string>): string | undefined => {

    const folded = name.toLowerCase();
    let found: string | undefined;
    let best = Math.max(1, Math.floor(name.length / 3)) + 1;
    for (const candidate of known) {
        const distance = editDistance(folded, candidate.toLowerCase());
        if (distance < best) {
            best = distance;
            found = candidate;
        }
    }

    return found;
};

// `; did you mean "x"?` when one is near, else nothing: appended to a message that names an unknown name.
export const didYouMean = (name: string, known: Iterable<string>): string => {

    const found = nearest(name, known);
    return found === undefined ? '' : `; did you mean "${found}"?`;
};
