import * as Crypto from 'node:crypto';

import * as Code from '@hapi/code';
import * as Lab from '@hapi/lab';

import { hashPassword, verifyPassword } from '../../src/auth/passwords';


const lab = exports.lab = Lab.script();
const { experiment, test } = lab;
const { expect } = Code;

// A hash as Osprey made it before passwords were normalised: of the text as typed.
const typedHash = (password: string): string => {

    const salt = Crypto.randomBytes(16);
    const hash = Crypto.scryptSync(password, salt, 32, { N: 16384, r: 8, p: 1 });
    return ['scrypt', 16384, 8, 1, salt.toString('base64'), hash.toString('base64')].join('$');
};

experiment('passwords', () => {

    const composed = 'Caf\u00e9-Harbor-42';
    const decomposed = 'Cafe\u0301-Harbor-42';

    test('a new hash takes the password in either Unicode form', async () => {

        const stored = await hashPassword(decomposed);
        expect(await verifyPassword(composed, stored)).to.be.true();
        expect(await verifyPassword(decomposed, stored)).to.be.true();
        expect(await verifyPassword('Cafe-Harbor-42', stored)).to.be.false();
    });

    test('a hash made of the text as typed still takes it as typed', async () => {

        const stored = typedHash(decomposed);
        expect(await verifyPassword(decomposed, stored)).to.be.true();
        expect(await verifyPassword('Cafe\u0301-Harbor-43', stored)).to.be.false();
        expect(await verifyPassword(decomposed, undefined)).to.be.false();
    });
});
