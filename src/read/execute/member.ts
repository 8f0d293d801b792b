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

// Who reads which record: any request value (a ResourceRequest) carries these.
export interface MemberRequest {
    readonly osprey: Osprey;
    readonly user: UserProfile;
    readonly id?: string;
}

// The record the request's id (or `options.id`) names, as this user may see it.
export const memberRow = async (req: MemberRequest, structure: Structure, options: { id?: string; lock?: boolean; db?: Db } = {}): Promise<Row> => {

    const id = options.id ?? String(req.id);
    const row = await findById(options.db ?? req.osprey.db, structure.root, id, options);
    // Another user's record, where the structure keeps records to their owners, is not there for this user.
    const owner = ownerRule(req.user, structure);
    if (!row || (owner && row[owner.attribute] !== owner.userid)) {
        throw notFound(structure, id);
    }

    return row;
};
