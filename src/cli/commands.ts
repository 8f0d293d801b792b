import type { Knex } from 'knex';

import { normalPassword } from '../auth/passwords';
import { userKey } from '../auth/throttle';
import type { Users } from '../auth/users';
import { normalUserid } from '../auth/userid';
import { passwordProblem, useridProblem } from '../users/password-policy';
import { parseArgs, UsageError, type OptionSpec, type Parsed } from './args';


// The osprey command's user and group commands (issue 37), on a database already prepared (database.ts). Each
// answers the lines it prints; a refusal is a CommandError (exit 1), a command misused a UsageError (exit 2).

export class CommandError extends Error { }

export interface CommandContext {
    readonly knex: Knex;
    readonly users: Users;
    readonly passwordMinLength: number;
    /** The new password, from stdin or a prompt (never the command line, unless --password says so). */
    readonly readPassword: () => Promise<string>;
}

interface Command {
    readonly usage: string;
    readonly options: Readonly<Record<string, OptionSpec>>;
    /** Positional arguments it takes: exactly these. */
    readonly args: readonly string[];
    readonly run: (context: CommandContext, args: readonly string[], options: Parsed['options']) => Promise<string[]>;
}

const first = (options: Parsed['options'], name: string): string | undefined => options.get(name)?.[0];

// The password of --password, or read; refused by the policy with the rule it breaks.
const newPassword = async (context: CommandContext, userid: string, options: Parsed['options']): Promise<string> => {

    // Measured as it is hashed, in Unicode NFC (src/auth/passwords.ts), as the API's passwordinput is.
    const password = normalPassword(first(options, 'password') ?? await context.readPassword());
    const problem = passwordProblem(userid, password, context.passwordMinLength);
    if (problem) {
        throw new CommandError(problem);
    }

    return password;
};

const existingGroups = async (knex: Knex, names: readonly string[]): Promise<string[]> => {

    if (names.some((name) => !name.trim())) {
        throw new CommandError('A group name is empty: name the group.');
    }

    const wanted = [...new Set(names.map((name) => name.toUpperCase()))];
    const found = new Set(await knex('osprey_group').whereIn('groupname', wanted).pluck('groupname') as string[]);
    const missing = wanted.filter((name) => !found.has(name));
    if (missing.length) {
        throw new CommandError(`There is no group ${missing.join(', ')}: make it first with \`group add\`.`);
    }

    return wanted.sort();
};

const mustExist = async (users: Users, userid: string): Promise<string> => {

    const id = normalUserid(userid);
    if (!await users.exists(id)) {
        throw new CommandError(`There is no user ${id}.`);
    }

    return id;
};

// A deactivation that would leave no active administrator is refused (LastAdministratorError: its message says so).
const setStatus = (status: 'ACTIVE' | 'INACTIVE'): Command['run'] => {

    return async ({ users }, [userid]) => {

        const id = await mustExist(users, userid!);
        await users.setStatus(id, status, true);
        return [`${id} is ${status === 'ACTIVE' ? 'active' : 'inactive: their sessions have ended and they cannot log in'}.`];
    };
};

