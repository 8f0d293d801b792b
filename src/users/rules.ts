import { userKey } from '../auth/throttle';
import { hashPassword } from '../auth/passwords';
import type { Osprey } from '../context';
import type { Db } from '../db/db';
import { maximoError } from '../errors/maximo-error';
import { registerHooks } from '../structures/hooks';
import type { AttributeWriteHandler } from '../write/attribute-writes';
import { checkNewPassword, useridProblem } from './password-policy';


// The rules of users and groups served as structures (issue 37; the tables: tables.ts). Writes are the write
// engine's, in one transaction; these hooks add what is particular to credentials: a password is set through
// Maximo's non-persistent passwordinput (and passwordcheck), hashed as Users hashes it, and never rendered;
// no write may leave the server without an active administrator; and a locked user can be let in again.

export const userObject = 'MAXUSER';
export const groupObject = 'MAXGROUP';

const activeAdministrators = async (db: Db): Promise<number> => {

    const [row] = await db.query({ gu: 'osprey_groupuser' })
        .join({ g: 'osprey_group' }, 'g.groupname', 'gu.groupname')
        .join({ u: 'osprey_user' }, 'u.userid', 'gu.userid')
        .where('g.isadmin', true).andWhere('u.status', 'ACTIVE')
        .countDistinct({ count: 'gu.userid' });
    return Number(row!.count);
};

// A write that leaves no active administrator is refused, whatever it did: deleted or deactivated the last one,
// took them out of the administrators' group, or made that group an ordinary one. (There is one before any write
// through the API: its writer is one, and a server does not start without one, src/demo/users.ts.) It first moves
// osprey_authstamp, as Users' changes do: the row lock queues concurrent changes to users, so two administrators
// deactivating each other on two nodes cannot both see the other still active.
const keepAnAdministrator = async (db: Db) => {

    await db.query('osprey_authstamp').where({ id: 1 }).increment('stamp', 1);
    return async (after: Db) => {

        if (await activeAdministrators(after) === 0) {
            throw maximoError('badRequest', 'This change would leave no active administrator (a member of a group with isadmin true, with status ACTIVE): the last one cannot be deleted, deactivated or taken out of the administrators.');
        }
    };
};

// A user the write made (or renamed) has a user ID a login can send and a listing shows as it is: the IDs before
// the write and after it are compared (users are few; a write of users is an administrator's).
const userRules = async (db: Db) => {

    const administrators = await keepAnAdministrator(db);
    const before = new Set(await db.query('osprey_user').pluck('userid') as string[]);
    return async (after: Db) => {

        await administrators(after);
        for (const userid of await after.query('osprey_user').pluck('userid') as string[]) {
            const problem = before.has(userid) ? undefined : useridProblem(userid);
            if (problem) {
                throw maximoError('badRequest', problem, { attribute: 'userid' });
            }
        }
    };
};

// The hash and the credential stamp are secret attributes: never rendered (no reveal), and, as secrets, refused by
// name in every select, filter, order and grouping (src/read/plan/attribute-names.ts). Users and groups are written
// with a credential login only: a leaked API key of an administrator must not make an administrator it knows the
// password of (and so mint keys, which needs a credential login); it may still read them, and unlock a user.
registerHooks(userObject, { invariant: userRules, reveal: () => undefined, credentialWrites: true });
registerHooks(groupObject, { invariant: keepAnAdministrator, credentialWrites: true });

// A new password through passwordinput: checked against the policy (password-policy.ts), hashed into the row in the
// write's transaction (whose trigger gives the user a new credstamp: their sessions and remembered logins end on
// every node), and the user's login lock lifted: an administrator who sets a password means the user to log in.
const setPassword = (osprey: Osprey): AttributeWriteHandler => {

    return async ({ values, record, db }) => {

        if (!('passwordinput' in values)) {
            throw maximoError('badRequest', 'passwordcheck is the new password typed again: send it with passwordinput.', { attribute: 'passwordcheck' });
        }

        const userid = String(record.userid);
        const password = checkNewPassword(userid, values.passwordinput, values.passwordcheck, osprey.options.passwordMinLength);
        const passwordhash = await hashPassword(password);
        await db.query('osprey_user').where({ userid }).update({ passwordhash });
        await db.query('osprey_session').where({ userid }).delete();
        await db.query('osprey_loginfailure').where({ name: userKey(userid) }).delete();
    };
};

// Where the server serves users (a structure on MAXUSER): its password attributes and the unlock method.
export const registerUserRules = (osprey: Osprey): void => {

    const users = osprey.registry.byObject(userObject);
    if (!users) {
        return;
    }

    osprey.attributeWrites.register(osprey.registry, userObject, ['passwordinput', 'passwordcheck'], setPassword(osprey));
    // wsmethod:unlock lifts the user's login lock (osprey_loginfailure, shared by every node): administrators only,
    // as the structure grants no group its actions.
    osprey.actions.register(users.name, 'wsmethod:unlock', {
        description: 'Let the user log in again now: lifts the lock that failed logins put on the user, on every node',
        handler: async ({ record, db, user, afterCommit }) => {

            const key = userKey(String(record!.userid));
            const unlocked = await db.query('osprey_loginfailure').where({ name: key }).delete();
            if (unlocked > 0) {
                // Said once it is so: an all-or-nothing bulk's other item may still roll the lift back.
                afterCommit(() => osprey.log('info', { msg: 'login lock lifted', key, by: user.userid }));
            }

            return { unlocked: unlocked > 0 };
        }
    });
};
