import { isAllowed } from '../../auth/access';
import type { UserProfile } from '../../auth/users';
import type { BusinessObject, Registry } from '../../structures/registry';
import { own } from '../../structures/own';
import type { Row } from '../execute/find';


// oslc.select=allowedactions: per record, the record actions its structure declares that this user may run
// on it now (CONTRACT §5). Running them needs the `actions` right; a status change also needs a status the
// record can still leave, by the transitions its YAML declares.
export const allowedActions = (registry: Registry, user: UserProfile) => {

    return (object: BusinessObject, row: Row): Row => {

        const structure = registry.byObject(object.name)!;
        const def = structure.def;
        const allowed: Row = {};
        if (!isAllowed(user, structure, 'actions')) {
            return allowed;
        }

        for (const action of def.actions) {
            const [type, name] = action.name.includes(':') ? action.name.split(':', 2) as [string, string] : ['action', action.name];
            const stuck = action.handler === 'changeStatus' && def.statuses && !(own(def.statuses, String(row[def.statusAttribute]))?.length);
            if (action.scope === 'record' && !stuck) {
                allowed[name] = { httpmethod: 'POST', type, description: action.description ?? name };
            }
        }

        return allowed;
    };
};
