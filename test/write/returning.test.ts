import * as Code from '@hapi/code';
import * as Lab from '@hapi/lab';

import { clientOf } from '../../src/db/db';
import { storedColumns } from '../../src/db/migrate';
import { onCommit, type Commit } from '../../src/write/after-commit';
import { keyColumns } from '../../src/write/apply/returning';
import { onEachDatabase } from '../helpers/experiments';
import { wilson } from '../helpers/server';


const lab = exports.lab = Lab.script();
const { test } = lab;
const { expect } = Code;

// A create that answers no record (no properties) returns only the columns the write reads of its new rows
// (src/write/apply/returning.ts); one that answers a record returns them whole. What is stored must not
// depend on which: the key, the status history and every child's join values come from the returned row.

const wos = '/maximo/oslc/os/mxapiwodetail';

type Row = Record<string, unknown>;

// What differs between two creates of the same body: generated ids, the number, times and rowstamps.
const generated = /^(workorderid|woactivityid|wplaborid|wostatusid|wonum|parent|rowstamp)$|date$/;
const comparable = (rows: Row[]) => rows.map((row) => Object.fromEntries(Object.entries(row).filter(([name]) => !generated.test(name))));

onEachDatabase(lab, 'the columns a create returns', (t, database) => {

    const body = (description: string) => ({
        siteid: 'BEDFORD', description, worktype: 'CM', wopriority: 2, memo: 'first status',
        woactivity: [{ taskid: 10, description: 'Drain' }, { taskid: 20, description: 'Refill' }],
        wplabor: [{ laborcode: 'wilson', regularhrs: 1.5 }]
    });

    // The rows one work order is stored as, in its table and its children's.
    const stored = async (wonum: string) => {

        const knex = t.server.app.osprey.knex;
        const where = { siteid: 'BEDFORD' };
        return {
            workorder: await knex('workorder').where({ ...where, wonum }).select(),
            woactivity: await knex('woactivity').where({ ...where, parent: wonum }).orderBy('taskid').select(),
            wplabor: await knex('wplabor').where({ ...where, wonum }).select(),
            wostatus: await knex('wostatus').where({ ...where, wonum }).select()
        };
    };

    const tables = ['workorder', 'woactivity', 'wplabor', 'wostatus'] as const;

    // Every row of those tables and of the counters, but the rows of the given work orders.
    const everythingBut = async (wonums: readonly string[]) => {

        const knex = t.server.app.osprey.knex;
        const number = { workorder: 'wonum', woactivity: 'parent', wplabor: 'wonum', wostatus: 'wonum' } as const;
        const all: Record<string, Row[]> = { osprey_autokey: await knex('osprey_autokey').whereNot({ scope: '["BEDFORD"]' }).orderBy(['objectname', 'attribute', 'scope']).select() };
        for (const table of tables) {
            all[table] = (await knex(table).orderBy(1).select() as Row[]).filter((row) => row.siteid !== 'BEDFORD' || !wonums.includes(String(row[number[table]])));
        }

        return all;
    };

    test('with and without properties, the same body is stored the same; the answer names the new record', async () => {

        const heard: Commit[] = [];
        const stop = onCommit(t.server.app.osprey, (commit) => {

            heard.push(commit);
        });
        const statements: string[] = [];
        const client = clientOf(t.server.app.osprey.knex);
        const query = client._query.bind(client);
        client._query = (connection, obj) => (statements.push(obj.sql), query(connection, obj));
        const before = await everythingBut([]);
        let plain;
        let answered;
        try {
            plain = await t.inject({ method: 'POST', url: wos, headers: wilson, payload: body('Returned keys') });
            answered = await t.inject({ method: 'POST', url: wos, headers: { ...wilson, properties: '*' }, payload: body('Returned keys') });
        }
        finally {
            client._query = query;
            stop();
        }

        expect([plain.statusCode, answered.statusCode], plain.payload).to.equal([201, 201]);
        expect(plain.payload).to.equal('');
        expect(answered.result.href).to.equal(answered.headers.location);
        const [mine, theirs] = [plain, answered].map((res) => new URL(res.headers.location as string).pathname);
        const read = await t.inject({ url: `${mine!}?oslc.select=wonum`, headers: wilson });
        expect(read.statusCode).to.equal(200);
        const wonum = read.result.wonum as string;
        expect(answered.result.wonum).to.not.equal(wonum);

        // Stored alike, children's join values and the status history included.
        const [a, b] = [await stored(wonum), await stored(answered.result.wonum as string)];
        expect(a.woactivity.map((row) => row.parent)).to.equal([wonum, wonum]);
        expect(a.wostatus).to.have.length(1);
        expect(a.wostatus[0]).to.include({ status: 'WAPPR', memo: 'first status' });
        for (const table of tables) {
            expect(comparable(a[table]), table).to.equal(comparable(b[table]));
        }

        // Nothing else changed: no other work order's rows, no other scope's counter.
        expect(await everythingBut([wonum, answered.result.wonum as string])).to.equal(before);

        // The subscribers heard each record by the id its Location names.
        expect(heard.map((commit) => commit.writes.map((write) => write.id))).to.equal([[mine!.split('/').pop()!], [theirs!.split('/').pop()!]]);

        // Only the create that answered a record returned the work order whole.
        // On PostgreSQL the status history row is added by the work order's insert (one statement, WITH).
        const folded = /^with "osprey_inserted" as \((insert into "workorder" .*)\), "osprey_added" as \(insert into "wostatus" /;
        const inserts = statements.map((sql) => folded.exec(sql)?.[1] ?? sql).filter((sql) => /^insert into "workorder"/.test(sql));
        expect(inserts).to.have.length(2);
        expect(statements.filter((sql) => folded.test(sql))).to.have.length(database.name === 'postgresql' ? 2 : 0);
        expect(statements.filter((sql) => /^insert into "wostatus"/.test(sql))).to.have.length(database.name === 'postgresql' ? 0 : 2);
        const returned = inserts.map((sql) => sql.slice(sql.indexOf(' returning ') + ' returning '.length).replace(/"/g, '').split(', '));
        const structure = t.server.app.osprey.registry.get('mxapiwodetail')!;
        const object = structure.root;
        expect(returned).to.equal([[...keyColumns(structure, object)], [...storedColumns(object)]]);
        expect(returned[0]).to.not.include('description');
    });

    test('a bulk item without properties is written as a single create is, and answers its Location', async () => {

        const res = await t.inject({ method: 'POST', url: wos, headers: { ...wilson, 'x-method-override': 'BULK' }, payload: [body('Bulk keys'), body('Bulk keys')] });
        expect(res.statusCode).to.equal(200);
        const locations = res.result.map((item: { _responsemeta: { status: string; Location: string } }) => item._responsemeta.Location);
        for (const location of locations) {
            const read = await t.inject({ url: `${new URL(location).pathname}?oslc.select=wonum,description,woactivity{taskid},wostatus{status}`, headers: wilson });
            expect(read.result).to.include({ description: 'Bulk keys' });
            expect(read.result.woactivity.map((row: { taskid: number }) => row.taskid)).to.equal([10, 20]);
            expect(read.result.wostatus.map((row: { status: string }) => row.status)).to.equal(['WAPPR']);
        }
    });

    test('the list: keys, ids, rowstamp, status and the children\'s join values, in the table\'s order, made once', () => {

        const structure = t.server.app.osprey.registry.get('mxapiwodetail')!;
        const root = structure.root;
        const columns = keyColumns(structure, root);
        expect(columns).to.shallow.equal(keyColumns(structure, root));
        expect([...columns].sort()).to.equal(['rowstamp', 'siteid', 'status', 'wonum', 'workorderid']);
        expect(columns).to.equal(storedColumns(root).filter((column) => columns.includes(column)));
        // A child's: its identity is its parent's join values and its own key; no status (only a root's is recorded).
        const tasks = root.children.get('woactivity')!.object;
        expect([...keyColumns(structure, tasks)].sort()).to.equal(['parent', 'rowstamp', 'siteid', 'taskid', 'woactivityid']);
    });
});

// A child whose join names a column of its parent outside the parent's key: the value comes from the returned row.
const orders = `\
name: MXTESTORDER
object: TORDER
uniqueColumn: orderid
primaryKey: [ordernum]
attributes:
  orderid: { type: bigint, generated: true }
  ordernum: { type: upper, length: 10, required: true }
  region: { type: upper, length: 10 }
  note: { type: aln, length: 40 }
children:
  line:
    object: TLINE
    uniqueColumn: lineid
    primaryKey: [linenum]
    join: { ordernum: ordernum, region: region }
    attributes:
      lineid: { type: bigint, generated: true }
      ordernum: { type: upper, length: 10, readonly: true }
      region: { type: upper, length: 10, readonly: true }
      linenum: { type: integer, required: true }
`;

onEachDatabase(lab, 'the columns a create returns for children joined outside the key', { settings: { demo: false, adminUser: 'MAXADMIN', adminPassword: 'maxadmin' }, fixture: { only: [], add: { 'mxtestorder.yaml': orders } } }, (t) => {

    test('a child row gets its parent\'s value of a joined column that is not a key', async () => {

        const admin = { maxauth: Buffer.from('maxadmin:maxadmin').toString('base64') };
        const res = await t.inject({ method: 'POST', url: '/maximo/oslc/os/mxtestorder', headers: admin, payload: { ordernum: 'O1', region: 'east', note: 'n', line: [{ linenum: 1 }, { linenum: 2 }] } });
        expect(res.statusCode, res.payload).to.equal(201);
        const structure = t.server.app.osprey.registry.get('mxtestorder')!;
        const root = structure.root;
        expect(keyColumns(structure, root)).to.include('region');
        expect(keyColumns(structure, root)).to.not.include('note');
        const lines = await t.server.app.osprey.knex(root.children.get('line')!.object.table).orderBy('linenum').select('ordernum', 'region', 'linenum');
        expect(lines).to.equal([{ ordernum: 'O1', region: 'EAST', linenum: 1 }, { ordernum: 'O1', region: 'EAST', linenum: 2 }]);
    });
});
