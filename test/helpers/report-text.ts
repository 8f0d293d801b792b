import * as ChildProcess from 'node:child_process';


// Reading the reports genreport answers, for the tests: a CSV as rows of fields, a PDF's drawn text.

// A CSV document as rows of fields (quoted fields may hold commas, quotes and line breaks).
export const parseCsv = (text: string): string[][] => {

    const rows: string[][] = [];
    let row: string[] = [];
    let field = '';
    let quoted = false;
    for (let i = 0; i < text.length; ++i) {
        const char = text[i]!;
        if (quoted) {
            if (char === '"' && text[i + 1] === '"') {
                field += '"';
                ++i;
            }
            else if (char === '"') {
                quoted = false;
            }
            else {
                field += char;
            }
        }
        else if (char === '"') {
            quoted = true;
        }
        else if (char === ',') {
            row.push(field);
            field = '';
        }
        else if (char === '\r' && text[i + 1] === '\n') {
            rows.push([...row, field]);
            row = [];
            field = '';
            ++i;
        }
        else {
            field += char;
        }
    }

    return rows;
};

// The text a PDF draws, as poppler's pdftotext reads it (its glyphs mapped back to characters through the
// embedded fonts' ToUnicode maps): with `layout`, each row of the table on one line, its columns in place.
export const pdfText = (pdf: Buffer, layout = false): string => ChildProcess.execFileSync('pdftotext', [...layout ? ['-layout'] : [], '-', '-'], { input: pdf, maxBuffer: 256 * 1024 * 1024 }).toString('utf8');

// The words a PDF draws with where they end on their page (poppler's pdftotext -bbox), to tell how they align.
export const pdfWords = (pdf: Buffer): { text: string; xMax: number }[] => {

    const html = ChildProcess.execFileSync('pdftotext', ['-bbox', '-', '-'], { input: pdf, maxBuffer: 256 * 1024 * 1024 }).toString('utf8');
    return [...html.matchAll(/<word xMin="[\d.]+" yMin="[\d.]+" xMax="([\d.]+)" yMax="[\d.]+">([^<]*)<\/word>/g)].map(([, xMax, text]) => ({ text: text!, xMax: Number(xMax) }));
};
