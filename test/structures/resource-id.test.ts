import * as Code from '@hapi/code';
import * as Lab from '@hapi/lab';
import * as Fc from 'fast-check';

import { decodeId, encodeBase64Id, encodePairsId } from '../../src/structures/resource-id';


const { experiment, test } = exports.lab = Lab.script();
const { expect } = Code;

// The codec as it was written first, on Buffer and regular expressions: the reference the hand-coded base64
// (issue 19) must agree with on every input.
const referenceEncode = (values: readonly (string | number | null)[]) => {

    const text = values.map((value) => (value === null ? '~NULL~' : String(value).replace(/[%/~]/g, (char) => `%${char.charCodeAt(0).toString(16).toUpperCase().padStart(2, '0')}`))).join('/');
    return `_${Buffer.from(text, 'utf8').toString('base64').replace(/[=+/]/g, (char) => ({ '=': '-', '+': '_', '/': '~' })[char]!)}`;
};

const referenceText = (id: string) => {

    const base64 = id.slice(1).replace(/[-_~]/g, (char) => ({ '-': '=', '_': '+', '~': '/' })[char]!);
    return !/^[A-Za-z0-9+/]*={0,2}$/.test(base64) || base64.length % 4 === 1 ? undefined : Buffer.from(base64, 'base64').toString('utf8');
};

const referenceDecode = (id: string, keys: number) => {

    const parts = referenceText(id)?.split('/');
    return parts?.length === keys ? { kind: 'keys' as const, values: parts.map((part) => (part === '~NULL~' ? null : part.replace(/%([0-9A-Fa-f]{2})/g, (_, hex: string) => String.fromCharCode(parseInt(hex, 16))))) } : undefined;
};

const keysOf = (n: number) => Array.from({ length: n }, (_, i) => `k${i}`);

const keyValue = Fc.oneof(Fc.string({ unit: 'grapheme', maxLength: 20 }), Fc.constantFrom('~NULL~', '/', '%2F', 'a|b:c', '~', '', '_'), Fc.constant(null));

experiment('resource ids', () => {

    test('encodes Maximo\'s _base64 form exactly', () => {

        expect(encodeBase64Id(['BEDFORD', '1001'])).to.equal('_QkVERk9SRC8xMDAx');
        expect(encodeBase64Id(['BEDFORD', 11430])).to.equal('_QkVERk9SRC8xMTQzMA--');
        expect(encodeBase64Id([null])).to.equal('_fk5VTEx_');
        expect(Buffer.from('fk5VTEx+', 'base64').toString()).to.equal('~NULL~');
        expect(decodeId('_QkVERk9SRC8xMDAx', ['siteid', 'wonum'])).to.equal({ kind: 'keys', values: ['BEDFORD', '1001'] });
    });

    test('decodes the col:value form in any order and the numeric unique id', () => {

        expect(decodeId('wonum:1001|siteid:BEDFORD', ['siteid', 'wonum'])).to.equal({ kind: 'keys', values: ['BEDFORD', '1001'] });
        expect(decodeId('SITEID:BEDFORD|WONUM:1001', ['siteid', 'wonum'])).to.equal({ kind: 'keys', values: ['BEDFORD', '1001'] });
        expect(decodeId('12345', ['siteid', 'wonum'])).to.equal({ kind: 'unique', value: 12345 });
        expect(encodePairsId(['siteid', 'wonum'], ['BEDFORD', 'A:B|C%'])).to.equal('siteid:BEDFORD|wonum:A%3AB%7CC%25');
    });

    test('rejects malformed ids', () => {

        for (const id of ['_!!!', '_QQ', '_QkVERk9SRA--', 'siteid:BEDFORD', 'wonum:1|wonum:2', 'nope:1|siteid:2', ':x|siteid:1', 'plain', '']) {
            expect(decodeId(id, ['siteid', 'wonum']), id).to.not.exist();
        }
    });

    test('property: every key tuple round-trips through both forms, odd characters and nulls included', () => {

        Fc.assert(Fc.property(Fc.array(keyValue, { minLength: 1, maxLength: 4 }), (values) => {

            const keys = values.map((_, i) => `k${i}`);
            const expected = values.map((value) => (value === null ? null : String(value)));
            expect(decodeId(encodeBase64Id(values), keys)).to.equal({ kind: 'keys', values: expected });
            expect(decodeId(encodePairsId(keys, values), keys)).to.equal({ kind: 'keys', values: expected });
            const id = encodeBase64Id(values);
            expect(id).to.match(/^_[A-Za-z0-9_~-]*$/);
        }), { numRuns: 1000 });
    });

    test('property: plain values encode exactly as Maximo does', () => {

        Fc.assert(Fc.property(Fc.array(Fc.stringMatching(/^[A-Z0-9 .-]{1,12}$/), { minLength: 1, maxLength: 3 }), (values) => {

            const maximo = `_${Buffer.from(values.join('/')).toString('base64').replace(/=/g, '-').replace(/\+/g, '_').replace(/\//g, '~')}`;
            expect(encodeBase64Id(values)).to.equal(maximo);
        }), { numRuns: 500 });
    });

    test('property: the base64 form is coded as Buffer codes it, for any text and any id', () => {

        Fc.assert(Fc.property(Fc.array(Fc.oneof(keyValue, Fc.string({ unit: 'binary', maxLength: 12 }), Fc.integer()), { minLength: 1, maxLength: 4 }), (values) => {

            expect(encodeBase64Id(values)).to.equal(referenceEncode(values));
        }), { numRuns: 1500 });

        // Ids made of Maximo's alphabet, its padding anywhere, and now and then a character outside it.
        const idChar = Fc.oneof({ weight: 20, arbitrary: Fc.constantFrom(...'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_~') }, { weight: 2, arbitrary: Fc.constant('-') }, { weight: 1, arbitrary: Fc.constantFrom('=', '+', '/', ' ', 'é', '\u0000') });
        Fc.assert(Fc.property(Fc.array(idChar, { maxLength: 40 }), Fc.integer({ min: 1, max: 4 }), (chars, keys) => {

            const id = `_${chars.join('')}`;
            expect(decodeId(id, keysOf(keys))).to.equal(referenceDecode(id, keys));
        }), { numRuns: 2500 });

        // Ids of text beyond ASCII (bytes above 0x7f in every position of a group), whole and cut short.
        Fc.assert(Fc.property(Fc.array(Fc.string({ unit: 'binary', maxLength: 16 }), { minLength: 1, maxLength: 3 }), Fc.nat(3), (values, cut) => {

            const whole = referenceEncode(values);
            const id = whole.slice(0, Math.max(1, whole.length - cut));
            expect(decodeId(id, keysOf(values.length))).to.equal(referenceDecode(id, values.length));
        }), { numRuns: 1500 });
    });
});
