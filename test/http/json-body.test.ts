import { isUtf8 } from 'node:buffer';

import * as Code from '@hapi/code';
import * as Lab from '@hapi/lab';
import * as Fc from 'fast-check';

import { bodyName, firstInvalidUtf8, nameProblem, readJsonBody } from '../../src/http/json-body';
import { queryBytesProblem } from '../../src/http/query-bytes';
import { decimalPlaces } from '../../src/structures/types';


const { experiment, test } = exports.lab = Lab.script();
const { expect } = Code;

// The strict JSON reader of issue 34 against oracles: random JSON texts written key by key (with whitespace,
// escapes and keys that read as one name), and random bytes.

const runs = Number(process.env.OSPREY_FUZZ_RUNS ?? 200);

// Keys that often read as one name (case, `spi:`), and keys that look like JSON's own punctuation.
const keys = Fc.oneof(
    Fc.constantFrom('description', 'DESCRIPTION', 'spi:description', 'Spi:Description', 'a', 'A', 'spi:a', 'x:y', 'spi:', '', '"q"', '\\', 'é', 'É', ':', '{', '__proto__', 'woactivity'),
    Fc.string({ maxLength: 6 })
);

type Json = { readonly kind: 'object'; readonly entries: readonly [string, Json][] } | { readonly kind: 'array'; readonly items: readonly Json[] } | { readonly kind: 'scalar'; readonly value: unknown };

const json: Fc.Arbitrary<Json> = Fc.letrec<{ node: Json }>((tie) => ({
    node: Fc.oneof(
        { depthSize: 'small', withCrossShrink: true },
        Fc.oneof(Fc.string({ maxLength: 8 }), Fc.constantFrom('a":1,"a', '\\"', '{"a":1}', ':'), Fc.integer(), Fc.double({ noNaN: true, noDefaultInfinity: true }), Fc.boolean(), Fc.constant(null)).map((value) => ({ kind: 'scalar' as const, value })),
        Fc.array(tie('node'), { maxLength: 3 }).map((items) => ({ kind: 'array' as const, items })),
        Fc.array(Fc.tuple(keys, tie('node')), { maxLength: 4 }).map((entries) => ({ kind: 'object' as const, entries }))
    )
})).node;

const space = Fc.constantFrom('', '', ' ', '\n', '\t ', '\r\n');

// A key written with some of its characters as \u escapes.
const escaped = (key: string, mask: number) => `"${[...key].map((char, i) => ((mask >> (i % 16)) & 1 ? char.split('').map((unit) => `\\u${unit.charCodeAt(0).toString(16).padStart(4, '0')}`).join('') : JSON.stringify(char).slice(1, -1))).join('')}"`;

// The text of a tree, and what the reader must find in it: the first key (in text order) that repeats a name of
// its object, or the first __proto__, whichever comes first.
const write = (root: Json, spaces: string[], mask: number) => {

    let text = '';
    let found: { name: string; proto: boolean } | undefined;
    let turn = 0;
    const gap = () => spaces[turn++ % spaces.length]!;
    const emit = (node: Json): void => {

        if (node.kind === 'scalar') {
            text += JSON.stringify(node.value);
            return;
        }

        if (node.kind === 'array') {
            text += `[${gap()}`;
            node.items.forEach((item, i) => {

                text += i ? `,${gap()}` : '';
                emit(item);
            });
            text += `${gap()}]`;
            return;
        }

        const names = new Set<string>();
        text += `{${gap()}`;
        node.entries.forEach(([key, value], i) => {

            text += `${i ? `,${gap()}` : ''}${escaped(key, mask + i)}${gap()}:${gap()}`;
            if (!found && key === '__proto__') {
                found = { name: key, proto: true };
            }
            else if (!found && names.has(bodyName(key))) {
                found = { name: key, proto: false };
            }

            names.add(bodyName(key));
            emit(value);
        });
        text += `${gap()}}`;
    };

    emit(root);
    return { text, found };
};

