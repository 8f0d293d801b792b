import * as Fs from 'node:fs';
import * as Path from 'node:path';


// The fonts a PDF report embeds (pdfkit embeds the subset of glyphs it draws): Noto Sans for Latin, Greek and
// Cyrillic, Noto Sans JP for Japanese (and Chinese characters) — both from npm packages, so that any text of a
// record prints instead of pdfkit's standard fonts' "?" beyond Windows-1252. A text is drawn in one font: Noto
// Sans when it has every character's glyph, else Noto Sans JP (which also has Latin, Greek and Cyrillic). One
// font per text keeps measuring and wrapping simple and fast; a text mixing Japanese with a script Noto Sans JP
// lacks (Arabic, Devanagari…) shows that script's glyphs as empty boxes.

export type FontName = 'regular' | 'bold' | 'cjk' | 'cjkBold';

const files: Readonly<Record<FontName, readonly [string, string]>> = {
    regular: ['@expo-google-fonts/noto-sans', '400Regular/NotoSans_400Regular.ttf'],
    bold: ['@expo-google-fonts/noto-sans', '700Bold/NotoSans_700Bold.ttf'],
    cjk: ['@expo-google-fonts/noto-sans-jp', '400Regular/NotoSansJP_400Regular.ttf'],
    cjkBold: ['@expo-google-fonts/noto-sans-jp', '700Bold/NotoSansJP_700Bold.ttf']
};

// Read once per process (Noto Sans JP is 5 MB a weight); each document parses them again, which pdfkit does lazily.
const loaded = new Map<FontName, Buffer>();

const fontFile = (name: FontName) => {

    let data = loaded.get(name);
    if (!data) {
        const [pkg, file] = files[name];
        data = Fs.readFileSync(Path.join(Path.dirname(require.resolve(`${pkg}/package.json`)), file));
        loaded.set(name, data);
    }

    return data;
};

interface Glyph {
    readonly id: number;
    readonly advanceWidth: number;
    readonly codePoints: number[];
}

interface Position {
    xAdvance: number;
    yAdvance: number;
    xOffset: number;
    yOffset: number;
    advanceWidth: number;
}

// pdfkit's embedded font (its EmbeddedFont) around fontkit's.
export interface EmbeddedFont {
    readonly font: { hasGlyphForCodePoint(code: number): boolean; glyphForCodePoint(code: number): Glyph };
    readonly scale: number;
    readonly id: string;
    ascender: number;
    ref(): unknown;
    encode(text: string): [string[], Position[]];
    layoutRun: (text: string) => { glyphs: Glyph[]; positions: Position[]; advanceWidth: number };
}

interface FontDocument {
    registerFont(name: string, data: Buffer): unknown;
    font(name: string): unknown;
    readonly _font: EmbeddedFont;
}

export const registerFonts = (doc: FontDocument): void => {

    for (const name of Object.keys(files) as FontName[]) {
        doc.registerFont(name, fontFile(name));
    }
};

// Latin, Latin-1, Latin Extended-A/B and general punctuation: Noto Sans has them all (checked in the tests).
const plain = /^[\u0000-\u024f\u2000-\u206f\u20ac]*$/;

// The font of a text: Noto Sans when it covers every character, else Noto Sans JP.
export const fontOf = (covers: (code: number) => boolean, text: string, bold: boolean): FontName => {

    if (plain.test(text)) {
        return bold ? 'bold' : 'regular';
    }

    for (const char of text) {
        if (!covers(char.codePointAt(0)!)) {
            return bold ? 'cjkBold' : 'cjk';
        }
    }

    return bold ? 'bold' : 'regular';
};

// Glyphs by their characters' advance widths, without OpenType shaping: fontkit's shaping of every new word
// (its GSUB and GPOS lookups) was the larger part of a report's drawing, and a table of Latin, Greek, Cyrillic and
// Japanese text needs none of it. What it gives up: kerning, ligatures and the placing of combining marks.
const unshaped = (embedded: EmbeddedFont) => {

    const glyphs = new Map<number, Glyph>();
    embedded.layoutRun = (text) => {

        const run = { glyphs: [] as Glyph[], positions: [] as Position[], advanceWidth: 0 };
        for (const char of text) {
            const code = char.codePointAt(0)!;
            let glyph = glyphs.get(code);
            if (!glyph) {
                glyph = embedded.font.glyphForCodePoint(code);
                glyphs.set(code, glyph);
            }

            const advance = glyph.advanceWidth * embedded.scale;
            run.glyphs.push(glyph);
            run.positions.push({ xAdvance: advance, yAdvance: 0, xOffset: 0, yOffset: 0, advanceWidth: advance });
            run.advanceWidth += advance;
        }

        return run;
    };
};

const fast = new WeakSet<EmbeddedFont>();

// Selects a font of the document, drawn without shaping.
export const useFont = (doc: FontDocument, name: FontName): EmbeddedFont => {

    doc.font(name);
    const embedded = doc._font;
    if (!fast.has(embedded)) {
        unshaped(embedded);
        fast.add(embedded);
    }

    return embedded;
};

// Whether Noto Sans has a character, asked of the document's font once per character and remembered.
export const coverage = (doc: FontDocument): ((code: number) => boolean) => {

    const font = useFont(doc, 'regular').font;
    const known = new Map<number, boolean>();
    return (code) => {

        let has = known.get(code);
        if (has === undefined) {
            has = font.hasGlyphForCodePoint(code) && code > 0x1f;
            known.set(code, has);
        }

        return has;
    };
};
