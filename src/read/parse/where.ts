import type { Literal, Path, Where } from './ast';
import { Lexer, type Token } from './lexer';


// oslc.where: Maximo's grammar (comparisons, "[a,b]" lists, "*" for null, "%" patterns, child{…} scopes, `and`)
// plus `or`, `not`, parentheses and `in [...]`. Precedence: not > and > or.

type Operator = Extract<Where, { kind: 'compare' }>['op'];

const operators = new Set<string>(['=', '!=', '<', '<=', '>', '>=']);

// One node per chain: `a and (b and c)` is and[a, b, c], so consumers never see an `and` directly inside an `and`.
const combine = (kind: 'and' | 'or', terms: Where[]): Where => {

    const flat = terms.flatMap((term) => (term.kind === kind ? (term as { terms: Where[] }).terms : [term]));
    return flat.length === 1 ? flat[0]! : { kind, terms: flat };
};

class WhereParser {

    private readonly lexer: Lexer;

    constructor(lexer: Lexer) {

        this.lexer = lexer;
    }

    or(): Where {

        const terms = [this.and()];
        while (this.lexer.isKeyword('or')) {
            this.lexer.next();
            terms.push(this.and());
        }

        return combine('or', terms);
    }

    and(): Where {

        const terms = [this.unary()];
        while (this.lexer.isKeyword('and')) {
            this.lexer.next();
            terms.push(this.unary());
        }

        return combine('and', terms);
    }

    unary(): Where {

        const lexer = this.lexer;
        if (lexer.isKeyword('not')) {
            lexer.enter();
            lexer.next();
            const term = this.unary();
            lexer.leave();
            return { kind: 'not', term };
        }

        if (lexer.isPunct('(')) {
            return this.group('(', ')');
        }

        return this.condition();
    }

    // ( where ) and child{ where }: the nested expression, counted against the depth limit.
    group(open: string, close: string): Where {

        const lexer = this.lexer;
        lexer.enter();
        lexer.expect(open, `"${open}"`);
        const where = this.or();
        lexer.expect(close, `"and", "or" or "${close}"`);
        lexer.leave();
        return where;
    }

    condition(): Where {

        const lexer = this.lexer;
        if (lexer.isKeyword('and') || lexer.isKeyword('or')) {
            lexer.fail('a condition');
        }

        const path: Path = lexer.path('a condition');
        if (lexer.isPunct('{')) {
            return { kind: 'exists', path, where: this.group('{', '}') };
        }

        const negated = lexer.isKeyword('not');
        if (negated) {
            lexer.next();
            if (!lexer.isKeyword('in')) {
                lexer.fail('"in"');
            }
        }

        if (lexer.isKeyword('in')) {
            lexer.next();
            return { kind: 'in', path, negated, values: this.list() };
        }

        const op = lexer.current;
        if (op.type !== 'punct' || !operators.has(op.value)) {
            return lexer.fail('an operator, "in" or "{"');
        }

        lexer.next();
        return this.comparison(path, op.value as Operator);
    }

    list(): Literal[] {

        const lexer = this.lexer;
        lexer.expect('[', '"["');
        const values = [this.value()];
        while (lexer.accept(',')) {
            values.push(this.value());
        }

        lexer.expect(']', '"," or "]"');
        return values;
    }

    value(): Literal {

        const lexer = this.lexer;
        const literal = this.literal(lexer.current);
        if (!literal) {
            return lexer.fail('a value');
        }

        lexer.next();
        return literal;
    }

    literal(token: Token): Literal | undefined {

        switch (token.type) {
            case 'string': return { kind: 'string', value: token.value };
            case 'number': return { kind: 'number', value: Number(token.value) };
            case 'param': return { kind: 'param', name: token.value };
        }

        const keyword = token.type === 'name' && !token.prefixed ? token.value.toLowerCase() : undefined;
        return keyword === 'true' || keyword === 'false' ? { kind: 'boolean', value: keyword === 'true' } : undefined;
    }

    // Maximo gives = and != on a string three special meanings: "*" (null test), "[a,b]" (in list), "%" (like).
    comparison(path: Path, op: Operator): Where {

        const token = this.lexer.current;
        const value = this.value();
        if (value.kind !== 'string' || (op !== '=' && op !== '!=')) {
            return { kind: 'compare', path, op, value };
        }

        const text = value.value;
        const negated = op === '!=';
        if (text === '*') {
            return { kind: 'isnull', path, isNull: negated };
        }

        if (text.length >= 2 && text.startsWith('[') && text.endsWith(']')) {
            return { kind: 'in', path, negated, values: this.split(text, token) };
        }

        if (text.includes('%')) {
            return { kind: 'like', path, negated, pattern: text };
        }

        return { kind: 'compare', path, op, value };
    }

    split(text: string, token: Token): Literal[] {

        const values = text.slice(1, -1).split(',').map((value) => value.trim());
        if (values.includes('')) {
            this.lexer.fail('a value between each "[", "," and "]"', token.position, `an empty one in ${token.raw}`);
        }

        return values.map((value) => ({ kind: 'string', value }));
    }
}

export const parseWhere = (text: string, parameter = 'oslc.where'): Where => {

    const lexer = new Lexer(text, parameter);
    const where = new WhereParser(lexer).or();
    lexer.end('"and", "or" or end of text');
    return where;
};

// opmodeor=1: every `and`, at any depth and inside child scopes, becomes an `or`.
export const withOperatorMode = (where: Where, mode: 'and' | 'or'): Where => {

    if (mode === 'and') {
        return where;
    }

    const swap = (node: Where): Where => {

        switch (node.kind) {
            case 'and':
            case 'or': return combine('or', node.terms.map(swap));
            case 'not': return { kind: 'not', term: swap(node.term) };
            case 'exists': return { ...node, where: swap(node.where) };
            default: return node;
        }
    };

    return swap(where);
};
