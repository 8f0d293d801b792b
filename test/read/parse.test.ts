import * as Code from '@hapi/code';
import * as Lab from '@hapi/lab';

import type { Literal, Path, Where } from '../../src/read/parse/ast';
import { QueryError } from '../../src/read/parse/query-error';
import { parseWhere, withOperatorMode } from '../../src/read/parse/where';
import { expectQueryError } from './helpers';


const { experiment, test } = exports.lab = Lab.script();
const { expect } = Code;

const path = (names: string, position = 1): Path => ({ names: names.split('.'), position });
const str = (value: string): Literal => ({ kind: 'string', value });
const num = (value: number): Literal => ({ kind: 'number', value });
const cmp = (names: string, op: '=' | '!=' | '<' | '<=' | '>' | '>=', value: Literal, position = 1): Where => ({ kind: 'compare', path: path(names, position), op, value });

experiment('oslc.where parser', () => {

    const parses: [string, Where][] = [
        // comparisons and literals
        ['a="x"', cmp('a', '=', str('x'))],
        ['a != "x"', cmp('a', '!=', str('x'))],
        ['a<1', cmp('a', '<', num(1))],
        ['a<=1.5', cmp('a', '<=', num(1.5))],
        ['a>-1', cmp('a', '>', num(-1))],
        ['a>=2e3', cmp('a', '>=', num(2000))],
        ['a=2E-3', cmp('a', '=', num(0.002))],
        ['a=1e+2', cmp('a', '=', num(100))],
        ['a=true', cmp('a', '=', { kind: 'boolean', value: true })],
        ['a!=FALSE', cmp('a', '!=', { kind: 'boolean', value: false })],
        ['a=:siteid', cmp('a', '=', { kind: 'param', name: 'siteid' })],
        ['a>=:startDate', cmp('a', '>=', { kind: 'param', name: 'startDate' })],
        ['a="say \\"hi\\" \\\\ c:\\temp"', cmp('a', '=', str('say "hi" \\ c:\\temp'))],
        ['a=""', cmp('a', '=', str(''))],
        ['a="2024-01-31T10:00:00-05:00"', cmp('a', '=', str('2024-01-31T10:00:00-05:00'))],
        ['a="é😀"', cmp('a', '=', str('é😀'))],

        // lists
        ['a in ["x","y"]', { kind: 'in', path: path('a'), negated: false, values: [str('x'), str('y')] }],
        ['a in [1, 2]', { kind: 'in', path: path('a'), negated: false, values: [num(1), num(2)] }],
        ['a NOT IN [ :p , true ]', { kind: 'in', path: path('a'), negated: true, values: [{ kind: 'param', name: 'p' }, { kind: 'boolean', value: true }] }],
        ['status!="[APPR, WAPPR]"', { kind: 'in', path: path('status'), negated: true, values: [str('APPR'), str('WAPPR')] }],
        ['status="[APPR]"', { kind: 'in', path: path('status'), negated: false, values: [str('APPR')] }],
        ['status="[A%,*]"', { kind: 'in', path: path('status'), negated: false, values: [str('A%'), str('*')] }],

        // null tests and patterns
        ['a="*"', { kind: 'isnull', path: path('a'), isNull: false }],
        ['a!="*"', { kind: 'isnull', path: path('a'), isNull: true }],
        ['a="%x%"', { kind: 'like', path: path('a'), negated: false, pattern: '%x%' }],
        ['a!="x%"', { kind: 'like', path: path('a'), negated: true, pattern: 'x%' }],
        ['a>"x%"', cmp('a', '>', str('x%'))],
        ['a<"[x]"', cmp('a', '<', str('[x]'))],
        ['a>="*"', cmp('a', '>=', str('*'))],
        ['a="["', cmp('a', '=', str('['))],
        ['a="]x["', cmp('a', '=', str(']x['))],

        // names and paths
        ['Asset.Location.STATUS="x"', cmp('asset.location.status', '=', str('x'))],
        ['spi:asset.oslc:status="x"', cmp('asset.status', '=', str('x'))],
        ['RDFS:a=1 and dcterms:b=2', { kind: 'and', terms: [cmp('a', '=', num(1)), cmp('b', '=', num(2), 14)] }],
        ['  a="x"', cmp('a', '=', str('x'), 3)],
        ['asset . status = "x"', cmp('asset.status', '=', str('x'))],
        ['_x1=1', cmp('_x1', '=', num(1))],
        ['a_B2=1', cmp('a_b2', '=', num(1))],
        ['spi:and="x"', cmp('and', '=', str('x'))],
        ['in=1', cmp('in', '=', num(1))],
        ['a.not.or=1', cmp('a.not.or', '=', num(1))],
        ['\ta\n=\r\n1 ', cmp('a', '=', num(1), 2)],

        // child scopes
        ['woactivity{status="APPR" and estdur>1}', { kind: 'exists', path: path('woactivity'), where: { kind: 'and', terms: [cmp('status', '=', str('APPR'), 12), cmp('estdur', '>', num(1), 30)] } }],
        ['rel.x { a=1 }', { kind: 'exists', path: path('rel.x'), where: cmp('a', '=', num(1), 9) }],
        ['a{b{c=1}}', { kind: 'exists', path: path('a'), where: { kind: 'exists', path: path('b', 3), where: cmp('c', '=', num(1), 5) } }],

        // boolean structure, precedence and flattening
        ['a=1 and b=2 and c=3', { kind: 'and', terms: [cmp('a', '=', num(1)), cmp('b', '=', num(2), 9), cmp('c', '=', num(3), 17)] }],
        ['a=1 or b=2 or c=3', { kind: 'or', terms: [cmp('a', '=', num(1)), cmp('b', '=', num(2), 8), cmp('c', '=', num(3), 15)] }],
        ['a=1 and b=2 or c=3', { kind: 'or', terms: [{ kind: 'and', terms: [cmp('a', '=', num(1)), cmp('b', '=', num(2), 9)] }, cmp('c', '=', num(3), 16)] }],
        ['a=1 or b=2 AND c=3', { kind: 'or', terms: [cmp('a', '=', num(1)), { kind: 'and', terms: [cmp('b', '=', num(2), 8), cmp('c', '=', num(3), 16)] }] }],
        ['not a=1 and b=2', { kind: 'and', terms: [{ kind: 'not', term: cmp('a', '=', num(1), 5) }, cmp('b', '=', num(2), 13)] }],
        ['NOT (a=1 or b=2)', { kind: 'not', term: { kind: 'or', terms: [cmp('a', '=', num(1), 6), cmp('b', '=', num(2), 13)] } }],
        ['not not a=1', { kind: 'not', term: { kind: 'not', term: cmp('a', '=', num(1), 9) } }],
        ['(a=1 and b=2) and c=3', { kind: 'and', terms: [cmp('a', '=', num(1), 2), cmp('b', '=', num(2), 10), cmp('c', '=', num(3), 19)] }],
        ['a=1 or (b=2 or c=3)', { kind: 'or', terms: [cmp('a', '=', num(1)), cmp('b', '=', num(2), 9), cmp('c', '=', num(3), 16)] }],
        ['(a=1 or b=2) and c=3', { kind: 'and', terms: [{ kind: 'or', terms: [cmp('a', '=', num(1), 2), cmp('b', '=', num(2), 9)] }, cmp('c', '=', num(3), 18)] }],
        ['((a=1))', cmp('a', '=', num(1), 3)],
        ['a=1 and not b in [1]', { kind: 'and', terms: [cmp('a', '=', num(1)), { kind: 'not', term: { kind: 'in', path: path('b', 13), negated: false, values: [num(1)] } }] }],
        ['a="x"and(b=1)', { kind: 'and', terms: [cmp('a', '=', str('x')), cmp('b', '=', num(1), 10)] }],
        ['(' .repeat(32) + 'a=1' + ')'.repeat(32), cmp('a', '=', num(1), 33)],
        ['a="' + 'x'.repeat(9996) + '"', cmp('a', '=', str('x'.repeat(9996)))]
    ];

    for (const [text, expected] of parses) {
        test(`parses ${text.length > 60 ? `${text.slice(0, 60)}…` : text}`, () => {

            expect(parseWhere(text)).to.equal(expected);
        });
    }

    const errors: [string, number, string][] = [
        ['', 1, 'expected a condition, found end of text'],
        ['   ', 4, 'expected a condition, found end of text'],
        ['a', 2, 'expected an operator, "in" or "{", found end of text'],
        ['a=', 3, 'expected a value, found end of text'],
        ['a=)', 3, 'expected a value, found ")"'],
        ['a="x" b="y"', 7, 'expected "and", "or" or end of text, found "b"'],
        ['a="x" and', 10, 'expected a condition, found end of text'],
        ['and a=1', 1, 'expected a condition, found "and"'],
        ['a=1 or OR b=1', 8, 'expected a condition, found "OR"'],
        ['not', 4, 'expected a condition, found end of text'],
        ['(a=1', 5, 'expected "and", "or" or ")", found end of text'],
        ['a=1)', 4, 'expected "and", "or" or end of text, found ")"'],
        ['w{a=1', 6, 'expected "and", "or" or "}", found end of text'],
        ['w{}', 3, 'expected a condition, found "}"'],
        ['a in []', 7, 'expected a value, found "]"'],
        ['a in [1,]', 9, 'expected a value, found "]"'],
        ['a in [1 2]', 9, 'expected "," or "]", found "2"'],
        ['a in 1', 6, 'expected "[", found "1"'],
        ['a not x', 7, 'expected "in", found "x"'],
        ['a not', 6, 'expected "in", found end of text'],
        ['a="[]"', 3, 'expected a value between each "[", "," and "]", found an empty one in "[]"'],
        ['a!="[A,,B]"', 4, 'expected a value between each "[", "," and "]", found an empty one in "[A,,B]"'],
        ['a="[ ]"', 3, 'expected a value between each "[", "," and "]", found an empty one in "[ ]"'],
        ['a="x', 3, 'expected a value, found an unterminated string "x'],
        ['a="x\\"', 3, 'expected a value, found an unterminated string "x\\"'],
        ['a=1e999', 3, 'expected a value, found a number out of range "1e999"'],
        ['a=x', 3, 'expected a value, found "x"'],
        ['a=#', 3, 'expected a value, found "#"'],
        ['a==1', 3, 'expected a value, found "="'],
        ['a=:', 3, 'expected a value, found ":"'],
        ['a=: x', 3, 'expected a value, found ":"'],
        ['a=-x', 3, 'expected a value, found "-"'],
        ['a<>1', 3, 'expected a value, found ">"'],
        ['a!1', 2, 'expected an operator, "in" or "{", found "!"'],
        ['a:1', 2, 'expected an operator, "in" or "{", found ":"'],
        ['foo:a=1', 1, 'expected a condition, found an unknown prefix "foo:"'],
        ['a.=1', 3, 'expected an attribute name, found "="'],
        ['a.1=1', 3, 'expected an attribute name, found "1"'],
        ['1a=1', 1, 'expected a condition, found "1"'],
        ['a="x" and "y"', 11, 'expected a condition, found the string "y"'],
        ['a=1 &b=2', 5, 'expected "and", "or" or end of text, found "&"'],
        ['a=abcdefghijklmnopqrstuvwxyz0123', 3, 'expected a value, found "abcdefghijklmnopqrstuvwx…"'],
        ['a="abcdefghijklmnopqrstuvwxyz" b', 3 + 28 + 1, 'expected "and", "or" or end of text, found "b"'],
        ['a="x" or "abcdefghijklmnopqrstuvwxyz"', 10, 'expected a condition, found the string "abcdefghijklmnopqrstuvw…'],
        ['a=é', 3, 'expected a value, found "é"'],
        ['😀=1 and b=2', 1, 'expected a condition, found "😀"'],
        ['a=1 and 😀', 9, 'expected a condition, found "😀"'],
        ['(' .repeat(33) + 'a=1' + ')'.repeat(33), 33, 'expected at most 32 levels of nesting, found more'],
        ['not '.repeat(33) + 'a=1', 129, 'expected at most 32 levels of nesting, found more'],
        ['a{'.repeat(33) + 'b=1' + '}'.repeat(33), 66, 'expected at most 32 levels of nesting, found more'],
        ['a="' + 'x'.repeat(9997) + '"', 10001, 'expected at most 10000 characters, found 10001']
    ];

    for (const [text, position, message] of errors) {
        test(`refuses ${text.length > 60 ? `${text.slice(0, 60)}…` : text || '(empty)'} at column ${position}`, () => {

            expectQueryError(() => parseWhere(text), 'oslc.where', position, message);
        });
    }

    test('names the parameter it was given', () => {

        expectQueryError(() => parseWhere('a', 'lookup where'), 'lookup where', 2, 'expected an operator, "in" or "{", found end of text');
    });

    test('refuses a value that is not one text (a repeated URL parameter)', () => {

        expectQueryError(() => parseWhere(['a=1', 'b=2'] as any), 'oslc.where', 1, 'expected one text value, found a list');
        expectQueryError(() => parseWhere(undefined as any), 'oslc.where', 1, 'expected one text value, found undefined');
    });
});