experiment('the strict JSON reader', () => {

    test('finds exactly the keys that repeat a name of their object, and __proto__, as the oracle does', () => {

        Fc.assert(Fc.property(json, Fc.array(space, { minLength: 1, maxLength: 5 }), Fc.nat(), (root, spaces, mask) => {

            const { text, found } = write(root, spaces, mask);
            expect(JSON.parse(text)).to.not.be.undefined();
            const problem = nameProblem(text);
            expect(problem?.second.name, text).to.equal(found?.name);
            expect(problem !== undefined && problem.first === undefined, text).to.equal(found?.proto ?? false);
            if (problem?.first) {
                expect(bodyName(problem.first.name)).to.equal(bodyName(problem.second.name));
                expect(problem.first.at).to.be.below(problem.second.at);
                expect(text[problem.second.at]).to.equal('"');
            }
        }), { numRuns: runs * 3 });
    });

    test('reads a body as JSON.parse does when nothing is named twice, and refuses it when something is', () => {

        Fc.assert(Fc.property(json, Fc.nat(), (root, mask) => {

            const { text, found } = write(root, [' '], mask);
            const bytes = Buffer.from(text);
            if (found) {
                expect(() => readJsonBody(bytes)).to.throw(found.proto ? /__proto__/ : /twice in one object/);
            }
            else {
                expect(readJsonBody(bytes)).to.equal(JSON.parse(text));
            }
        }), { numRuns: runs * 3 });
        expect(readJsonBody(Buffer.alloc(0))).to.be.null();
        expect(() => readJsonBody(Buffer.from('\uFEFF{}'))).to.throw('Invalid request payload JSON format');
        expect(() => readJsonBody(Buffer.from('{"a":'))).to.throw('Invalid request payload JSON format');
    });

    test('finds the first byte of random bytes that starts no UTF-8 character', () => {

        const bytes = Fc.oneof(
            Fc.uint8Array({ maxLength: 12 }),
            Fc.string({ unit: 'binary', maxLength: 8 }).map((text) => new Uint8Array(Buffer.from(text))),
            Fc.tuple(Fc.string({ maxLength: 6 }), Fc.uint8Array({ minLength: 1, maxLength: 4 }), Fc.string({ maxLength: 6 })).map(([a, b, c]) => new Uint8Array(Buffer.concat([Buffer.from(a), b, Buffer.from(c)])))
        );
        Fc.assert(Fc.property(bytes, (sample) => {

            const at = firstInvalidUtf8(sample);
            expect(at === -1).to.equal(isUtf8(sample));
            if (at !== -1) {
                expect(isUtf8(sample.subarray(0, at))).to.be.true();
                expect(() => readJsonBody(Buffer.concat([Buffer.from('"'), sample, Buffer.from('"')]))).to.throw(new RegExp(`offset ${at + 1} `));
            }
        }), { numRuns: runs * 2 });
    });

    test('refuses a query whose escapes are not UTF-8, and only such a query', () => {

        Fc.assert(Fc.property(Fc.uint8Array({ maxLength: 8 }), Fc.string({ maxLength: 4 }), (sample, plain) => {

            const escapes = [...sample].map((byte) => `%${byte.toString(16).padStart(2, '0')}`).join('');
            const target = `/x?a=${encodeURIComponent(plain)}${escapes}&b=1`;
            expect(queryBytesProblem(target) === undefined).to.equal(isUtf8(sample));
        }), { numRuns: runs * 3 });
        expect(queryBytesProblem('/x')).to.be.undefined();
        expect(queryBytesProblem('/x?a=100%')).to.be.undefined();
        expect(queryBytesProblem('/x%FF?a=1')).to.be.undefined();
    });

    test('counts the decimal places of a number, written with an exponent or not', () => {

        expect([1e-7, 1.5e-7, 1.234, 0.1, 100, 1e21, 12.5, -0.05, 1.5e300, 5e-324].map(decimalPlaces)).to.equal([7, 8, 3, 1, 0, 0, 1, 2, 0, 324]);
        Fc.assert(Fc.property(Fc.integer({ min: -1e9, max: 1e9 }), Fc.integer({ min: 0, max: 6 }), (units, scale) => {

            // A number read from `units` with `scale` places has at most that many.
            expect(decimalPlaces(Number(`${units}e-${scale}`))).to.be.at.most(scale);
        }), { numRuns: runs });
    });
});
