import * as Zlib from 'node:zlib';


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

// The text a PDF draws: pdfkit writes each string as a TJ array of hex WinAnsi codes (between kerning numbers)
// in Flate-compressed content streams.
export const pdfText = (pdf: Buffer): string => {

    const text: string[] = [];
    const binary = pdf.toString('latin1');
    for (const match of binary.matchAll(/stream\r?\n/g)) {
        const start = match.index + match[0].length;
        const end = binary.indexOf('endstream', start);
        try {
            const content = Zlib.inflateSync(pdf.subarray(start, end)).toString('latin1');
            for (const [, array] of content.matchAll(/\[(.*?)\] TJ/g)) {
                text.push([...array!.matchAll(/<([0-9a-f]*)>/g)].map(([, hex]) => Buffer.from(hex!, 'hex').toString('latin1')).join(''));
            }
        }
        catch {
            // Not a compressed content stream (fonts are not embedded, but be safe).
        }
    }

    return text.join('\n');
};
