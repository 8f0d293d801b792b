import * as Code from '@hapi/code';
import * as Lab from '@hapi/lab';

import { testDatabases } from '../helpers/databases';
import { startClientServer, type ClientServer, type NpmClient } from '../helpers/npm-client';


const { experiment, test, before, after } = exports.lab = Lab.script();
const { expect } = Code;

const days = 86_400_000;

// The npm client's whereTimelineRange (tlrange, tlattribute), opMode (opmode) and groupByRange (gbrange) against
// the real process, on work orders made here: the rows they return are checked one by one.
for (const database of testDatabases) {
    experiment(`timeline, opMode and groupByRange with the npm Maximo client (${database.name})`, { timeout: 60_000 }, () => {

        let server: ClientServer;
        let client: NpmClient;
        let now: number;
        const wonums = new Map<string, string>();      // description → wonum
        const rows: [string, number, number][] = [      // description, wopriority, reportdate offset in days
            ['cp-a', 1, -3],
            ['cp-b', 2, -20],
            ['cp-c', 3, -100],
            ['cp-d', 5, 10],
            ['cp-e', 8, -400]
        ];

        before({ timeout: 60_000 }, async () => {

            server = await startClientServer(database);
            client = server.client;
            now = Date.now();
            for (const [description, wopriority, offset] of rows) {
                const res = await fetch(`http://127.0.0.1:${server.running.port}/maximo/oslc/os/mxapiwodetail`, {
                    method: 'POST',
                    headers: { maxauth: Buffer.from('wilson:wilson').toString('base64'), 'content-type': 'application/json', properties: 'wonum' },
                    body: JSON.stringify({ siteid: 'BEDFORD', lead: 'CLIENTP', description, wopriority, reportdate: new Date(now + offset * days).toISOString() })
                });
                expect(res.status).to.equal(201);
                wonums.set(description, (await res.json() as { wonum: string }).wonum);
            }
        });

        after(() => server.stop());

        const descriptions = (items: any[]) => items.map((item) => [...wonums].find(([, wonum]) => wonum === item.wonum)?.[0]);

        test('whereTimelineRange sends tlrange and tlattribute; the rows within the range come back', async () => {

            const wo = client.getService('mxapiwodetail');
            const query = () => wo.query().where('lead="CLIENTP"').select(['wonum']).orderBy('+reportdate');
            expect(descriptions(await wo.findAll(query().whereTimelineRange('reportdate', '-1M')) as any[])).to.equal(['cp-b', 'cp-a']);
            expect(descriptions(await wo.findAll(query().whereTimelineRange('reportdate', '-7D')) as any[])).to.equal(['cp-a']);
            expect(descriptions(await wo.findAll(query().whereTimelineRange('reportdate', '+2W')) as any[])).to.equal(['cp-d']);
            expect(descriptions(await wo.findAll(query().whereTimelineRange('reportdate', '+-1Y')) as any[])).to.equal(['cp-c', 'cp-b', 'cp-a', 'cp-d']);
            expect(descriptions(await wo.findAll(query().whereTimelineRange('reportdate', '+-2W', new Date(now - 100 * days).toISOString())) as any[])).to.equal(['cp-c']);
            const error = await expect(wo.findAll(query().whereTimelineRange('reportdate', '3M'))).to.reject();
            expect(JSON.stringify(error)).to.contain('tlrange');
        });

        test('opMode(\'or\') sends opmode=or; the where\'s ands become ors', async () => {

            const wo = client.getService('mxapiwodetail');
            const query = () => wo.query().where('description="cp-a"').where('description="cp-d"').select(['wonum']).orderBy('+wonum');
            expect(descriptions(await wo.findAll(query()) as any[])).to.equal([]);
            expect(descriptions(await wo.findAll(query().opMode('or')) as any[])).to.equal(['cp-a', 'cp-d']);
            expect(descriptions(await wo.findAll(query().opMode('and')) as any[])).to.equal([]);
            expect(descriptions(await wo.findAll(query().useOrLogic()) as any[])).to.equal(['cp-a', 'cp-d']);
        });

        test('groupByRange sends gbrange; groups in a range are merged, with a collectionref that selects them', async () => {

            const wo = client.getService('mxapiwodetail');
            const groups = await wo.findAll(wo.query().where('lead="CLIENTP"').groupBy(['wopriority', 'count.*']).groupByRange('wopriority={[1..2],(2..5]}').groupBySort('wopriority')) as any[];
            expect(groups.map(({ wopriority, count }) => ({ wopriority, count }))).to.equal([{ wopriority: [1, 2], count: 2 }, { wopriority: [2, 5], count: 2 }, { wopriority: 8, count: 1 }]);
            // The collectionref lists the group's rows among the query's: its where is the query's AND the range.
            expect(new URL(groups[1].collectionref).searchParams.get('oslc.where')).to.equal('(lead="CLIENTP") and wopriority>2 and wopriority<=5');
            const inRange = await wo.findAll(wo.query().where(new URL(groups[1].collectionref).searchParams.get('oslc.where')!).select(['wonum']).orderBy('+wopriority')) as any[];
            expect(descriptions(inRange)).to.equal(['cp-c', 'cp-d']);
        });
    });
}
