import { requireCredentials, requireRight, type Right } from '../auth/access';
import type { UserProfile } from '../auth/users';
import { maximoError } from '../errors/maximo-error';
import { hooksOf } from '../structures/hooks';
import type { Registry, Structure } from '../structures/registry';


// The rights a write needs, worked out from what it asks before anything runs, and checked once, before its
// transaction opens (issue 17): a refused write takes no lock and writes nothing, its transaction id included.

/** What a write asks of one record: a create, an update (a merge keeps the children the body leaves out), a
 * sync (update the record the keys name, or create it) or a delete. */
export type WriteKind = 'create' | 'update' | 'merge' | 'sync' | 'delete';

// A SYNC needs both insert and update, whichever it turns out to do: which one it does depends on the data
// (whether the keys name a record), and a right that depended on the data would be checked in the transaction
// and would tell a caller without insert whether a record exists. This is stricter than checking the one it
// does, deliberately; a user with update alone updates with PATCH.
const needs: Readonly<Record<WriteKind, readonly Right[]>> = {
    create: ['insert'],
    update: ['update'],
    merge: ['update'],
    sync: ['insert', 'update'],
    delete: ['delete']
};

// A body whose `_action` is Delete deletes the record it updates (plan.ts reads it so): that needs delete too.
export const bodyDeletes = (body: unknown): boolean => {

    return typeof body === 'object' && body !== null && !Array.isArray(body) &&
        Object.entries(body).some(([key, value]) => key.toLowerCase().replace(/^spi:/, '') === '_action' && String(value).toLowerCase() === 'delete');
};

// The rights of one write: its kind's, and delete where an update's (or a sync's) body asks for a delete.
export const rightsOf = (kind: WriteKind, body?: unknown): Right[] => {

    return kind !== 'create' && kind !== 'delete' && bodyDeletes(body) ? [...needs[kind], 'delete'] : [...needs[kind]];
};

// The union of the rights of several writes (the items of a bulk), each right once, in a stable order.
export const unionOf = (rights: Iterable<readonly Right[]>): Right[] => {

    const all = new Set([...rights].flat());
    return (['insert', 'update', 'delete'] as const).filter((right) => all.has(right));
};

/** Who writes, as the rights read it: the user, and whether they signed in with an API key. */
export interface Writer {
    readonly user: UserProfile;
    readonly apiKey?: boolean;
}

// The structures a delete of a `structure` record deletes records of: its own, and those its relations with
// `onDelete: cascade` reach, followed on (src/write/apply/delete.ts). Worked out from the YAML alone, so the
// rights of all of them are checked before the transaction and whatever rows exist: a delete refused for a
// related structure's right is refused whether or not it has rows, and so tells nothing of them.
export const cascadeOf = (registry: Registry, structure: Structure): Structure[] => {

    const reached = new Map<string, Structure>([[structure.id, structure]]);
    const follow = (from: Structure) => {

        for (const relation of Object.values(from.def.relations)) {
            const target = registry.get(relation.structure);
            if (relation.onDelete === 'cascade' && target && !reached.has(target.id)) {
                reached.set(target.id, target);
                follow(target);
            }
        }
    };

    follow(structure);
    return [...reached.values()];
};

// A delete needs the delete right (and, for API keys, a credential login) on every structure it deletes records of;
// any write of users and groups (credentialWrites) needs a credential login.
export const requireRights = (writer: Writer, registry: Registry, structure: Structure, rights: readonly Right[]): void => {

    for (const right of rights) {
        for (const each of right === 'delete' ? cascadeOf(registry, structure) : [structure]) {
            requireRight(writer.user, each, right);
            if (writer.apiKey && hooksOf(each.root).credentialWrites) {
                throw maximoError('forbidden', `User ${writer.user.userid} signed in with an API key; ${each.name} records are written with a credential login (maxauth, Basic, _lid/_lpwd or a session), not with an API key: a leaked key must not make users or change their passwords, status or groups.`);
            }

            if (right === 'delete') {
                requireCredentials({ apiKey: writer.apiKey, user: writer.user }, each, 'deleted');
            }
        }
    }
};
