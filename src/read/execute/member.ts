import { ownerRule } from '../../auth/access';
import type { UserProfile } from '../../auth/users';
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
