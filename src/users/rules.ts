import { userKey } from '../auth/throttle';
import { hashPassword } from '../auth/passwords';
import type { UserProfile } from '../auth/users';
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
export const membershipObject = 'GROUPUSER';

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

// Who is in which group, and which groups are administrators: what makes a user an administrator or gives them a
// group's rights, as one text to compare.
const privileges = async (db: Db): Promise<string> => {

    const members = await db.query('osprey_groupuser').select('userid', 'groupname').orderBy(['userid', 'groupname']) as { userid: string; groupname: string }[];
    const admins = await db.query('osprey_group').where('isadmin', true).orderBy('groupname').pluck('groupname') as string[];
    return JSON.stringify([members.map(({ userid, groupname }) => [userid, groupname]), admins]);
};

// Group memberships and isadmin are an administrator's to change, whatever a structure's access grants (as in
// Maximo, where they are security administration, apart from editing a user's own profile): a YAML file that lets
// users update their own record (a display name, a password) must not let them join MAXADMIN. The privileges
// before and after the write are compared (users and groups are few).
const keepPrivileges = async (db: Db, user: UserProfile): Promise<((after: Db) => Promise<void>) | undefined> => {

    if (user.isAdmin) {
        return undefined;
    }

    const before = await privileges(db);
    return async (after) => {

        if (await privileges(after) !== before) {
            throw maximoError('forbidden', `User ${user.userid} is not authorized to change group memberships or which groups are administrators (isadmin): only an administrator is.`);
        }
    };
};

// The rules of every write of users, groups and memberships, wherever a structure serves them, entered once per
// transaction (the scope keys invariants by function, src/write/transaction.ts): an administrator kept,
// privileges changed by administrators only, and a user the write made (or renamed) with a user ID a login can
// send and a listing shows as it is — the IDs before the write and after it are compared (users are few).
const credentialRules = async (db: Db, user: UserProfile) => {

    const administrators = await keepAnAdministrator(db);
    const kept = await keepPrivileges(db, user);
    const before = new Set(await db.query('osprey_user').pluck('userid') as string[]);
    return async (after: Db) => {

        await kept?.(after);
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
registerHooks(userObject, { invariant: credentialRules, reveal: () => undefined, credentialWrites: true });
registerHooks(groupObject, { invariant: credentialRules, credentialWrites: true });
// Memberships, under MXAPIMAXUSER or MXAPIMAXGROUP or wherever else a structure serves them: the same rules.
registerHooks(membershipObject, { invariant: credentialRules });

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
