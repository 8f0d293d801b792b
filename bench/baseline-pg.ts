import Pg from 'pg';

import { pgTypes } from '../src/db/knex';
import { autokeyScope, BaselineInputError, canFollow, createColumns, createValues, now, pageSize, readColumns, selectList, statusColumns, statusValues, type BaselineData, type StatusChange } from './baseline-data';
import type { Row } from './baseline-json';


const marks = (from: number, n: number) => Array.from({ length: n }, (_, i) => `$${from + i}`).join(', ');
const tuples = (n: number) => Array.from({ length: n }, (_, i) => `($${2 * i + 1}, $${2 * i + 2})`).join(', ');

type Queryable = Pick<Pg.PoolClient, 'query'>;

// node-pg with named prepared statements (parsed once per connection), the pool as large as Osprey's, and
// the same type parsers, so values reach the JSON as they reach Osprey's serializer.
export const pgData = (connectionString: string): BaselineData => {

    const pool = new Pg.Pool({ connectionString, max: 10, types: pgTypes as Pg.CustomTypesConfig });
    const names = new Map<string, string>();
    const run = async (db: Queryable, text: string, values: unknown[]) => {

        let name = names.get(text);
        if (!name) {
            name = `b${names.size}`;
            names.set(text, name);
        }

        return (await db.query({ name, text, values })).rows as Row[];
    };

    const transaction = async <T>(work: (client: Pg.PoolClient) => Promise<T>): Promise<T> => {

        const client = await pool.connect();
        try {
            await client.query('begin');
            const result = await work(client);
            await client.query('commit');
            return result;
        }
        catch (err) {
            await client.query('rollback');
            throw err;
        }
        finally {
            client.release();
        }
    };

    const member = async (db: Queryable, siteid: string, wonum: string, lock = '') => (await run(db, `select * from workorder where siteid = $1 and wonum = $2 limit $3${lock}`, [siteid, wonum, 1]))[0];

    const ensureCounter = async (db: Queryable, siteid: string) => {

        if (!(await run(db, 'select * from osprey_autokey where objectname = $1 and attribute = $2 and scope = $3 limit 1', ['WORKORDER', 'wonum', autokeyScope(siteid)])).length) {
            const [{ highest }] = await run(db, 'select max(cast(wonum as integer)) as highest from workorder where siteid = $1', [siteid]) as [Row];
            await run(db, 'insert into osprey_autokey (objectname, attribute, scope, last) values ($1, $2, $3, $4) on conflict do nothing', ['WORKORDER', 'wonum', autokeyScope(siteid), Math.max(999, Number(highest ?? 0))]);
        }
    };

    return {
        member: (siteid, wonum) => member(pool, siteid, wonum),
        page: async (siteid, statuses, offset, counted) => {

            const where = `(("q0"."siteid" = $1) and ("q0"."status" in (${marks(2, statuses.length)})))`;
            const total = counted ? Number((await run(pool, `select count(*) as "n" from "workorder" as "q0" where ${where}`, [siteid, ...statuses]))[0]!.n) : undefined;
            const rows = await run(pool, `select ${selectList(readColumns.query, 'q0', true)} from "workorder" as "q0" where ${where} order by "q0"."wonum" collate "C" desc nulls first, "q0"."workorderid" asc limit $${statuses.length + 2} offset $${statuses.length + 3}`, [siteid, ...statuses, pageSize + 1, offset]);
            return { rows, total };
        },
        countAll: async () => Number((await run(pool, 'select count(*) as "n" from "workorder" as "q0"', []))[0]!.n),
        childrenPage: async (siteid, offset) => {

            const rows = (await run(pool, `select ${selectList(readColumns.children, 'q0', true)} from "workorder" as "q0" where "q0"."siteid" = $1 order by "q0"."wonum" collate "C" desc nulls first, "q0"."workorderid" asc limit $2 offset $3`, [siteid, pageSize + 1, offset]));
            const page = rows.slice(0, pageSize);
            const assetKeys = [...new Set(page.filter((row) => row.assetnum !== null).map((row) => String(row.assetnum)))];
            const [assets, tasks] = await Promise.all([
                assetKeys.length ? run(pool, `select ${selectList(readColumns.assets, undefined, true)} from "asset" where ("assetnum", "siteid") in (${tuples(assetKeys.length)}) order by "assetuid" asc`, assetKeys.flatMap((assetnum) => [assetnum, siteid])) : [],
                page.length ? run(pool, `select ${selectList(readColumns.tasks, undefined, true)} from "woactivity" where ("parent", "siteid") in (${tuples(page.length)}) order by "woactivityid" asc`, page.flatMap((row) => [row.wonum, siteid])) : []
            ]);
            return { rows, assets, tasks };
        },
        lookup: async (siteid, wonum) => {

            const row = await member(pool, siteid, wonum);
            return row ? await run(pool, `select ${selectList(readColumns.lookup, 'q0', true)} from "asset" as "q0" where (("q0"."siteid" = $1) and ("q0"."status" <> $2)) order by "q0"."assetnum" collate "C" asc nulls last, "q0"."assetuid" asc limit $3`, [siteid, 'DECOMMISSIONED', pageSize + 1]) : undefined;
        },
        reportPage: (maxId, afterId, limit) => {

            return afterId === undefined ?
                run(pool, `select ${selectList(readColumns.report, 'q0', true)} from "workorder" as "q0" where "q0"."workorderid" <= $1 order by "q0"."workorderid" asc limit $2`, [maxId, limit]) :
                run(pool, `select ${selectList(readColumns.report, 'q0', true)} from "workorder" as "q0" where "q0"."workorderid" <= $1 and "q0"."workorderid" > $2 order by "q0"."workorderid" asc limit $3`, [maxId, afterId, limit]);
        },
        create: (values, userid) => {

            return transaction(async (client) => {

                const siteid = String(values.siteid);
                if (values.assetnum !== undefined && !(await run(client, 'select "q0"."assetnum" from "asset" as "q0" where "q0"."assetnum" = $1 and (("q0"."siteid" = $2) and ("q0"."status" <> $3)) limit $4', [values.assetnum, siteid, 'DECOMMISSIONED', 1])).length) {
                    throw new BaselineInputError(`asset ${String(values.assetnum)} is not in the list of values`);
                }

                await ensureCounter(client, siteid);
                let wonum: string;
                do {
                    wonum = String((await run(client, 'update "osprey_autokey" set "last" = "last" + $1 where "objectname" = $2 and "attribute" = $3 and "scope" = $4 returning "last"', [1, 'WORKORDER', 'wonum', autokeyScope(siteid)]))[0]!.last);
                } while ((await run(client, 'select "wonum" from "workorder" where "siteid" = $1 and "wonum" = $2 limit $3', [siteid, wonum, 1])).length);

                const row = createValues(values, wonum, userid);
                await run(client, `insert into "workorder" (${createColumns.map((column) => `"${column}"`).join(', ')}) values (${marks(1, createColumns.length)}) returning "workorderid"`, row);
                await run(client, 'insert into "wostatus" ("changeby", "changedate", "memo", "siteid", "status", "wonum") values ($1, $2, $3, $4, $5, $6)', [userid, row[2], null, siteid, 'WAPPR', wonum]);
                return { siteid, wonum };
            });
        },
        update: (siteid, wonum, description, userid) => {

            return transaction(async (client) => {

                const row = await member(client, siteid, wonum, ' for update');
                if (!row) {
                    return undefined;
                }

                const changes = { description, rowstamp: Date.now() * 1000, changedate: now(), changeby: userid };
                const result = await client.query({ name: 'update', text: 'update "workorder" set "description" = $1, "rowstamp" = $2, "changedate" = $3, "changeby" = $4 where "siteid" = $5 and "wonum" = $6 and "rowstamp" = $7', values: [changes.description, changes.rowstamp, changes.changedate, changes.changeby, siteid, wonum, row.rowstamp] });
                return result.rowCount ? { ...row, ...changes } : undefined;
            });
        },
        changeStatus: (siteid, wonum, status, userid, transitions) => {

            return transaction(async (client): Promise<StatusChange> => {

                const row = await member(client, siteid, wonum, ' for update');
                if (!row) {
                    return 'missing';
                }

                if (!canFollow(transitions, row.status, status)) {
                    return 'refused';
                }

                const values = statusValues(status, userid);
                const updated = await run(client, `update "workorder" set ${statusColumns.map((column, i) => `"${column}" = $${i + 1}`).join(', ')} where "siteid" = $6 and "wonum" = $7 and "rowstamp" = $8 returning "rowstamp"`, [...values, siteid, wonum, row.rowstamp]);
                if (!updated.length) {
                    return 'missing';
                }

                await run(client, 'insert into "wostatus" ("changeby", "changedate", "memo", "siteid", "status", "wonum") values ($1, $2, $3, $4, $5, $6)', [userid, values[1], null, siteid, status, wonum]);
                return 'changed';
            });
        },
        close: () => pool.end()
    };
};
