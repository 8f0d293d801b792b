import * as Crypto from 'node:crypto';
import { promisify } from 'node:util';


const scrypt = promisify(Crypto.scrypt) as (password: string, salt: Buffer, keylen: number, options: Crypto.ScryptOptions) => Promise<Buffer>;

const cost = { N: 16384, r: 8, p: 1 };

// Stored as scrypt$N$r$p$salt$hash so the cost can be raised later without breaking old hashes.
export const hashPassword = async (password: string): Promise<string> => {

    const salt = Crypto.randomBytes(16);
    const hash = await scrypt(password, salt, 32, cost);
    return ['scrypt', cost.N, cost.r, cost.p, salt.toString('base64'), hash.toString('base64')].join('$');
};

export const verifyPassword = async (password: string, stored: string | null | undefined): Promise<boolean> => {

    const parts = (stored ?? '').split('$');
    if (parts.length !== 6 || parts[0] !== 'scrypt') {
        // Spend the same time as a real check, so a missing user cannot be told from a wrong password.
        await scrypt(password, Buffer.alloc(16), 32, cost);
        return false;
    }

    const [, N, r, p, salt, hash] = parts as [string, string, string, string, string, string];
    const expected = Buffer.from(hash, 'base64');
    const actual = await scrypt(password, Buffer.from(salt, 'base64'), expected.length, { N: Number(N), r: Number(r), p: Number(p) });
    return Crypto.timingSafeEqual(expected, actual);
};
