import { isAllowed, ownerRule } from '../../auth/access';
import { maximoError } from '../../errors/maximo-error';
import type { Structure } from '../../structures/registry';
import type { WriteScope } from '../context';
import { deleteOwnedDocuments, hasDocuments, ownerOf } from '../../attachments/documents';
import { deleteTree } from './delete-tree';
import { refuseWhileHeld } from '../../workflows/held';
import type { Row } from '../../read/execute/find';


// Deleting a record also deletes its child rows. Records related to it through the structure's relations
// follow `onDelete`: `restrict` (the default for to-many relations) refuses while any exist, `cascade` deletes
// them as records of their own structure, `ignore` (the default for to-one) leaves them.
//
// Related records are other structures' rows, reached with the writer's rights (issue 18). The delete right on
// every structure a cascade reaches was checked before the transaction (../rights.ts cascadeOf); here the owner
// rule: a cascade that would delete another user's record refuses the delete, as deleting that record would. A
// restriction holds whoever reads: it refuses while any record refers, but counts the records only when the
// writer may read them all, so a refusal tells no more than that one refers.
export const deleteRecord = async (scope: WriteScope, row: Row, depth = 0): Promise<void> => {

    const { structure, db } = scope;
    const { user } = scope.ctx;
    if (depth > 8) {
        throw maximoError('badRequest', `Deleting ${structure.name} cascades more than 8 levels deep; delete the related records first.`);
    }

    await refuseWhileHeld(db, scope.ctx.registry, structure, row, 'it is not deleted');

    for (const [name, relation] of Object.entries(structure.def.relations)) {
        const onDelete = relation.onDelete ?? (relation.cardinality === 'many' ? 'restrict' : 'ignore');
        if (onDelete === 'ignore') {
            continue;
        }

        const target = scope.ctx.registry.get(relation.structure) as Structure;
        const where = Object.fromEntries(Object.entries(relation.join).map(([from, to]) => [to, row[from] ?? null]));
        if (Object.values(where).some((value) => value === null)) {
            continue;
        }

        // Locked on PostgreSQL, so that the rows checked below are the rows deleted: a row another transaction
        // hands to another user (or away from this record) meanwhile is either changed before this read, which
        // then sees it so, or waits for this delete. SQLite runs one write transaction at a time.
        const query = db.query(target.root.table).where(where);
        const related = await (db.kind === 'postgresql' ? query.forUpdate() : query) as Row[];
        if (!related.length) {
            continue;
        }

        const owner = ownerRule(user, target);
        const others = owner ? related.filter((other) => other[owner.attribute] !== owner.userid).length : 0;
        if (onDelete === 'restrict') {
            const counted = isAllowed(user, target, 'read') && !others ? `${related.length} ${target.name} record(s) refer` : `${target.name} records refer`;
            throw maximoError('badRequest', `The ${structure.root.name} record cannot be deleted: ${counted} to it through the relation ${name}.`);
        }

        if (others) {
            throw maximoError('forbidden', `User ${user.userid} cannot delete this ${structure.root.name} record: its relation ${name} deletes ${target.name} records with it (onDelete: cascade), and records of ${target.name} that belong to other users (access.owner: ${owner!.attribute.toUpperCase()}) refer to it.`);
        }

        for (const other of related) {
            await deleteRecord({ ...scope, structure: target }, other, depth + 1);
        }
    }

    await deleteTree(scope, structure.root, row);
    // Its attached documents go with it, whichever structure of its object they were attached through.
    if (hasDocuments(scope.ctx.registry, structure.root)) {
        await deleteOwnedDocuments(db, ownerOf(structure.root, row), scope.ctx.now.getTime());
    }
};
