import * as Code from '@hapi/code';
import * as Lab from '@hapi/lab';

import { WriterBusy } from '../../src/db/group-commit';
import { asBoom } from '../../src/errors/edge';


const { experiment, test } = exports.lab = Lab.script();
const { expect } = Code;

experiment('a write that waited past its limit for SQLite\'s writer', () => {

    test('is a busy server\'s 503 in Maximo\'s shape, not a 500', () => {

        const boom = asBoom(new WriterBusy('The write waited 60000 ms for SQLite\'s writer connection'));
        expect(boom.output.statusCode).to.equal(503);
        expect((boom.data as { reasonCode: string }).reasonCode).to.equal('BMXAA1729E');
        expect(boom.message).to.contain('Nothing of this request was written');
    });
});
