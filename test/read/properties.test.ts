import * as Lab from '@hapi/lab';
import * as fc from 'fast-check';

import type { Literal, SelectItem, Where } from '../../src/read/parse/ast';
import { parseGroupBy } from '../../src/read/parse/group';
import { parseOrderBy } from '../../src/read/parse/order';
import { QueryError } from '../../src/read/parse/query-error';
import { parseSearchTerms } from '../../src/read/parse/search';
import { parseSelect } from '../../src/read/parse/select';
import { parseWhere } from '../../src/read/parse/where';


const { experiment, test } = exports.lab = Lab.script();

const runs = { numRuns: 3000 };

// Text that a parser either reads or refuses with a QueryError inside it; anything else fails the property.
// A plain boolean rather than Code assertions: these run tens of thousands of times.
const readsOrRefuses = (parse: (text: string) => unknown) => {

    return (text: string) => {

        try {
            parse(text);
            return true;
        }
        catch (error) {
            const position = (error as QueryError).position;
            return error instanceof QueryError && Number.isInteger(position) && position >= 1 && position <= text.length + 1;
        }
    };
};

const parsers: [string, (text: string) => unknown][] = [
    ['oslc.where', parseWhere],
    ['oslc.select', parseSelect],
    ['oslc.orderBy', parseOrderBy],
    ['gbcols', parseGroupBy],
    ['oslc.searchTerms', parseSearchTerms]
];

// The grammar's alphabet and keywords: random sequences of these reach far more rules than random characters.
const pieces = [...'abz_09.{}[]()"=!<>%*,:-+\\ ', 'and', 'or', 'not', 'in', 'true', 'false', 'spi:', 'x:', '_dbcount', 'count.', '--', '1e3', '\t'];
const grammarText = fc.array(fc.constantFrom(...pieces), { maxLength: 40 }).map((parts) => parts.join(''));
const deepText = fc.tuple(fc.nat({ max: 40 }), fc.constantFrom('(', 'not ', 'a{', 'a{b{')).map(([n, open]) => open.repeat(n) + 'a=1' + ')'.repeat(n));

experiment('every parser reads or refuses any text', { timeout: 30_000 }, () => {

    for (const [name, parse] of parsers) {
        test(`${name}: random strings`, () => {

            fc.assert(fc.property(fc.string({ maxLength: 60 }), readsOrRefuses(parse)), runs);
            fc.assert(fc.property(fc.string({ unit: 'binary', maxLength: 30 }), readsOrRefuses(parse)), runs);
        });

        test(`${name}: strings of the grammar's pieces, deep nesting`, () => {

            fc.assert(fc.property(grammarText, readsOrRefuses(parse)), { numRuns: 5000 });
            fc.assert(fc.property(deepText, readsOrRefuses(parse)), { numRuns: 300 });
        });
    }
});

// Printers back to text, as a client would write it: parse(print(parse(text))) must equal parse(text).
const quote = (text: string) => `"${text.replace(/[\\"]/g, '\\$&')}"`;
const printNumber = (value: number) => (Object.is(value, -0) ? '-0' : String(value));
const printNames = (names: string[]) => (['and', 'or', 'not'].includes(names[0]!) ? 'spi:' : '') + names.join('.');

const printLiteral = (literal: Literal): string => {

    switch (literal.kind) {
        case 'string': return quote(literal.value);
        case 'number': return printNumber(literal.value);
        case 'boolean': return String(literal.value);
        case 'param': return `:${literal.name}`;
    }
};

const printWhere = (where: Where): string => {

    const inner = (term: Where) => (term.kind === 'and' || term.kind === 'or' ? `(${printWhere(term)})` : printWhere(term));
    switch (where.kind) {
        case 'and': return where.terms.map(inner).join(' and ');
        case 'or': return where.terms.map(printWhere).join(' or ');
        case 'not': return `not ${inner(where.term)}`;
        case 'compare': return `${printNames(where.path.names)}${where.op}${printLiteral(where.value)}`;
        case 'like': return `${printNames(where.path.names)}${where.negated ? '!=' : '='}${quote(where.pattern)}`;
        case 'isnull': return `${printNames(where.path.names)}${where.isNull ? '!=' : '='}"*"`;
        case 'in': return `${printNames(where.path.names)} ${where.negated ? 'not in' : 'in'} [${where.values.map(printLiteral).join(',')}]`;
        case 'exists': return `${printNames(where.path.names)}{${printWhere(where.where)}}`;
    }
};

const printSelect = (items: SelectItem[]): string => {

    return items.map((item) => {

        const alias = item.kind !== 'star' && item.alias ? `--${item.alias}` : '';
        switch (item.kind) {
            case 'star': return '*';
            case 'attr': return printNames(item.path) + alias;
            case 'nested': return `${printNames(item.path)}{${printSelect(item.select)}}${alias}`;
            case 'aggregate': return `${printNames(item.path)}._db${item.aggregate}${alias}`;
        }
    }).join(',');
};

const withoutPositions = (value: unknown) => JSON.stringify(value, (key, item) => (key === 'position' ? undefined : item));

