import * as Crypto from 'node:crypto';
import { promisify } from 'node:util';


const scrypt = promisify(Crypto.scrypt) as (password: string, salt: Buffer, keylen: number, options: Crypto.ScryptOptions) => Promise<Buffer>;

const cost = { N: 16384, r: 8, p: 1 };

// A password is hashed in Unicode NFC (NIST SP 800-63B asks for one normalisation): "é" typed as one code point
// on one keyboard and as e + U+0301 on another is one password.
export const normalPassword = (password: string): string => password.normalize('NFC');

// Stored as scrypt$N$r$p$salt$hash so the cost can be raised later without breaking old hashes.
export const hashPassword = async (password: string): Promise<string> => {

    const salt = Crypto.randomBytes(16);
    const hash = await scrypt(normalPassword(password), salt, 32, cost);
    return ['scrypt', cost.N, cost.r, cost.p, salt.toString('base64'), hash.toString('base64')].join('$');
};

// The password in NFC, then as typed where that differs: a hash made before passwords were normalised was made of
// the text as typed. The second check depends on the text sent only, never on the account, so it tells nothing.
export const verifyPassword = async (password: string, stored: string | null | undefined): Promise<boolean> => {

    const candidates = normalPassword(password) === password ? [password] : [normalPassword(password), password];
    const parts = (stored ?? '').split('$');
    if (parts.length !== 6 || parts[0] !== 'scrypt') {
        // Spend the same time as a real check, so a missing user cannot be told from a wrong password.
        for (const candidate of candidates) {
            await scrypt(candidate, Buffer.alloc(16), 32, cost);
        }

        return false;
    }

    const [, N, r, p, salt, hash] = parts as [string, string, string, string, string, string];
    const expected = Buffer.from(hash, 'base64');
    let matched = false;
    for (const candidate of candidates) {
        const actual = await scrypt(candidate, Buffer.from(salt, 'base64'), expected.length, { N: Number(N), r: Number(r), p: Number(p) });
        matched = Crypto.timingSafeEqual(expected, actual) || matched;
    }

    return matched;
};
