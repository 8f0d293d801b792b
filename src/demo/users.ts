import type { Users } from '../auth/users';
import type { OspreyOptions } from '../config';


export class NoAdministratorError extends Error { }

// Groups every installation has; EVERYONE holds every user implicitly.
const groups = [
    { groupname: 'MAXADMIN', description: 'Administrators: every right on every structure', isadmin: true },
    { groupname: 'EVERYONE', description: 'Every user', isadmin: false },
    { groupname: 'PLANNERS', description: 'Work planners: write work orders', isadmin: false },
    { groupname: 'SUPERVISORS', description: 'Supervisors: approve work orders (workflow WOAPPROVE)', isadmin: false }
];

const demoUsers = [
    { userid: 'MAXADMIN', password: 'maxadmin', personid: 'MAXADMIN', displayname: 'Max Admin', primaryemail: 'maxadmin@eagle.example', defsite: 'BEDFORD', insertsite: 'BEDFORD', defaultorg: 'EAGLENA', groups: ['MAXADMIN', 'EVERYONE'] },
    { userid: 'WILSON', password: 'wilson', personid: 'WILSON', displayname: 'Mike Wilson', primaryemail: 'mwilson@eagle.example', defsite: 'BEDFORD', insertsite: 'BEDFORD', defaultorg: 'EAGLENA', groups: ['EVERYONE', 'PLANNERS'] },
    { userid: 'SMITH', password: 'smith', personid: 'SMITH', displayname: 'Anne Smith', primaryemail: 'asmith@eagle.example', defsite: 'BEDFORD', insertsite: 'BEDFORD', defaultorg: 'EAGLENA', groups: ['EVERYONE', 'SUPERVISORS'] }
];

// The groups every installation has (the osprey command makes them too, before the first administrator).
export const ensureGroups = async (users: Users): Promise<void> => {

    for (const group of groups) {
        await users.ensureGroup(group.groupname, group.description, group.isadmin);
    }
};

// Creates the groups, the demo users (demo mode, empty database) and the configured administrator; refuses
// to go on without any administrator. Answers whether the database had no users before (a fresh install).
export const ensureUsers = async (users: Users, options: OspreyOptions): Promise<boolean> => {

    await ensureGroups(users);

    const fresh = !await users.exists('MAXADMIN') && await users.countAdministrators() === 0;
    if (fresh && options.demo) {
        for (const user of demoUsers) {
            await users.create(user);
        }
    }

    if (options.adminUser && !await users.exists(options.adminUser)) {
        await users.create({ userid: options.adminUser, password: options.adminPassword!, displayname: options.adminUser, groups: ['MAXADMIN', 'EVERYONE'] });
    }

    if (await users.countAdministrators() === 0) {
        throw new NoAdministratorError('No administrator exists: set OSPREY_ADMIN_USER and OSPREY_ADMIN_PASSWORD (or OSPREY_DEMO=1 on an empty database for the demo users).');
    }

    return fresh;
};