experiment('opmodeor', () => {

    test('leaves the where alone in and mode', () => {

        const where = parseWhere('a=1 and b=2');
        expect(withOperatorMode(where, 'and')).to.shallow.equal(where);
    });

    test('turns every and into or, inside groups, negations and child scopes, flattening the result', () => {

        const where = parseWhere('a=1 and (b=2 or c=3) and w{d=1 and e=2} and not (f=1 and g=2)');
        const or = withOperatorMode(where, 'or');
        expect(or).to.equal({
            kind: 'or',
            terms: [
                cmp('a', '=', num(1)),
                cmp('b', '=', num(2), 10),
                cmp('c', '=', num(3), 17),
                { kind: 'exists', path: path('w', 26), where: { kind: 'or', terms: [cmp('d', '=', num(1), 28), cmp('e', '=', num(2), 36)] } },
                { kind: 'not', term: { kind: 'or', terms: [cmp('f', '=', num(1), 50), cmp('g', '=', num(2), 58)] } }
            ]
        });
        expect(withOperatorMode(parseWhere('a=1'), 'or')).to.equal(cmp('a', '=', num(1)));
    });
});

experiment('QueryError', () => {

    test('carries the parameter and column, and reads well with a sentence as its detail', () => {

        const error = new QueryError('oslc.select', 3, 'foo is not an attribute of WORKORDER.');
        expect(error).to.be.an.instanceof(Error);
        expect(error.name).to.equal('QueryError');
        expect(error.parameter).to.equal('oslc.select');
        expect(error.position).to.equal(3);
        expect(error.message).to.equal('oslc.select: foo is not an attribute of WORKORDER at column 3');
    });
});
