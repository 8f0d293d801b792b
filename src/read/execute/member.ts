import { ownerRule } from '../../auth/access';
import type { UserProfile } from '../../auth/users';
import type { Osprey } from '../../context';
import type { Db } from '../../db/db';
import { maximoError } from '../../errors/maximo-error';
import type { Structure } from '../../structures/registry';
import { findById, type Row } from './find';


export const notFound = (structure: Structure, id: string): Error => {

    return maximoError('notFound', `The record ${id} of ${structure.name} was not found as it does not exist in the system.`);
};

// The record `id` names, as this user may see it: another user's record, where the structure keeps records to
// their owners (access.owner), is not there for them. `lock`: inside a write, the row is locked for it.
export const memberRow = async (db: Db, user: UserProfile, structure: Structure, id: string, options: { lock?: boolean } = {}): Promise<Row> => {

    const row = await findById(db, structure.root, id, options);
    const owner = ownerRule(user, structure);
    if (!row || (owner && row[owner.attribute] !== owner.userid)) {
        throw notFound(structure, id);
    }

    return row;
};

// Who reads which record: any request value (a ResourceRequest) carries these.
export interface MemberRequest {
    readonly osprey: Osprey;
    readonly user: UserProfile;
    readonly id?: string;
}

// The record the request's id (or `options.id`) names, as the request's user may see it.
export const requestedRow = async (req: MemberRequest, structure: Structure, options: { id?: string; lock?: boolean; db?: Db } = {}): Promise<Row> => {

    return await memberRow(options.db ?? req.osprey.db, req.user, structure, options.id ?? String(req.id), options);
};
