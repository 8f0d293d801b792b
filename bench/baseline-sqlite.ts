import Database from 'better-sqlite3';

import { autokeyScope, BaselineInputError, canFollow, createColumns, createValues, now, pageSize, readColumns, selectList, statusColumns, statusValues, type BaselineData, type StatusChange, type Transitions } from './baseline-data';
import type { Row } from './baseline-json';


const marks = (n: number) => Array.from({ length: n }, () => '?').join(', ');
const tuples = (n: number) => Array.from({ length: n }, () => '(?, ?)').join(', ');

// better-sqlite3 with the server's pragmas; every statement prepared once and cached by its text. A write
// runs as one synchronous transaction, so no other request's statement can slip into it; it begins IMMEDIATE,
// because a deferred one that reads first fails at once (busy snapshot) when another connection — Osprey's
// heartbeat, idle beside it — wrote in between.
export const sqliteData = (file: string, synchronous: string): BaselineData => {

    const db = new Database(file);
    ['journal_mode = WAL', `synchronous = ${synchronous}`, 'foreign_keys = ON', 'busy_timeout = 5000'].forEach((pragma) => db.pragma(pragma));
    const statements = new Map<string, Database.Statement>();
    const prepared = (sql: string) => {

        let statement = statements.get(sql);
        if (!statement) {
            statement = db.prepare(sql);
            statements.set(sql, statement);
        }

        return statement;
    };

    const all = (sql: string, ...params: unknown[]) => prepared(sql).all(...params) as Row[];
    const get = (sql: string, ...params: unknown[]) => prepared(sql).get(...params) as Row | undefined;
    // LIMIT 1 written in the SQL, as Osprey writes it: a bound LIMIT makes SQLite (better-sqlite3 builds it with
    // STAT4) prepare the statement again on every run, 15 µs on this point read of 33 columns.
    const member = (siteid: string, wonum: string) => get('select * from workorder where siteid = ? and wonum = ? limit 1', siteid, wonum);
    const pageSql = (statuses: number) => `select ${selectList(readColumns.query, 'q0')} from workorder as q0 where ((q0.siteid = ?) and (q0.status in (${marks(statuses)}))) order by q0.wonum desc nulls first, q0.workorderid asc limit ? offset ?`;

    const ensureCounter = (siteid: string) => {

        if (!get('select * from osprey_autokey where objectname = ? and attribute = ? and scope = ? limit 1', 'WORKORDER', 'wonum', autokeyScope(siteid))) {
            const { highest } = get('select max(cast(wonum as integer)) as highest from workorder where siteid = ?', siteid)!;
            prepared('insert into osprey_autokey (objectname, attribute, scope, last) values (?, ?, ?, ?) on conflict do nothing').run('WORKORDER', 'wonum', autokeyScope(siteid), Math.max(999, Number(highest ?? 0)));
        }
    };

    const create = db.transaction((values: Row, userid: string) => {

        const siteid = String(values.siteid);
        if (values.assetnum !== undefined && !get('select q0.assetnum from asset as q0 where q0.assetnum = ? and ((q0.siteid = ?) and (q0.status <> ?)) limit 1', values.assetnum, siteid, 'DECOMMISSIONED')) {
            throw new BaselineInputError(`asset ${String(values.assetnum)} is not in the list of values`);
        }

        ensureCounter(siteid);
        let wonum: string;
        do {
            wonum = String(get('update osprey_autokey set last = last + ? where objectname = ? and attribute = ? and scope = ? returning last', 1, 'WORKORDER', 'wonum', autokeyScope(siteid))!.last);
        } while (get('select wonum from workorder where siteid = ? and wonum = ? limit 1', siteid, wonum));

        const row = createValues(values, wonum, userid);
        prepared(`insert into workorder (${createColumns.join(', ')}) values (${marks(createColumns.length)}) returning workorderid`).get(...row);
        prepared('insert into wostatus (changeby, changedate, memo, siteid, status, wonum) values (?, ?, ?, ?, ?, ?)').run(userid, row[2], null, siteid, 'WAPPR', wonum);
        return { siteid, wonum };
    });

    const update = db.transaction((siteid: string, wonum: string, description: string, userid: string) => {

        const row = member(siteid, wonum);
        if (!row) {
            return undefined;
        }

        const changes = { description, rowstamp: Date.now() * 1000, changedate: now(), changeby: userid };
        const result = prepared('update workorder set description = ?, rowstamp = ?, changedate = ?, changeby = ? where siteid = ? and wonum = ? and rowstamp = ?').run(changes.description, changes.rowstamp, changes.changedate, changes.changeby, siteid, wonum, row.rowstamp);
        return result.changes ? { ...row, ...changes } : undefined;
    });

    const changeStatus = db.transaction((siteid: string, wonum: string, status: string, userid: string, transitions: Transitions): StatusChange => {

        const row = member(siteid, wonum);
        if (!row) {
            return 'missing';
        }

        if (!canFollow(transitions, row.status, status)) {
            return 'refused';
        }

        const values = statusValues(status, userid);
        const result = prepared(`update workorder set ${statusColumns.map((column) => `${column} = ?`).join(', ')} where siteid = ? and wonum = ? and rowstamp = ?`).run(...values, siteid, wonum, row.rowstamp);
        if (!result.changes) {
            return 'missing';
        }

        prepared('insert into wostatus (changeby, changedate, memo, siteid, status, wonum) values (?, ?, ?, ?, ?, ?)').run(userid, values[1], null, siteid, status, wonum);
        return 'changed';
    });

    return {
        member: (siteid, wonum) => Promise.resolve(member(siteid, wonum)),
        page: (siteid, statuses, offset, counted) => {

            const total = counted ? Number(get(`select count(*) as n from workorder as q0 where ((q0.siteid = ?) and (q0.status in (${marks(statuses.length)})))`, siteid, ...statuses)!.n) : undefined;
            return Promise.resolve({ rows: all(pageSql(statuses.length), siteid, ...statuses, pageSize + 1, offset), total });
        },
        countAll: () => Promise.resolve(Number(get('select count(*) as n from workorder as q0')!.n)),
        childrenPage: (siteid, offset) => {

            const rows = all(`select ${selectList(readColumns.children, 'q0')} from workorder as q0 where q0.siteid = ? order by q0.wonum desc nulls first, q0.workorderid asc limit ? offset ?`, siteid, pageSize + 1, offset);
            const page = rows.slice(0, pageSize);
            const assetKeys = [...new Set(page.filter((row) => row.assetnum !== null).map((row) => String(row.assetnum)))];
            const assets = assetKeys.length ? all(`select ${selectList(readColumns.assets)} from asset where (assetnum, siteid) in ( values ${tuples(assetKeys.length)}) order by assetuid asc`, ...assetKeys.flatMap((assetnum) => [assetnum, siteid])) : [];
            const tasks = page.length ? all(`select ${selectList(readColumns.tasks)} from woactivity where (parent, siteid) in ( values ${tuples(page.length)}) order by woactivityid asc`, ...page.flatMap((row) => [row.wonum, siteid])) : [];
            return Promise.resolve({ rows, assets, tasks });
        },
        lookup: (siteid, wonum) => {

            const row = member(siteid, wonum);
            return Promise.resolve(row ? all(`select ${selectList(readColumns.lookup, 'q0')} from asset as q0 where ((q0.siteid = ?) and (q0.status <> ?)) order by q0.assetnum asc nulls last, q0.assetuid asc limit ?`, siteid, 'DECOMMISSIONED', pageSize + 1) : undefined);
        },
        reportPage: (maxId, afterId, limit) => {

            return Promise.resolve(afterId === undefined ?
                all(`select ${selectList(readColumns.report, 'q0')} from workorder as q0 where q0.workorderid <= ? order by q0.workorderid asc limit ?`, maxId, limit) :
                all(`select ${selectList(readColumns.report, 'q0')} from workorder as q0 where q0.workorderid <= ? and q0.workorderid > ? order by q0.workorderid asc limit ?`, maxId, afterId, limit));
        },
        create: (values, userid) => {

            try {
                return Promise.resolve(create.immediate(values, userid));
            }
            catch (err) {
                return Promise.reject(err as Error);
            }
        },
        update: (siteid, wonum, description, userid) => Promise.resolve(update.immediate(siteid, wonum, description, userid)),
        changeStatus: (siteid, wonum, status, userid, transitions) => Promise.resolve(changeStatus.immediate(siteid, wonum, status, userid, transitions)),
        close: () => Promise.resolve(void db.close())
    };
};
