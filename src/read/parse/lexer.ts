import { QueryError } from './query-error';


// The tokenizer shared by the where, select, orderBy and gbcols parsers. It scans one token ahead, lazily, so
// the first error reported is the leftmost one. A character no grammar accepts becomes an `invalid` token rather
// than an error: the parser then reports it together with what it expected there.

// Bounds that keep any input cheap: the text is refused before scanning, and every recursive rule counts depth.
export const maxLength = 10_000;
export const maxDepth = 32;

export interface Token {
    readonly type: 'name' | 'string' | 'number' | 'param' | 'punct' | 'end' | 'invalid';
    readonly value: string;         // a name without its prefix, a string's contents, a param's name, the punctuation, or what is wrong
    readonly raw: string;           // the source text of the token
    readonly position: number;      // 1-based column of its first character
    readonly prefixed: boolean;     // `spi:and` is a name, never the keyword
}

const prefixes = new Set(['spi', 'oslc', 'rdfs', 'dcterms']);
const punctuation = ['<=', '>=', '!=', '--', '(', ')', '{', '}', '[', ']', ',', '.', '*', '+', '-', '=', '<', '>'];
const nameRx = /[A-Za-z_][A-Za-z0-9_]*/y;
const numberRx = /-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?/y;
const spaceRx = /\s*/y;

const sticky = (rx: RegExp, text: string, index: number): string | undefined => {

    rx.lastIndex = index;
    return rx.exec(text)?.[0];
};

// Parameters arrive from the URL: a repeated one is an array, which no parser can read.
export const checkText = (text: unknown, parameter: string): string => {

    if (typeof text !== 'string') {
        throw new QueryError(parameter, 1, `expected one text value, found ${Array.isArray(text) ? 'a list' : typeof text}`);
    }

    if (text.length > maxLength) {
        throw new QueryError(parameter, maxLength + 1, `expected at most ${maxLength} characters, found ${text.length}`);
    }

    // PostgreSQL cannot store or compare text holding NUL; no query needs one.
    const nul = text.indexOf('\u0000');
    if (nul >= 0) {
        throw new QueryError(parameter, nul + 1, 'found a NUL character');
    }

    return text;
};

export class Lexer {

    readonly parameter: string;
    current: Token;
    private readonly text: string;
    private index = 0;
    private depth = 0;

    constructor(text: string, parameter: string) {

        this.text = checkText(text, parameter);
        this.parameter = parameter;
        this.current = this.scan();
    }

    next(): Token {

        const token = this.current;
        this.current = this.scan();
        return token;
    }

    keyword(): string | undefined {

        const token = this.current;
        return token.type === 'name' && !token.prefixed ? token.value.toLowerCase() : undefined;
    }

    isKeyword(keyword: string): boolean {

        return this.keyword() === keyword;
    }

    isPunct(punct: string): boolean {

        return this.current.type === 'punct' && this.current.value === punct;
    }

    accept(punct: string): boolean {

        if (!this.isPunct(punct)) {
            return false;
        }

        this.next();
        return true;
    }

    expect(punct: string, expected: string): void {

        if (!this.accept(punct)) {
            this.fail(expected);
        }
    }

    end(expected: string): void {

        if (this.current.type !== 'end') {
            this.fail(expected);
        }
    }

    name(expected: string): Token {

        if (this.current.type !== 'name') {
            this.fail(expected);
        }

        return this.next();
    }

    // name ('.' name)*, lower-cased: Maximo's names are case-insensitive.
    path(expected: string): { names: string[]; position: number } {

        const first = this.name(expected);
        const names = [first.value.toLowerCase()];
        while (this.accept('.')) {
            names.push(this.name('an attribute name').value.toLowerCase());
        }

        return { names, position: first.position };
    }

    // Around every recursive rule, so no text can exhaust the stack.
    enter(): void {

        if (++this.depth > maxDepth) {
            throw new QueryError(this.parameter, this.current.position, `expected at most ${maxDepth} levels of nesting, found more`);
        }
    }

    leave(): void {

        --this.depth;
    }

    fail(expected: string, position = this.current.position, found = describe(this.current)): never {

        throw new QueryError(this.parameter, position, `expected ${expected}, found ${found}`);
    }

    private scan(): Token {

        const text = this.text;
        const start = this.index + sticky(spaceRx, text, this.index)!.length;
        const char = text[start];
        if (char === undefined) {
            return this.token('end', '', start, start);
        }

        if (char === '"') {
            return this.string(start);
        }

        const number = sticky(numberRx, text, start);
        if (number !== undefined) {
            const finite = Number.isFinite(Number(number));
            return this.token(finite ? 'number' : 'invalid', finite ? number : `a number out of range "${number}"`, start, start + number.length);
        }

        const name = sticky(nameRx, text, start);
        if (name !== undefined) {
            return this.named(name, start);
        }

        if (char === ':') {
            const param = sticky(nameRx, text, start + 1);
            return param === undefined ? this.token('invalid', '":"', start, start + 1) : this.token('param', param, start, start + 1 + param.length);
        }

        const punct = punctuation.find((candidate) => text.startsWith(candidate, start));
        if (punct) {
            return this.token('punct', punct, start, start + punct.length);
        }

        const unknown = String.fromCodePoint(text.codePointAt(start)!);
        return this.token('invalid', `"${unknown}"`, start, start + unknown.length);
    }

    // `spi:status` is `status`; any other prefix is refused rather than read as a parameter.
    private named(name: string, start: number): Token {

        const text = this.text;
        const after = start + name.length;
        const rest = text[after] === ':' ? sticky(nameRx, text, after + 1) : undefined;
        if (rest === undefined) {
            return this.token('name', name, start, after);
        }

        const end = after + 1 + rest.length;
        if (!prefixes.has(name.toLowerCase())) {
            return this.token('invalid', `an unknown prefix "${name}:"`, start, end);
        }

        return { ...this.token('name', rest, start, end), prefixed: true };
    }

    // "…" with \" and \\ as escapes; any other backslash is itself (Windows paths, regex-looking text).
    private string(start: number): Token {

        const text = this.text;
        let value = '';
        let i = start + 1;
        while (i < text.length && text[i] !== '"') {
            const escaped = text[i] === '\\' && (text[i + 1] === '"' || text[i + 1] === '\\');
            value += escaped ? text[i + 1] : text[i];
            i += escaped ? 2 : 1;
        }

        if (i >= text.length) {
            return this.token('invalid', `an unterminated string ${clip(text.slice(start))}`, start, i);
        }

        return this.token('string', value, start, i + 1);
    }

    private token(type: Token['type'], value: string, start: number, end: number): Token {

        this.index = end;
        return { type, value, raw: this.text.slice(start, end), position: start + 1, prefixed: false };
    }
}

const clip = (raw: string) => (raw.length > 24 ? `${raw.slice(0, 24)}…` : raw);

export const describe = (token: Token): string => {

    if (token.type === 'end') {
        return 'end of text';
    }

    if (token.type === 'invalid') {
        return token.value;
    }

    return token.type === 'string' ? `the string ${clip(token.raw)}` : `"${clip(token.raw)}"`;
};
