import { maximoError } from '../../errors/maximo-error';
import type { Structure } from '../../structures/registry';
import type { WriteScope } from '../context';
import { deleteTree } from './delete-tree';
import type { Row } from '../../read/execute/find';


// Deleting a record also deletes its child rows. Records related to it through the structure's relations
// follow `onDelete`: `restrict` (the default for to-many relations) refuses while any exist, `cascade` deletes
// them as records of their own structure, `ignore` (the default for to-one) leaves them.
export const deleteRecord = async (scope: WriteScope, row: Row, depth = 0): Promise<void> => {

    const { structure, db } = scope;
    if (depth > 8) {
        throw maximoError('badRequest', `Deleting ${structure.name} cascades more than 8 levels deep; delete the related records first.`);
    }

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

        const related = await db.query(target.root.table).where(where) as Row[];
        if (!related.length) {
            continue;
        }

        if (onDelete === 'restrict') {
            throw maximoError('badRequest', `The ${structure.root.name} record cannot be deleted: ${related.length} ${target.name} record(s) refer to it through the relation ${name}.`);
        }

        for (const other of related) {
            await deleteRecord({ ...scope, structure: target }, other, depth + 1);
        }
    }

    await deleteTree(scope, structure.root, row);
};
