import { checkText } from './lexer';
import { QueryError } from './query-error';


// gbrange (IBM's REST API guide, "Aggregation Range"): groups of gbcols whose values fall in one range are merged
// into one group. A clause per group column, each with a list of ranges:
//
//   status={[APPR:WAPPR]}               a set: the rows whose value is one of these
//   wopriority={[1..3],[4..7)}          intervals: [ and ] include their end, ( and ) leave it out
//   status={[APPR:WAPPR],[COMP:CLOSE]},wopriority={[1..3]}
//
// Values are written bare (`APPR`, `2.5`, `2024-01-01`) or in double quotes (`"2024-01-01T00:00:00Z"`, where a
// set's value holds a colon). The names and values are checked against the attributes by the caller.

export interface RangeValue {
    readonly text: string;
    readonly position: number;
}

export type GroupRange =
    | { readonly kind: 'set'; readonly values: readonly RangeValue[]; readonly position: number }
    | { readonly kind: 'interval'; readonly low: RangeValue; readonly high: RangeValue; readonly lowIncluded: boolean; readonly highIncluded: boolean; readonly position: number };

export interface GroupRangeClause {
    readonly name: string;
    readonly position: number;
    readonly ranges: readonly GroupRange[];
}

const delimiters = new Set([',', ':', '[', ']', '(', ')', '{', '}', '"', '=']);

class RangeParser {

    private readonly text: string;
    private readonly parameter: string;
    private index = 0;

    constructor(text: string, parameter: string) {

        this.text = text;
        this.parameter = parameter;
    }

    private get position() {

        return this.index + 1;
    }

    private skip() {

        while (/\s/.test(this.text[this.index] ?? '')) {
            ++this.index;
        }
    }

    private fail(expected: string, position = this.position): never {

        const rest = this.text.slice(position - 1);
        const found = rest ? JSON.stringify(rest.length > 12 ? `${rest.slice(0, 12)}…` : rest) : 'end of text';
        throw new QueryError(this.parameter, position, `expected ${expected}, found ${found}`);
    }

    private accept(token: string) {

        this.skip();
        if (this.text.startsWith(token, this.index)) {
            this.index += token.length;
            return true;
        }

        return false;
    }

    private expect(token: string, expected: string) {

        if (!this.accept(token)) {
            this.fail(expected);
        }
    }

    clauses(): GroupRangeClause[] {

        const clauses = [this.clause()];
        while (this.accept(',')) {
            clauses.push(this.clause());
        }

        this.skip();
        if (this.index < this.text.length) {
            this.fail('"," or end of text');
        }

        return clauses;
    }

    clause(): GroupRangeClause {

        this.skip();
        const position = this.position;
        const name = /^[A-Za-z_][A-Za-z0-9_]*/.exec(this.text.slice(this.index))?.[0];
        if (!name) {
            this.fail('a group column');
        }

        this.index += name.length;
        this.expect('=', '"="');
        this.expect('{', '"{"');
        const ranges = [this.range()];
        while (this.accept(',')) {
            ranges.push(this.range());
        }

        this.expect('}', '"," or "}"');
        return { name: name.toLowerCase(), position, ranges };
    }

    range(): GroupRange {

        this.skip();
        const position = this.position;
        const open = this.text[this.index];
        if (open !== '[' && open !== '(') {
            this.fail('"[" or "("');
        }

        ++this.index;
        const first = this.value();
        if (this.accept('..')) {
            const high = this.value();
            this.skip();
            const close = this.text[this.index];
            if (close !== ']' && close !== ')') {
                this.fail('"]" or ")"');
            }

            ++this.index;
            return { kind: 'interval', low: first, high, lowIncluded: open === '[', highIncluded: close === ']', position };
        }

        if (open === '(') {
            this.fail('".." (a set of values is written in [ ])');
        }

        const values = [first];
        while (this.accept(':')) {
            values.push(this.value());
        }

        this.expect(']', '":", ".." or "]"');
        return { kind: 'set', values, position };
    }

    value(): RangeValue {

        this.skip();
        const position = this.position;
        if (this.text[this.index] === '"') {
            const end = this.text.indexOf('"', this.index + 1);
            if (end < 0) {
                this.fail('a closing \'"\'', position);
            }

            const text = this.text.slice(this.index + 1, end);
            this.index = end + 1;
            return { text, position };
        }

        let end = this.index;
        while (end < this.text.length && !delimiters.has(this.text[end]!) && !this.text.startsWith('..', end)) {
            ++end;
        }

        const text = this.text.slice(this.index, end).trim();
        if (!text) {
            this.fail('a value');
        }

        this.index = end;
        return { text, position };
    }
}

export const parseGroupRange = (text: string, parameter = 'gbrange'): GroupRangeClause[] => new RangeParser(checkText(text, parameter), parameter).clauses();
