import { rowstampColumn } from '../db/migrate';
import { maximoError } from '../errors/maximo-error';
import type { BusinessObject, Child } from '../structures/registry';
import type { WriteScope } from './context';
import { idWhere, joinValues, type Row } from './find';
import { completeNew, keyValues, parseItem, type ParsedItem, type ParseSettings } from './input';
import { checkLookups } from './lookups';
import { memberId } from './serialize';
import { checkStatus } from './status';


// A write body becomes a tree of planned row operations. Everything is read and checked first (keys,
// types, domains, lookups, status transitions, child matching), so a body with errors writes nothing; the
// tree is then applied in the same transaction (apply.ts).

export type Plan =
    | { op: 'insert'; object: BusinessObject; values: Row; transient: Row; children: ChildPlan[] }
    | { op: 'update'; object: BusinessObject; current: Row; values: Row; transient: Row; children: ChildPlan[] }
    | { op: 'delete'; object: BusinessObject; current: Row };

export interface ChildPlan {
    readonly child: Child;
    readonly plans: Plan[];
}

const settingsFor = (scope: WriteScope, object: BusinessObject, extra: Partial<ParseSettings> = {}): ParseSettings => {

    return { object, objectPath: object.path, domains: scope.ctx.registry.domains(), errors: scope.errors, now: scope.ctx.now, ...extra };
};

export const planInsert = async (scope: WriteScope, object: BusinessObject, body: unknown, fixed: Row = {}): Promise<Plan> => {

    const settings = settingsFor(scope, object, { fixed });
    const item = parseItem(body, settings);
    completeNew(item, settings);
    const row = { ...item.values, ...fixed };
    if (object === scope.structure.root) {
        checkStatus(scope, undefined, item);
    }

    await checkLookups(scope, object, item.values, row);
    const children: ChildPlan[] = [];
    for (const [name, items] of item.children) {
        const child = object.children.get(name)!;
        const plans: Plan[] = [];
        for (const childBody of items) {
            if (!isDelete(childBody)) {
                plans.push(await planInsert(scope, child.object, childBody, joinValues(child, row)));
            }
        }

        children.push({ child, plans });
    }

    return { op: 'insert', object, values: item.values, transient: item.transient, children };
};

const isDelete = (body: unknown) => typeof body === 'object' && body !== null && String((body as Row)._action).toLowerCase() === 'delete';

export const planUpdate = async (scope: WriteScope, object: BusinessObject, current: Row, body: unknown, merge: boolean): Promise<Plan> => {

    const item = parseItem(body, settingsFor(scope, object, { current }));
    if (item.action === 'delete') {
        return { op: 'delete', object, current };
    }

    if (object === scope.structure.root) {
        if (!checkRowstamp(current, item.rowstamp)) {
            throw maximoError('stale', `The ${object.name} record has been updated by another user since _rowstamp ${item.rowstamp}. Read it again and retry.`);
        }

        checkStatus(scope, current, item);
    }

    const row = { ...current, ...item.values };
    await checkLookups(scope, object, item.values, row);
    const children: ChildPlan[] = [];
    for (const [name, items] of item.children) {
        children.push(await planChildren(scope, object, object.children.get(name)!, row, items, merge));
    }

    return { op: 'update', object, current, values: item.values, transient: item.transient, children };
};

// The stored child a body item refers to: by its href's id, else by its key values. `existing` holds this
// parent's rows only; an href that names a row of another parent (…/{parentid}/{child}/{id}) names none here.
const matchChild = (child: Child, parentId: string, existing: Row[], body: unknown, probe: ParsedItem) => {

    const object = child.object;
    if (probe.href) {
        const segments = probe.href.split('?')[0]!.split('/');
        const at = segments.lastIndexOf(child.name);
        if (at > 0 && at === segments.length - 2 && segments[at - 1] !== parentId) {
            return undefined;
        }

        const where = idWhere(object, segments[segments.length - 1]!);
        return where ? existing.find((row) => Object.entries(where).every(([key, value]) => String(row[key]) === String(value))) : undefined;
    }

    const keys = keyValues(object, body);
    return keys ? existing.find((row) => object.primaryKey.every((key) => String(row[key]) === String(keys[key]))) : undefined;
};

const planChildren = async (scope: WriteScope, parentObject: BusinessObject, child: Child, parent: Row, items: unknown[], merge: boolean): Promise<ChildPlan> => {

    const object = child.object;
    const parentId = memberId(parentObject, parent);
    const fixed = joinValues(child, parent);
    const existing = await scope.db.query(object.table).where(fixed) as Row[];
    const matched = new Set<Row>();
    const plans: Plan[] = [];
    for (const body of items) {
        // A first, silent parse only to read the keys the item names.
        const probe = parseItem(body, { ...settingsFor(scope, object, { fixed }), errors: [] });
        const current = matchChild(child, parentId, existing, body, probe);
        if (current) {
            matched.add(current);
            plans.push(await planUpdate(scope, object, current, body, merge));
        }
        else if (probe.href) {
            scope.errors.push({ attribute: 'href', objectPath: object.path, message: `The href ${probe.href} names no ${object.name} of this record.`, reason: 'badRequest' });
        }
        else if (probe.action === 'delete') {
            scope.errors.push({ attribute: object.primaryKey[0]!, objectPath: object.path, message: `There is no ${object.name} with the keys given to delete.`, reason: 'badRequest' });
        }
        else {
            plans.push(await planInsert(scope, object, body, fixed));
        }
    }

    // An update replaces the collection it names; a merge keeps the children the body leaves out.
    if (!merge) {
        for (const row of existing) {
            if (!matched.has(row)) {
                plans.push({ op: 'delete', object, current: row });
            }
        }
    }

    return { child, plans };
};

export const checkRowstamp = (current: Row, sent: string | undefined): boolean => sent === undefined || sent === String(current[rowstampColumn]);
