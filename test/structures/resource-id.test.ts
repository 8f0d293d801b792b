import * as Code from '@hapi/code';
import * as Lab from '@hapi/lab';
import * as Fc from 'fast-check';

import { decodeId, encodeBase64Id, encodePairsId } from '../../src/structures/resource-id';


const { experiment, test } = exports.lab = Lab.script();
const { expect } = Code;

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
        }), { numRuns: 2000 });
    });

    test('property: plain values encode exactly as Maximo does', () => {

        Fc.assert(Fc.property(Fc.array(Fc.stringMatching(/^[A-Z0-9 .-]{1,12}$/), { minLength: 1, maxLength: 3 }), (values) => {

            const maximo = `_${Buffer.from(values.join('/')).toString('base64').replace(/=/g, '-').replace(/\+/g, '_').replace(/\//g, '~')}`;
            expect(encodeBase64Id(values)).to.equal(maximo);
        }), { numRuns: 500 });
    });
});
