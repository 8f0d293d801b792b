import * as Code from '@hapi/code';
import * as Lab from '@hapi/lab';

import type { SelectItem } from '../../src/read/parse/ast';
import { parseSelect } from '../../src/read/parse/select';
import { expectQueryError } from './helpers';


const { experiment, test } = exports.lab = Lab.script();
const { expect } = Code;

const attr = (path: string, position: number, alias?: string): SelectItem => ({ kind: 'attr', path: path.split('.'), position, ...(alias ? { alias } : {}) });

experiment('oslc.select parser', () => {

    const parses: [string, SelectItem[]][] = [
        ['*', [{ kind: 'star', position: 1 }]],
        ['a,b', [attr('a', 1), attr('b', 3)]],
        [' a , B ', [attr('a', 2), attr('b', 6)]],
        ['*,wonum', [{ kind: 'star', position: 1 }, attr('wonum', 3)]],
        ['asset.Description', [attr('asset.description', 1)]],
        ['a--b', [attr('a', 1, 'b')]],
        ['description -- MyName', [attr('description', 1, 'MyName')]],
        ['href,_rowstamp,allowedactions', [attr('href', 1), attr('_rowstamp', 6), attr('allowedactions', 16)]],
        ['spi:wonum,oslc:shortTitle', [attr('wonum', 1), attr('shorttitle', 11)]],
        ['woactivity{taskid,status}', [{ kind: 'nested', path: ['woactivity'], position: 1, select: [attr('taskid', 12), attr('status', 19)] }]],
        ['woactivity{*}', [{ kind: 'nested', path: ['woactivity'], position: 1, select: [{ kind: 'star', position: 12 }] }]],
        ['rel.openwo{wonum}--open', [{ kind: 'nested', path: ['rel', 'openwo'], position: 1, select: [attr('wonum', 12)], alias: 'open' }]],
        ['a{b{c--d}}', [{ kind: 'nested', path: ['a'], position: 1, select: [{ kind: 'nested', path: ['b'], position: 3, select: [attr('c', 5, 'd')] }] }]],
        ['rel.openwo._dbcount', [{ kind: 'aggregate', path: ['rel', 'openwo'], aggregate: 'count', position: 1 }]],
        ['wplabor.regularhrs._dbsum--hours', [{ kind: 'aggregate', path: ['wplabor', 'regularhrs'], aggregate: 'sum', position: 1, alias: 'hours' }]],
        ['x.y._dbavg,x.y._DBMIN,x.y._dbmax', [
            { kind: 'aggregate', path: ['x', 'y'], aggregate: 'avg', position: 1 },
            { kind: 'aggregate', path: ['x', 'y'], aggregate: 'min', position: 12 },
            { kind: 'aggregate', path: ['x', 'y'], aggregate: 'max', position: 23 }
        ]]
    ];

    for (const [text, expected] of parses) {
        test(`parses ${text}`, () => {

            expect(parseSelect(text)).to.equal(expected);
        });
    }

    test('parses 32 levels of nesting', () => {

        let item: SelectItem = attr('b', 65);
        for (let i = 32; i > 0; --i) {
            item = { kind: 'nested', path: ['a'], position: 2 * i - 1, select: [item] };
        }

        expect(parseSelect('a{'.repeat(32) + 'b' + '}'.repeat(32))).to.equal([item]);
    });

    const errors: [string, number, string][] = [
        ['', 1, 'expected an attribute or "*", found end of text'],
        ['a,', 3, 'expected an attribute or "*", found end of text'],
        ['a,,b', 3, 'expected an attribute or "*", found ","'],
        ['_dbcount', 1, 'expected a relationship or attribute before "_dbcount", found none'],
        ['a, _DBSUM', 4, 'expected a relationship or attribute before "_dbsum", found none'],
        ['a{}', 3, 'expected an attribute or "*", found "}"'],
        ['a{b', 4, 'expected "," or "}", found end of text'],
        ['a}', 2, 'expected "," or end of text, found "}"'],
        ['a--', 4, 'expected an alias, found end of text'],
        ['a--"b"', 4, 'expected an alias, found the string "b"'],
        ['*--x', 2, 'expected "," or end of text, found "--"'],
        ['a._dbcount{b}', 11, 'expected "," or end of text, found "{"'],
        ['a b', 3, 'expected "," or end of text, found "b"'],
        ['a-b', 2, 'expected "," or end of text, found "-"'],
        ['a.', 3, 'expected an attribute name, found end of text'],
        ['x:a', 1, 'expected an attribute or "*", found an unknown prefix "x:"'],
        ['a{'.repeat(33) + 'b' + '}'.repeat(33), 66, 'expected at most 32 levels of nesting, found more'],
        ['a,'.repeat(5000) + 'b', 10001, 'expected at most 10000 characters, found 10001']
    ];

    for (const [text, position, message] of errors) {
        test(`refuses ${text.length > 60 ? `${text.slice(0, 60)}…` : text || '(empty)'} at column ${position}`, () => {

            expectQueryError(() => parseSelect(text), 'oslc.select', position, message);
        });
    }

    test('names the parameter it was given', () => {

        expectQueryError(() => parseSelect('a,', 'properties'), 'properties', 3, 'expected an attribute or "*", found end of text');
    });
});
