import { rowstampColumn, storedColumns } from '../../db/migrate';
import { oncePer } from '../../db/remember';
import type { BusinessObject, Structure } from '../../structures/registry';


// The columns an insert returns when its write answers no record (no properties): what the rest of the write
// reads of the new row — its id and key (the answer's Location, what after-commit subscribers hear), its unique
// id and rowstamp, the status its history row records (a root's), and the values its child rows join on. A work
// order's create returned all 33 columns, each parsed into a JavaScript value (dates included) that nothing read;
// on PostgreSQL that insert took 194 µs where (b)'s, returning the generated id alone, took 142 (README,
// Performance). A write that answers a record renders it from the whole row (hooks may read any column).
const listOf = (object: BusinessObject, statusAttribute?: string): readonly string[] => {

    const wanted = new Set<string>([...object.identity, ...object.primaryKey, object.uniqueColumn, rowstampColumn]);
    if (statusAttribute) {
        wanted.add(statusAttribute);
    }

    for (const child of object.children.values()) {
        Object.keys(child.join).forEach((attr) => wanted.add(attr));
    }

    // In the table's order, made once: one list is one statement's text.
    return storedColumns(object).filter((column) => wanted.has(column));
};

const ofRoot = oncePer((structure: Structure) => listOf(structure.root, structure.def.statusAttribute));
const ofChild = oncePer((object: BusinessObject) => listOf(object));

export const keyColumns = (structure: Structure, object: BusinessObject): readonly string[] => (object === structure.root ? ofRoot(structure) : ofChild(object));