export const commands: Readonly<Record<string, Command>> = {
    'user add': {
        usage: 'user add USERID [--group GROUP]... [--displayname NAME] [--email ADDRESS] [--password PASSWORD]',
        options: { group: { value: true, repeat: true }, displayname: { value: true }, email: { value: true }, password: { value: true } },
        args: ['USERID'],
        run: async (context, [userid], options) => {

            const id = normalUserid(userid!);
            const refused = useridProblem(id);
            if (refused) {
                throw new CommandError(refused);
            }

            if (await context.users.exists(id)) {
                throw new CommandError(`The user ${id} exists already: use \`user passwd\` for a new password.`);
            }

            const groups = await existingGroups(context.knex, ['EVERYONE', ...options.get('group') ?? []]);
            const password = await newPassword(context, id, options);
            await context.users.create({ userid: id, password, displayname: first(options, 'displayname') ?? id, primaryemail: first(options, 'email'), groups });
            return [`User ${id} added, in ${groups.join(', ')}.`];
        }
    },
    'user passwd': {
        usage: 'user passwd USERID [--password PASSWORD]',
        options: { password: { value: true } },
        args: ['USERID'],
        run: async (context, [userid], options) => {

            const id = await mustExist(context.users, userid!);
            await context.users.setPassword(id, await newPassword(context, id, options));
            // A new password set by an administrator means the user to log in: a lock from failed logins is lifted.
            await context.knex('osprey_loginfailure').where({ name: userKey(id) }).delete();
            return [`The password of ${id} is set; their sessions have ended.`];
        }
    },
    'user deactivate': { usage: 'user deactivate USERID', options: {}, args: ['USERID'], run: setStatus('INACTIVE') },
    'user activate': { usage: 'user activate USERID', options: {}, args: ['USERID'], run: setStatus('ACTIVE') },
    'user unlock': {
        usage: 'user unlock USERID',
        options: {},
        args: ['USERID'],
        run: async ({ knex, users }, [userid]) => {

            const id = await mustExist(users, userid!);
            const lifted = await knex('osprey_loginfailure').where({ name: userKey(id) }).delete();
            return [lifted ? `${id} is unlocked.` : `${id} was not locked.`];
        }
    },
    'user groups': {
        usage: 'user groups USERID [--add GROUP]... [--remove GROUP]...',
        options: { add: { value: true, repeat: true }, remove: { value: true, repeat: true } },
        args: ['USERID'],
        run: async ({ knex, users }, [userid], options) => {

            const id = await mustExist(users, userid!);
            const added = await existingGroups(knex, options.get('add') ?? []);
            const removed = new Set((options.get('remove') ?? []).map((name) => name.toUpperCase()));
            const both = added.filter((name) => removed.has(name));
            if (both.length) {
                throw new CommandError(`${both.join(', ')} is both added and removed: name each group once.`);
            }

            // A group to remove that the user is not in is a mistake worth saying (read here, before the change: the
            // change itself adds and removes in its own transaction, refused when it would leave no administrator).
            const current = await knex('osprey_groupuser').where({ userid: id }).pluck('groupname') as string[];
            const absent = [...removed].filter((name) => !current.includes(name));
            if (absent.length) {
                throw new CommandError(`${id} is not in ${absent.join(', ')}: their groups are ${current.length ? [...current].sort().join(', ') : 'none'}.`);
            }

            const groups = await users.changeGroups(id, added, [...removed]);
            if (!groups) {
                throw new CommandError(`There is no user ${id}.`);
            }

            return [`${id} is in ${groups.length ? groups.join(', ') : 'no group'}.`];
        }
    },
    'user list': {
        usage: 'user list',
        options: {},
        args: [],
        run: async ({ knex }) => {

            const rows = await knex('osprey_user as u').leftJoin('osprey_groupuser as gu', 'gu.userid', 'u.userid')
                .orderBy('u.userid').orderBy('gu.groupname').select('u.userid', 'u.status', 'gu.groupname') as { userid: string; status: string; groupname: string | null }[];
            const users = new Map<string, { status: string; groups: string[] }>();
            for (const row of rows) {
                const user = users.get(row.userid) ?? { status: row.status, groups: [] };
                users.set(row.userid, user);
                if (row.groupname !== null) {
                    user.groups.push(row.groupname);
                }
            }

            return [...users].map(([userid, { status, groups }]) => `${userid}\t${status}\t${groups.join(',')}`);
        }
    },
    'group add': {
        usage: 'group add GROUPNAME [--description TEXT] [--admin]',
        options: { description: { value: true }, admin: { value: false } },
        args: ['GROUPNAME'],
        run: async ({ knex, users }, [groupname], options) => {

            const name = groupname!.toUpperCase();
            if (!/^[A-Z0-9_.-]{1,30}$/.test(name)) {
                throw new CommandError(`A group name has 1 to 30 letters, digits, "_", "." or "-": ${JSON.stringify(groupname)} does not.`);
            }

            if (await knex('osprey_group').where({ groupname: name }).first('groupname')) {
                throw new CommandError(`The group ${name} exists already.`);
            }

            const admin = options.has('admin');
            await users.ensureGroup(name, first(options, 'description') ?? name, admin);
            return [`Group ${name} added${admin ? ': its members are administrators' : ''}.`];
        }
    }
};

export const usage = (): string => ['Usage: osprey COMMAND', ...Object.values(commands).map((command) => `  ${command.usage}`)].join('\n');

// The command the words name, and its arguments checked.
export const resolveCommand = (words: readonly string[]): { command: Command; args: readonly string[]; options: Parsed['options'] } => {

    const name = words.slice(0, 2).join(' ');
    const command = Object.hasOwn(commands, name) ? commands[name]! : undefined;
    if (!command) {
        throw new UsageError(words.length ? `Unknown command "${name}".` : 'No command given.');
    }

    const { positional, options } = parseArgs(words.slice(2), command.options, name);
    if (positional.length !== command.args.length) {
        throw new UsageError(`${name} takes ${command.args.length ? command.args.join(' ') : 'no arguments'}${positional.length > command.args.length ? `; ${JSON.stringify(positional.at(-1))} is one too many` : ''}: ${command.usage}`);
    }

    return { command, args: positional, options };
};
