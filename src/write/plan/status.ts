import { insertRow } from '../../db/statements';
import { toDb } from '../../structures/types';
import type { WriteScope } from '../context';
import { joinValues, type Row } from '../../read/execute/find';
import type { ParsedItem } from './input';
import { own } from '../../structures/own';


// Status changes follow the transitions the YAML declares (`statuses: {FROM: [TO, ...]}`), stamp
// `statusdate` and, with `statusHistory`, add a history row carrying the optional non-persistent memo.

export const checkStatus = (scope: WriteScope, current: Row | undefined, item: ParsedItem): void => {

    const { structure } = scope;
    const name = structure.def.statusAttribute;
    const statuses = structure.def.statuses;
    if (!statuses || !Object.hasOwn(item.values, name) || !structure.root.attributes.has(name)) {
        return;
    }

    const to = String(item.values[name]);
    const root = structure.root;
    const fail = (message: string) => scope.errors.push({ attribute: name, objectPath: root.path, message });
    if (!current) {
        if (!own(statuses, to)) {
            fail(`${to} is not a status of ${structure.name}; one of ${Object.keys(statuses).join(', ')} is expected.`);
        }
    }
    else {
        const from = String(current[name]);
        const next = own(statuses, from);
        if (!(next ?? []).includes(to)) {
            const allowed = next?.length ? `from ${from} only ${next.join(', ')} can follow` : `${from} is final`;
            fail(`The status of ${root.name} cannot change from ${from} to ${to}: ${allowed}.`);
            return;
        }
    }

    const dateAttr = root.attributes.get('statusdate');
    if (dateAttr?.persistent) {
        item.values.statusdate = toDb(dateAttr, scope.ctx.statusAsOf ?? scope.ctx.now);
    }
};

// The memo of a status change, a non-persistent attribute of the write: `memo` (work orders), or `statusmemo` as
// the npm client sends it for assets.
export const statusMemo = (transient: Row): unknown => transient.memo ?? transient.statusmemo;

// The history row of a status just written (on create too, so the history starts with the first status): its table
// and values; none where the structure keeps no history.
export const statusHistoryRow = (scope: WriteScope, row: Row, memo: unknown): { readonly table: string; readonly values: Row } | undefined => {

    const { structure } = scope;
    const child = structure.def.statusHistory ? structure.root.children.get(structure.def.statusHistory) : undefined;
    if (!child) {
        return undefined;
    }

    const object = child.object;
    const candidates: Row = {
        [structure.def.statusAttribute]: row[structure.def.statusAttribute],
        changedate: scope.ctx.statusAsOf ?? scope.ctx.now,
        changeby: scope.ctx.userid,
        memo: memo ?? null
    };

    const values: Row = joinValues(child, row);
    for (const [name, value] of Object.entries(candidates)) {
        const attr = object.attributes.get(name);
        if (attr?.persistent) {
            values[name] = value instanceof Date ? toDb(attr, value) : value;
        }
    }

    return { table: object.table, values };
};

export const addStatusHistory = async (scope: WriteScope, row: Row, memo: unknown): Promise<void> => {

    const history = statusHistoryRow(scope, row, memo);
    if (history) {
        await insertRow(scope.db, history.table, history.values);
    }
};
