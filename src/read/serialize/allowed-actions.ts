import { actionsOf } from '../../actions/resolve';
import { jsonSchemaOf } from '../../actions/json-schema';
import type { RegisteredAction } from '../../actions/registry';
import { isAllowed } from '../../auth/access';
import type { Osprey } from '../../context';
import type { Db } from '../../db/db';
import type { UserProfile } from '../../auth/users';
import type { BusinessObject, Structure } from '../../structures/registry';
import type { Row } from '../execute/find';


// oslc.select=allowedactions: per record, the record actions this user may run on it now (CONTRACT §5), from the
// action registry (src/actions): those the structure's YAML declares and those registered for it, each only where
// the user holds its right and the action is open on the record now (a status change: a status the record can
// still leave). Each lists its method, kind, description and the JSON schema of its payload, as Maximo does.

const mayRun = (user: UserProfile, structure: Structure, action: RegisteredAction): boolean => {

    const right = action.spec.right ?? 'actions';
    return isAllowed(user, structure, right === 'none' ? 'read' : right);
};

const entryOf = (action: RegisteredAction): Row => {

    const { spec } = action;
    const schema = spec.jsonSchema ?? (spec.schema ? jsonSchemaOf(spec.schema) : undefined);
    return { httpmethod: 'POST', type: action.kind, description: spec.description ?? action.method, ...(schema ? { schema } : {}) };
};

// The actions of a page of records: those the user may run are found once, those that ask the database whether
// they are open (a workflow: none active on the record) ask it once for the page; then each row is answered.
export const allowedActions = (osprey: Osprey, user: UserProfile) => {

    return async (db: Db, object: BusinessObject, rows: readonly Row[]): Promise<(row: Row) => Row> => {

        const structure = osprey.registry.byObject(object.name)!;
        const listed = actionsOf(osprey.actions, structure).filter(({ spec, ...action }) => (spec.scope ?? 'record') === 'record' && spec.listed !== false && mayRun(user, structure, { spec, ...action }));
        const open = await Promise.all(listed.map((action) => action.spec.availableAmong?.(rows, { db, structure, registry: osprey.registry, kind: osprey.kind })));
        return (row) => {

            // Without a prototype: an action's name (a plugin's) is a key, never Object.prototype's (`__proto__`).
            const allowed: Row = Object.create(null);
            listed.forEach((action, i) => {

                if ((action.spec.available?.(row, structure) ?? true) && (open[i]?.(row) ?? true)) {
                    allowed[action.method] = entryOf(action);
                }
            });
            return allowed;
        };
    };
};
