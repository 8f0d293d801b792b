import { maximoError } from '../errors/maximo-error';
import type { AccessDef } from '../structures/definition';
import type { Row, Structure } from '../structures/registry';
import type { UserProfile } from './users';


export type Right = Exclude<keyof AccessDef, 'owner'>;

const verbs: Record<Right, string> = { read: 'read', insert: 'create', update: 'update', delete: 'delete', actions: 'run actions on' };

// An OS's YAML grants each right to groups; EVERYONE is every signed-in user; administrators pass everything.
export const isAllowed = (user: UserProfile, structure: Structure, right: Right): boolean => {

    const groups = structure.def.access[right];
    return user.isAdmin || groups.includes('EVERYONE') || groups.some((group) => user.groups.includes(group));
};

// access.owner: who is not an administrator only reaches the records whose `attribute` is their userid (their
// own API keys); undefined when the request's user is not bound so.
export const ownerRule = (user: UserProfile, structure: Structure): { attribute: string; userid: string } | undefined => {

    const attribute = structure.def.access.owner;
    return attribute && !user.isAdmin ? { attribute, userid: user.userid } : undefined;
};

export const requireRight = (user: UserProfile, structure: Structure, right: Right): void => {

    if (!isAllowed(user, structure, right)) {
        throw maximoError('forbidden', `User ${user.userid} is not authorized to ${verbs[right]} ${structure.name} records.`);
    }
};

// access.owner on a create: who is not an administrator creates records in their own name only. It depends on
// the body, not only on the user, so it is checked where the body is read, not with the rights.
export const ownedBody = (user: UserProfile, structure: Structure, body: Row): Row => {

    const owner = ownerRule(user, structure);
    if (!owner) {
        return body;
    }

    const given = body[owner.attribute];
    if (given !== undefined && given !== null && String(given).toUpperCase() !== owner.userid) {
        throw maximoError('forbidden', `User ${owner.userid} cannot create ${structure.name} records for ${String(given)}.`);
    }

    return { ...body, [owner.attribute]: owner.userid };
};
