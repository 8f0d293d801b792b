import type { BusinessObject } from '../../structures/registry';
import type { WriteScope } from '../context';
import { joinValues, keyOf, type Row } from '../../read/execute/find';


// A row and everything below it: child rows first, grandchildren before children. Its own module because
// applying a plan (apply.ts) and deleting a record (delete.ts) both need it, and apply.ts already calls
// delete.ts: with it here the two depend one way only.
export const deleteTree = async (scope: WriteScope, object: BusinessObject, row: Row): Promise<void> => {

    for (const child of object.children.values()) {
        const where = joinValues(child, row);
        if (child.object.children.size) {
            for (const childRow of await scope.db.query(child.object.table).where(where) as Row[]) {
                await deleteTree(scope, child.object, childRow);
            }
        }
        else {
            await scope.db.query(child.object.table).where(where).delete();
        }
    }

    await scope.db.query(object.table).where(keyOf(object, row)).delete();
};
