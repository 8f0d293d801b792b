import { maximoError } from '../errors/maximo-error';
import { normalPassword } from '../auth/passwords';
import commonPasswords from './common-passwords.json';


// What a new password must be (issue 37): at least OSPREY_PASSWORD_MIN_LENGTH characters (default 8), not one of
// the most common passwords (common-passwords.json, compared without case), and not the user's own id. Checked
// wherever a password is set by a person: MXAPIMAXUSER's passwordinput and the osprey command.

const common = new Set((commonPasswords as string[]).map((word) => word.toLowerCase()));

// Why the password is refused, naming the rule; undefined when it may be set.
export const passwordProblem = (userid: string, password: string, minLength: number): string | undefined => {

    if ([...password].length < minLength) {
        return `The password is too short: it must have at least ${minLength} characters (OSPREY_PASSWORD_MIN_LENGTH).`;
    }

    // As MXAPIMAXUSER's passwordinput takes them (its length), whichever way the password comes.
    if ([...password].length > 200) {
        return 'The password is too long: it may have at most 200 characters.';
    }

    if (!password.trim()) {
        return 'The password cannot be only spaces.';
    }

    const lower = password.toLowerCase();
    if (lower === userid.toLowerCase()) {
        return 'The password cannot be the user ID.';
    }

    if (common.has(lower)) {
        return 'The password is one of the most common passwords; choose another.';
    }
};

// The password, checked (a 400 naming the rule it breaks); `check`, Maximo's passwordcheck, must match when given.
export const checkNewPassword = (userid: string, password: unknown, check: unknown, minLength: number): string => {

    // An empty value reaches here as null (a write reads "" as no value, as Maximo does); the attribute's type
    // refuses what is not text before.
    if (typeof password !== 'string') {
        throw maximoError('badRequest', `passwordinput is empty: send the new password, of at least ${minLength} characters.`, { attribute: 'passwordinput' });
    }

    // Compared and measured as they are hashed (src/auth/passwords.ts): in Unicode NFC.
    const normal = normalPassword(password);
    if (check !== undefined && normalPassword(String(check)) !== normal) {
        throw maximoError('badRequest', 'passwordcheck does not match passwordinput: the new password must be typed the same twice.', { attribute: 'passwordcheck' });
    }

    const problem = passwordProblem(userid, normal, minLength);
    if (problem) {
        throw maximoError('badRequest', problem, { attribute: 'passwordinput' });
    }

    return normal;
};

// A user ID made through the API or the osprey command: what every login can send and every listing shows as it
// is (no space, colon, control or invisible character; ASCII, so that the structure's upper case and the login's
// normalisation, src/auth/userid.ts, spell it alike), at most the column's 30 characters.
export const useridPattern = /^[A-Z0-9][A-Z0-9_.@-]{0,29}$/;

export const useridProblem = (userid: string): string | undefined => {

    return useridPattern.test(userid) ? undefined : `The user ID ${JSON.stringify(userid.slice(0, 40))} is not allowed: a user ID has 1 to 30 of the letters A to Z, the digits and . _ @ -, starting with a letter or a digit (a space, a colon, a control or an invisible character could not be sent by a login or would hide in a listing).`;
};
