import type { Row } from './baseline-json';


// The data path of the hand-coded baseline: the statements Osprey runs for each scenario (as its query log
// shows them), prepared once by the driver. The per-request user and group look-ups are left out.
export interface BaselineData {
    member: (siteid: string, wonum: string) => Promise<Row | undefined>;
    page: (siteid: string, statuses: readonly string[], offset: number, counted: boolean) => Promise<{ rows: Row[]; total?: number }>;
    countAll: () => Promise<number>;
    childrenPage: (siteid: string, offset: number) => Promise<{ rows: Row[]; assets: Row[]; tasks: Row[] }>;
    lookup: (siteid: string, wonum: string) => Promise<Row[] | undefined>;
    // One keyset page of the report: the work orders up to maxId after afterId, by id.
    reportPage: (maxId: number, afterId: number | undefined, limit: number) => Promise<Row[]>;
    create: (values: Row, userid: string) => Promise<{ siteid: string; wonum: string }>;
    update: (siteid: string, wonum: string, description: string, userid: string) => Promise<Row | undefined>;
    // A status change in one transaction, as Osprey writes it: the row read (locked on PostgreSQL), the transition
    // checked, the status and its audit columns updated, a history row added.
    changeStatus: (siteid: string, wonum: string, status: string, userid: string, transitions: Transitions) => Promise<StatusChange>;
    close: () => Promise<void>;
}

export class BaselineInputError extends Error { }

// The YAML's `statuses:`: which statuses may follow each one.
export type Transitions = Readonly<Record<string, readonly string[]>>;

export type StatusChange = 'changed' | 'missing' | 'refused';

export const canFollow = (transitions: Transitions, from: unknown, to: string): boolean => Object.hasOwn(transitions, String(from)) && transitions[String(from)]!.includes(to);

// The columns a status change sets, in Osprey's order (its plan's values, then the stamp: src/write/apply/apply.ts).
export const statusColumns = ['status', 'statusdate', 'rowstamp', 'changedate', 'changeby'] as const;

export const statusValues = (status: string, userid: string): unknown[] => {

    const time = now();
    return [status, time, Date.now() * 1000, time, userid];
};

// Osprey's page query asks for one row more than the page, to know whether a next page exists.
export const pageSize = 100;

// The columns Osprey's reads name for each scenario (its query log): those its answer renders, the ids and the
// values linked rows are matched by (src/read/plan/render-columns.ts), in the table's order.
export const readColumns = {
    query: ['workorderid', 'wonum', 'siteid', 'description', 'status', 'worktype', 'wopriority', 'assetnum', 'reportdate', 'rowstamp'],
    children: ['workorderid', 'wonum', 'siteid', 'description', 'assetnum', 'rowstamp'],
    assets: ['assetuid', 'assetnum', 'siteid', 'description', 'rowstamp'],
    tasks: ['woactivityid', 'parent', 'siteid', 'taskid', 'description', 'rowstamp'],
    lookup: ['assetuid', 'assetnum', 'siteid', 'description', 'rowstamp'],
    // A report's batches read the columns its layout renders (src/read/reports.ts).
    report: ['workorderid', 'wonum', 'siteid', 'description', 'status', 'worktype', 'location', 'assetnum', 'rowstamp']
} as const;

// A select list of `columns`, of `alias` when given: q0.wonum, q0.siteid (PostgreSQL's quoted when `quote`).
export const selectList = (columns: readonly string[], alias?: string, quote = false): string => {

    const name = (identifier: string) => (quote ? `"${identifier}"` : identifier);
    return columns.map((column) => (alias ? `${name(alias)}.${name(column)}` : name(column))).join(', ');
};

// Datetimes as Osprey stores them: UTC, to the second.
export const now = () => new Date(Math.floor(Date.now() / 1000) * 1000).toISOString();

// The work order columns a create writes, in Osprey's order.
export const createColumns = ['assetnum', 'changeby', 'changedate', 'description', 'reportdate', 'rowstamp', 'siteid', 'status', 'statusdate', 'wonum', 'wopriority', 'worktype'] as const;

export const createValues = (values: Row, wonum: string, userid: string): unknown[] => {

    const time = now();
    const row: Row = { assetnum: values.assetnum ?? null, changeby: userid, changedate: time, description: values.description ?? null, reportdate: time, rowstamp: Date.now() * 1000, siteid: values.siteid, status: 'WAPPR', statusdate: time, wonum, wopriority: values.wopriority ?? null, worktype: values.worktype ?? null };
    return createColumns.map((column) => row[column]);
};

export const autokeyScope = (siteid: string) => JSON.stringify([siteid]);
