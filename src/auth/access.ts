import { maximoError } from '../errors/maximo-error';
import { hooksOf } from '../structures/hooks';
import type { AccessDef } from '../structures/definition';
import type { Row, Structure } from '../structures/registry';
import type { UserProfile } from './users';
import { normalUserid } from './userid';


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

// The keys of a body that name the owner attribute, as the write engine reads names: in any case, with or without
// `spi:` (src/write/plan/input.ts). Naming it twice is a 400: which one counts would be a guess.
const ownerKeys = (structure: Structure, attribute: string, body: Row): string[] => {

    const keys = Object.keys(body).filter((key) => key.toLowerCase().replace(/^spi:/, '') === attribute);
    if (keys.length > 1) {
        throw maximoError('badRequest', `The body names ${attribute.toUpperCase()}, the owner attribute of ${structure.name}, ${keys.length} times (${keys.join(', ')}); name it once.`);
    }

    return keys;
};

// access.owner on a create: who is not an administrator creates records in their own name only. It depends on
// the body, not only on the user, so it is checked where the body is read, not with the rights. The body answered
// names the owner attribute once, by its own name.
export const ownedBody = (user: UserProfile, structure: Structure, body: Row): Row => {

    const attribute = structure.def.access.owner;
    const keys = attribute ? ownerKeys(structure, attribute, body) : [];
    const owner = ownerRule(user, structure);
    if (!attribute || (!owner && !keys.length)) {
        return body;
    }

    const given = keys.length ? body[keys[0]!] : undefined;
    const rest = Object.fromEntries(Object.entries(body).filter(([key]) => !keys.includes(key)));
    if (!owner) {
        return { ...rest, [attribute]: given };
    }

    if (given !== undefined && given !== null && normalUserid(String(given)) !== owner.userid) {
        throw maximoError('forbidden', `User ${owner.userid} cannot create ${structure.name} records for ${String(given)}.`);
    }

    return { ...rest, [owner.attribute]: owner.userid };
};

// access.owner on a change (an update, a merge, a sync or a bulk item) of a record the user owns: who is not an
// administrator cannot hand it to another user, nor to none, by writing its owner attribute in any case.
export const ownedChange = (user: UserProfile, structure: Structure, body: Row): void => {

    const attribute = structure.def.access.owner;
    const keys = attribute ? ownerKeys(structure, attribute, body) : [];
    const owner = ownerRule(user, structure);
    const given = keys.length ? body[keys[0]!] : undefined;
    if (owner && keys.length && (given === null || normalUserid(String(given)) !== owner.userid)) {
        throw maximoError('forbidden', `User ${owner.userid} cannot give a ${structure.name} record to ${given === null ? 'no one' : String(given)}: ${owner.attribute.toUpperCase()} is its owner (access.owner).`);
    }
};

// access.owner on a sync (or a bulk AddChange) whose keys name a record: another user's record is refused, not
// overwritten (nor created again: its keys are taken).
export const ownedRecord = (user: UserProfile, structure: Structure, current: Row): void => {

    const owner = ownerRule(user, structure);
    if (owner && current[owner.attribute] !== owner.userid) {
        throw maximoError('forbidden', `User ${owner.userid} cannot change the ${structure.name} record the keys name: it belongs to another user (access.owner: ${owner.attribute.toUpperCase()}).`);
    }
};

// Records of an object whose hooks say `credentialOnly` (API keys) are created, revealed and deleted with a
// credential login only: a request that signed in with an API key is refused, so a leaked key cannot mint, read
// or revoke keys.
export const requireCredentials = (req: { readonly apiKey?: boolean; readonly user: UserProfile }, structure: Structure, doing: string): void => {

    if (req.apiKey && hooksOf(structure.root).credentialOnly) {
        throw maximoError('forbidden', `User ${req.user.userid} signed in with an API key; ${structure.name} records are ${doing} with a credential login (maxauth, Basic, _lid/_lpwd or a session), not with an API key.`);
    }
};
