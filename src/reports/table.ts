// The PDF table's layout: a text wrapped into lines of a width, and the columns' widths from their content.

// A Japanese or Chinese character may end a line anywhere; other text breaks between words.
const pieces = /[\u2e80-\u9fff\uf900-\ufaff\uff00-\uffef]|[^\s\u2e80-\u9fff\uf900-\ufaff\uff00-\uffef]+\s*|\s+/g;

// The lines of a text in a width, breaking between words (a word wider than the width, between its
// characters), each of the text's own line breaks kept; nothing is cut. `measure` gives a text's width.
export const wrap = (measure: (text: string) => number, text: string, width: number): string[] => {

    if (!text.includes('\n') && measure(text) <= width) {
        return [text];
    }

    const lines: string[] = [];
    for (const paragraph of text.split('\n')) {
        const start = lines.length;
        let line = '';
        for (const piece of paragraph.match(pieces) ?? []) {
            if (line && measure((line + piece).trimEnd()) > width) {
                lines.push(line.trimEnd());
                line = piece.trimStart();
            }
            else {
                line += piece;
            }

            // A word wider than the width: as many of its characters a line as fit (at least one).
            while (line.trimEnd() && measure(line.trimEnd()) > width) {
                const chars = Array.from(line);
                let cut = 1;
                while (measure(chars.slice(0, cut + 1).join('')) <= width) {
                    ++cut;
                }

                lines.push(chars.slice(0, cut).join(''));
                line = chars.slice(cut).join('');
            }
        }

        // The rest of the paragraph; none after a word cut at its very end, unless the paragraph is empty.
        if (line.trimEnd() || lines.length === start) {
            lines.push(line.trimEnd());
        }
    }

    return lines;
};

// The columns' widths: each as wide as its content needs (`natural`, measured) or as the YAML declares. When
// they are wider than the page, the columns that wrap (text) share what the others leave: a column narrower
// than its share keeps its width, the widest split the rest evenly. Columns that do not wrap (numbers, dates)
// keep theirs; if even they do not fit, every column shrinks in proportion.
export const columnWidths = (natural: readonly number[], wraps: readonly boolean[], declared: readonly (number | undefined)[], usable: number): number[] => {

    const widths = natural.map((width, i) => declared[i] ?? width);
    const total = widths.reduce((sum, width) => sum + width, 0);
    if (total <= usable) {
        return widths;
    }

    const flexible = widths.map((_, i) => i).filter((i) => wraps[i] && declared[i] === undefined).sort((a, b) => widths[a]! - widths[b]!);
    let room = usable - widths.reduce((sum, width, i) => sum + (flexible.includes(i) ? 0 : width), 0);
    if (room < flexible.length * 40) {
        return widths.map((width) => width * usable / total);
    }

    let left = flexible.length;
    for (const i of flexible) {
        const share = room / left;
        if (widths[i]! > share) {
            for (const j of flexible.slice(flexible.indexOf(i))) {
                widths[j] = share;
            }

            break;
        }

        room -= widths[i]!;
        --left;
    }

    return widths;
};
