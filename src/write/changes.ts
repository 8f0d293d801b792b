import { keyOf, type Row } from '../read/execute/find';
import type { Plan } from './plan/plan';
import type { AttributeChange, ChildChange } from './change-types';


export type { AttributeChange, ChildChange };

// Values as compared: a date read back (PostgreSQL's) and a date written are the same instant; a number read back
// as text (PostgreSQL's numeric) is the same number.
const comparable = (value: unknown): unknown => (value instanceof Date ? value.toISOString() : String(value));

// The object without its undefined members.
const compact = <T extends object>(object: T): Partial<T> => Object.fromEntries(Object.entries(object).filter(([, value]) => value !== undefined)) as Partial<T>;

// The attributes of an update whose value differs from the row's before it.
const changed = (current: Row, values: Row): Record<string, AttributeChange> | undefined => {

    const found = Object.entries(values).filter(([name, after]) => comparable(current[name]) !== comparable(after));
    return found.length ? Object.fromEntries(found.map(([name, after]) => [name, { before: current[name], after }])) : undefined;
};

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
                found.push({ object, operation: 'create', values: each.values, ...compact({ children: childChanges(each) }) });
            }
            else if (each.op === 'delete') {
                found.push({ object, operation: 'delete', key: keyOf(each.object, each.current) });
            }
            else {
                const what = compact({ changes: changed(each.current, each.values), children: childChanges(each) });
                if (Object.keys(what).length) {
                    found.push({ object, operation: 'update', key: keyOf(each.object, each.current), ...what });
                }
            }
        }
    }

    return found.length ? found : undefined;
};

// What a write of a record changed, for the after-commit subscribers: an update's changed attributes (before and
// after), and the child rows added, changed and removed; nothing for a delete (its key says it all).
export const changesOf = (plan: Plan): { changes?: Record<string, AttributeChange>; children?: ChildChange[] } => {

    return compact({ changes: plan.op === 'update' ? changed(plan.current, plan.values) : undefined, children: childChanges(plan) });
};
