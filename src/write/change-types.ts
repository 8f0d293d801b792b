import type { Row } from '../read/execute/find';


// What a write changed, as the after-commit subscribers hear it (src/write/changes.ts works it out). A module of
// its own: the subscribers' types (after-commit.ts) must not import the planner's (a cycle through write/context).

/** An attribute a write changed: its value before and after, as stored. */
export interface AttributeChange {
    readonly before: unknown;
    readonly after: unknown;
}

/** A child row a write added, changed or removed, by its object (WPLABOR) and, but for one added, its key. */
export interface ChildChange {
    readonly object: string;
    readonly operation: 'create' | 'update' | 'delete';
    /** The row's key; a row added has none yet (its key may be generated): its `values` say what it holds. */
    readonly key?: Row;
    /** A row added: the attributes the write gave it. */
    readonly values?: Row;
    /** A row changed: the attributes that changed. */
    readonly changes?: Readonly<Record<string, AttributeChange>>;
    readonly children?: readonly ChildChange[];
}
