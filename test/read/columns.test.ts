import * as Code from '@hapi/code';
import * as Lab from '@hapi/lab';

import type { GroupColumn, OrderTerm, SearchTerm } from '../../src/read/parse/ast';
import { parseGroupBy } from '../../src/read/parse/group';
import { parseOrderBy } from '../../src/read/parse/order';
import { parseSearchTerms } from '../../src/read/parse/search';
import { expectQueryError } from './helpers';


const { experiment, test } = exports.lab = Lab.script();
const { expect } = Code;

const label = (text: string) => (text.length > 60 ? `${text.slice(0, 60)}…` : text || '(empty)');

experiment('oslc.orderBy parser', () => {

    const parses: [string, OrderTerm[]][] = [
        ['+a,-b,c', [{ path: ['a'], direction: 'asc', position: 2 }, { path: ['b'], direction: 'desc', position: 5 }, { path: ['c'], direction: 'asc', position: 7 }]],
        [' a, -b', [{ path: ['a'], direction: 'asc', position: 2 }, { path: ['b'], direction: 'desc', position: 6 }]],
        ['+ Asset.Location', [{ path: ['asset', 'location'], direction: 'asc', position: 3 }]],
        ['-spi:wonum', [{ path: ['wonum'], direction: 'desc', position: 2 }]]
    ];

    for (const [text, expected] of parses) {
        test(`parses ${text}`, () => {

            expect(parseOrderBy(text)).to.equal(expected);
        });
    }

    const errors: [string, number, string][] = [
        ['', 1, 'expected an attribute, found end of text'],
        ['a,', 3, 'expected an attribute, found end of text'],
        ['--a', 1, 'expected an attribute, found "--"'],
        ['+-a', 2, 'expected an attribute, found "-"'],
        ['-1', 1, 'expected an attribute, found "-1"'],
        ['a b', 3, 'expected "," or end of text, found "b"'],
        ['a.', 3, 'expected an attribute name, found end of text'],
        ['a'.repeat(10001), 10001, 'expected at most 10000 characters, found 10001']
    ];

    for (const [text, position, message] of errors) {
        test(`refuses ${label(text)} at column ${position}`, () => {

            expectQueryError(() => parseOrderBy(text), 'oslc.orderBy', position, message);
        });
    }

    test('names the parameter it was given', () => {

        expectQueryError(() => parseOrderBy('', 'gbsortby'), 'gbsortby', 1, 'expected an attribute, found end of text');
    });
});

experiment('gbcols parser', () => {

    const parses: [string, GroupColumn[]][] = [
        ['siteid,status,count.*,sum.estdur,avg.x,min.x,max.x', [
            { kind: 'column', path: ['siteid'], position: 1 },
            { kind: 'column', path: ['status'], position: 8 },
            { kind: 'aggregate', aggregate: 'count', position: 15 },
            { kind: 'aggregate', aggregate: 'sum', attribute: 'estdur', position: 23 },
            { kind: 'aggregate', aggregate: 'avg', attribute: 'x', position: 34 },
            { kind: 'aggregate', aggregate: 'min', attribute: 'x', position: 40 },
            { kind: 'aggregate', aggregate: 'max', attribute: 'x', position: 46 }
        ]],
        ['COUNT . spi:Wonum', [{ kind: 'aggregate', aggregate: 'count', attribute: 'wonum', position: 1 }]],
        ['count.*', [{ kind: 'aggregate', aggregate: 'count', position: 1 }]],
        ['count, Sum', [{ kind: 'column', path: ['count'], position: 1 }, { kind: 'column', path: ['sum'], position: 8 }]],
        ['asset.Location', [{ kind: 'column', path: ['asset', 'location'], position: 1 }]],
        ['spi:count.x', [{ kind: 'column', path: ['count', 'x'], position: 1 }]]
    ];

    for (const [text, expected] of parses) {
        test(`parses ${text}`, () => {

            expect(parseGroupBy(text)).to.equal(expected);
        });
    }

    const errors: [string, number, string][] = [
        ['', 1, 'expected a column or an aggregate, found end of text'],
        ['a,', 3, 'expected a column or an aggregate, found end of text'],
        ['*', 1, 'expected a column or an aggregate, found "*"'],
        ['sum.*', 5, 'expected an attribute, found "*"'],
        ['count.', 7, 'expected an attribute or "*", found end of text'],
        ['sum.a.b', 6, 'expected "," or end of text, found "."'],
        ['count.*.x', 8, 'expected "," or end of text, found "."'],
        ['a'.repeat(10001), 10001, 'expected at most 10000 characters, found 10001'],
        // Found by a hostile probe: each was grouped or aggregated twice.
        ['status,status', 8, 'status is named twice'],
        ['siteid,STATUS,count.*,status', 23, 'status is named twice'],
        ['count.*,count.*', 9, 'count.* is named twice'],
        ['sum.estdur,status,SUM.ESTDUR', 19, 'sum.estdur is named twice']
    ];

    for (const [text, position, message] of errors) {
        test(`refuses ${label(text)} at column ${position}`, () => {

            expectQueryError(() => parseGroupBy(text), 'gbcols', position, message);
        });
    }
});

experiment('oslc.searchTerms parser', () => {

    const word = (text: string): SearchTerm => ({ text, exact: false });
    const phrase = (text: string): SearchTerm => ({ text, exact: true });

    const parses: [string, SearchTerm[]][] = [
        ['', []],
        [' , ', []],
        ['pump', [word('pump')]],
        ['pump, valve  Motor\t12', [word('pump'), word('valve'), word('Motor'), word('12')]],
        ['"pump"', [word('pump')]],
        ['"pump 100"', [word('pump 100')]],
        ['""pump 100""', [phrase('pump 100')]],
        ['a "b, c" d', [word('a'), word('b, c'), word('d')]],
        ['x,"y"z', [word('x'), word('y'), word('z')]],
        ['x,""y""z', [word('x'), phrase('y'), word('z')]],
        ['"unclosed phrase ', [word('unclosed'), word('phrase')]],
        ['""', []],
        ['" "', []],
        ['x,,y', [word('x'), word('y')]]
    ];

    for (const [text, expected] of parses) {
        test(`parses ${label(text)}`, () => {

            expect(parseSearchTerms(text)).to.equal(expected);
        });
    }

    test('refuses text over the limit and values that are not one text', () => {

        expectQueryError(() => parseSearchTerms('a'.repeat(10001)), 'oslc.searchTerms', 10001, 'expected at most 10000 characters, found 10001');
        expectQueryError(() => parseSearchTerms(['a', 'b'] as any, 'searchterms'), 'searchterms', 1, 'expected one text value, found a list');
        expectQueryError(() => parseSearchTerms(3 as any), 'oslc.searchTerms', 1, 'expected one text value, found number');
    });
});
