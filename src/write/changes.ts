import { keyOf, type Row } from '../read/execute/find';
import type { Plan } from './plan/plan';


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

// Values as compared: a date read back and a date written are the same instant; a number read back as text
// (PostgreSQL's numeric) is the same number.
const comparable = (value: unknown): unknown => {

    if (value instanceof Date) {
        return value.toISOString();
    }

    return value === undefined || value === null ? null : String(value);
};

// The attributes of an update whose value differs from the row's before it.
const changed = (current: Row, values: Row): Record<string, AttributeChange> | undefined => {

    const found: Record<string, AttributeChange> = {};
    let any = false;
    for (const [name, after] of Object.entries(values)) {
        const before = current[name] ?? null;
        if (comparable(before) !== comparable(after)) {
            found[name] = { before, after: after ?? null };
            any = true;
        }
    }

    return any ? found : undefined;
};

const written = (values: Row): Row => Object.fromEntries(Object.entries(values).filter(([, value]) => value !== null && value !== undefined));

// A row's child rows that the plan adds, changes (with a change) or removes; none when there are none.
const childChanges = (plan: Plan): ChildChange[] | undefined => {

    if (plan.op === 'delete') {
        return undefined;
    }

    const found: ChildChange[] = [];
    for (const { plans } of plan.children) {
        for (const each of plans) {
            const object = each.object.name;
            if (each.op === 'insert') {
                const children = childChanges(each);
                found.push({ object, operation: 'create', values: written(each.values), ...children ? { children } : {} });
            }
            else if (each.op === 'delete') {
                found.push({ object, operation: 'delete', key: keyOf(each.object, each.current) });
            }
            else {
                const changes = changed(each.current, each.values);
                const children = childChanges(each);
                if (changes || children) {
                    found.push({ object, operation: 'update', key: keyOf(each.object, each.current), ...changes ? { changes } : {}, ...children ? { children } : {} });
                }
            }
        }
    }

    return found.length ? found : undefined;
};

// What a write of a record changed, for the after-commit subscribers: an update's changed attributes (before and
// after), and the child rows added, changed and removed; nothing for a delete (its key says it all).
export const changesOf = (plan: Plan): { changes?: Record<string, AttributeChange>; children?: ChildChange[] } => {

    const changes = plan.op === 'update' ? changed(plan.current, plan.values) : undefined;
    const children = childChanges(plan);
    return { ...changes ? { changes } : {}, ...children ? { children } : {} };
};