// Valid text built from the grammar, with the spacing and case a client might use.
const ws = fc.constantFrom('', ' ', '  ', '\t');
const name = fc.constantFrom('a', 'Status', 'spi:wonum', 'OSLC:x_1', '_y', 'in', 'TRUE', 'spi:Not', 'spi:and');
const names = fc.array(name, { minLength: 1, maxLength: 3 }).map((parts) => parts.join('.'));
// "[…]" with = or != is a list, and a list with an empty item is refused: leave those out of valid text.
const emptyItem = (text: string) => /^\[.*\]$/s.test(text) && text.slice(1, -1).split(',').some((item) => !item.trim());
const stringValue = fc.string({ unit: fc.constantFrom('a', 'B', '%', '*', '[', ']', ',', '"', '\\', ' '), maxLength: 6 }).filter((text) => !emptyItem(text)).map(quote);
const numberValue = fc.oneof(fc.integer(), fc.double({ noNaN: true, noDefaultInfinity: true })).map(printNumber);
const value = fc.oneof(stringValue, numberValue, fc.constantFrom('true', 'False', ':p', ':siteId'));

const { where } = fc.letrec<{ where: string; condition: string }>((tie) => ({
    where: fc.oneof({ maxDepth: 5, depthSize: 'small' },
        tie('condition'),
        fc.tuple(tie('where'), fc.constantFrom(' and ', ' AND ', ' or ', ' Or '), tie('where')).map((parts) => parts.join('')),
        tie('where').map((term) => `not ${term}`),
        fc.tuple(ws, tie('where'), ws).map(([before, term, after]) => `(${before}${term}${after})`)),
    condition: fc.oneof({ depthSize: 'small' },
        fc.tuple(names, ws, fc.constantFrom('=', '!=', '<', '<=', '>', '>='), ws, value).map((parts) => parts.join('')),
        fc.tuple(names, fc.constantFrom(' in ', ' not in ', ' NOT IN '), fc.array(value, { minLength: 1, maxLength: 3 })).map(([path, op, values]) => `${path}${op}[${values.join(', ')}]`),
        fc.tuple(names, tie('where')).map(([path, inner]) => `${path}{${inner}}`))
}));

const { select } = fc.letrec<{ select: string; item: string }>((tie) => ({
    select: fc.array(fc.tuple(ws, tie('item'), ws).map((parts) => parts.join('')), { minLength: 1, maxLength: 3 }).map((items) => items.join(',')),
    item: fc.oneof({ maxDepth: 4, depthSize: 'small' },
        fc.constant('*'),
        fc.tuple(names, fc.constantFrom('', '--Alias', '--spi:b')).map((parts) => parts.join('')),
        fc.tuple(names, fc.constantFrom('._dbcount', '._DBSUM', '._dbavg', '._dbmin', '._dbmax'), fc.constantFrom('', '--n')).map((parts) => parts.join('')),
        fc.tuple(names, tie('select'), fc.constantFrom('', '--kids')).map(([path, inner, alias]) => `${path}{${inner}}${alias}`))
}));

experiment('round trips', { timeout: 30_000 }, () => {

    test('oslc.where: valid text parses, every path points at its name, and printing the AST gives text that parses the same', () => {

        fc.assert(fc.property(where, (text) => {

            const parsed = parseWhere(text);
            const positions = [...JSON.stringify(parsed).matchAll(/"position":(\d+)/g)].map((match) => Number(match[1]));
            return positions.every((position) => /[A-Za-z_]/.test(text[position - 1]!)) &&
                withoutPositions(parseWhere(printWhere(parsed))) === withoutPositions(parsed);
        }), runs);
    });

    test('oslc.select: valid text parses, and printing the items gives text that parses the same', () => {

        fc.assert(fc.property(select, (text) => {

            const parsed = parseSelect(text);
            return withoutPositions(parseSelect(printSelect(parsed))) === withoutPositions(parsed);
        }), runs);
    });

    test('oslc.orderBy: printed terms parse the same', () => {

        fc.assert(fc.property(fc.array(fc.tuple(fc.constantFrom('', '+', '-', ' '), names), { minLength: 1, maxLength: 4 }), (terms) => {

            const parsed = parseOrderBy(terms.map((term) => term.join('')).join(','));
            const printed = parsed.map((term) => (term.direction === 'desc' ? '-' : '+') + printNames(term.path)).join(',');
            return withoutPositions(parseOrderBy(printed)) === withoutPositions(parsed);
        }), runs);
    });

    test('gbcols: printed columns parse the same', () => {

        const column = fc.constantFrom('siteid', 'Asset.Location', 'count.*', 'COUNT.wonum', 'sum.x', 'avg.Y', 'min.z', 'max.z', 'count', 'spi:sum.x');
        // Each at most once: a column or an aggregate named twice is refused (columns.test.ts).
        fc.assert(fc.property(fc.uniqueArray(fc.tuple(ws, column), { minLength: 1, maxLength: 5, selector: ([, each]) => each }), (columns) => {

            const parsed = parseGroupBy(columns.map((parts) => parts.join('')).join(','));
            const printed = parsed.map((item) => {

                if (item.kind === 'aggregate') {
                    return `${item.aggregate}.${item.attribute ?? '*'}`;
                }

                // A column whose first name is an aggregate's needs the prefix, or `sum.x` would read as the sum of x.
                return (item.path.length > 1 ? 'spi:' : '') + item.path.join('.');
            }).join(',');
            return withoutPositions(parseGroupBy(printed)) === withoutPositions(parsed);
        }), runs);
    });
});
