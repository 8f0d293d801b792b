import * as Code from '@hapi/code';
import * as Lab from '@hapi/lab';

import { testDatabases } from '../helpers/databases';
import { startClientServer, type ClientServer, type NpmClient } from '../helpers/npm-client';


const { experiment, test, before, after } = exports.lab = Lab.script();
const { expect } = Code;


// The npm client's query methods against the real process; what it returns is checked against plain HTTP
// requests written by hand, and against the filter it asked for.
for (const database of testDatabases) {
    experiment(`queries with the npm Maximo client (${database.name})`, { timeout: 60_000 }, () => {

        let server: ClientServer;
        let client: NpmClient;
        const raw = async (query: string) => {

            const res = await fetch(`http://127.0.0.1:${server.running.port}/maximo/oslc/os/mxapiwodetail?${query}`, { headers: { maxauth: Buffer.from('wilson:wilson').toString('base64') } });
            expect(res.status, query).to.equal(200);
            return await res.json() as any;
        };

        before({ timeout: 60_000 }, async () => {

            server = await startClientServer(database);
            client = server.client;
        });

        after(() => server.stop());

        test('findAll, count, findPaginated with nextPage, previousPage and goToPage', async () => {

            const wo = client.getService('mxapiwodetail');
            const approved = await wo.findAll('status="APPR" and siteid="BEDFORD"', ['wonum', 'status', 'siteid'], '-wonum') as any[];
            const expected = await raw(`oslc.where=${encodeURIComponent('status="APPR" and siteid="BEDFORD"')}&oslc.select=wonum&oslc.orderBy=-wonum`);
            expect(approved.map((row) => row.wonum)).to.equal(expected.member.map((row: any) => row.wonum));
            expect(approved.every((row) => row.status === 'APPR' && row.siteid === 'BEDFORD')).to.be.true();

            const total = await wo.count('siteid="NASHUA"');
            expect(total).to.equal((await raw(`oslc.where=${encodeURIComponent('siteid="NASHUA"')}&count=1`)).totalCount);
            expect(total > 100).to.be.true();

            const first = await wo.findPaginated('siteid="NASHUA"', 1, 40, ['wonum'], '+wonum');
            expect(first.totalCount).to.equal(total);
            expect(first.totalPages).to.equal(Math.ceil(total / 40));
            expect(first.items).to.have.length(40);
            expect(first.hasNextPage).to.be.true();
            expect(first.hasPreviousPage).to.be.false();
            const second = (await first.nextPage())!;
            expect(second.pageNum).to.equal(2);
            expect(second.hasPreviousPage).to.be.true();
            const back = (await second.previousPage())!;
            expect(back.items.map((row: any) => row.wonum)).to.equal(first.items.map((row: any) => row.wonum));
            const last = await first.goToPage(first.totalPages!);
            expect(last.items).to.have.length(total - 40 * (first.totalPages! - 1));
            expect(last.hasNextPage).to.be.false();
            const all = [...first.items, ...second.items].map((row: any) => row.wonum);
            expect(new Set(all).size).to.equal(80);
            expect(all).to.equal([...all].sort());
        });

        test('findDistinct, findBySavedQuery and the query builder with groupBy', async () => {

            const wo = client.getService('mxapiwodetail');
            const worktypes = await wo.findDistinct('worktype', 'siteid="BEDFORD"');
            expect(worktypes).to.equal(await raw(`distinct=worktype&oslc.where=${encodeURIComponent('siteid="BEDFORD"')}`));
            expect(worktypes).to.include(['CM', 'PM']);

            const open = await wo.findBySavedQuery('OPENWO', ['wonum', 'status']);
            expect(open.items.length > 0).to.be.true();
            expect(open.items.every((row: any) => ['WAPPR', 'APPR', 'WSCH', 'WMATL', 'INPRG'].includes(row.status))).to.be.true();
            const assets = await client.getService('mxapiasset').findBySavedQuery('OPERATINGASSETS', ['assetnum', 'status']);
            expect(assets.items.every((row: any) => row.status === 'OPERATING')).to.be.true();

            const groups = await wo.findAll(wo.query().where('siteid="BEDFORD"').groupBy(['status', 'count.*']).groupBySort('-count')) as any[];
            const expected = await raw(`gbcols=status,count.*&gbsortby=-count&oslc.where=${encodeURIComponent('siteid="BEDFORD"')}`);
            expect(groups).to.equal(expected);
            expect(groups.reduce((sum, group) => sum + group.count, 0)).to.equal(await wo.count('siteid="BEDFORD"'));
        });

        test('the where helpers the client builds: in, not in, like, null and not null', async () => {

            const wo = client.getService('mxapiwodetail');
            const fetch = (build: (query: any) => unknown) => {

                const query = wo.query().select(['wonum', 'worktype', 'status', 'description', 'schedstart']).pageSize(1000);
                build(query);
                return wo.findAll(query) as Promise<any[]>;
            };

            const within = await fetch((q) => q.whereIn('worktype', ['EM', 'CP']));
            expect(within.length > 0 && within.every((row) => ['EM', 'CP'].includes(row.worktype))).to.be.true();
            const outside = await fetch((q) => q.whereNotIn('status', ['CLOSE', 'CAN']).whereNotNull('worktype'));
            expect(outside.length > 0 && outside.every((row) => !['CLOSE', 'CAN'].includes(row.status) && row.worktype)).to.be.true();
            const like = await fetch((q) => q.whereLike('description', 'seal'));
            expect(like.length > 0 && like.every((row) => /seal/i.test(row.description))).to.be.true();
            const starts = await fetch((q) => q.whereLike('description', 'leak', 'startsWith'));
            expect(starts.length > 0 && starts.every((row) => /^leak/i.test(row.description))).to.be.true();
            const unscheduled = await fetch((q) => q.whereNull('schedstart'));
            const scheduled = await fetch((q) => q.whereNotNull('schedstart'));
            expect(unscheduled.every((row) => row.schedstart === undefined) && scheduled.every((row) => row.schedstart !== undefined)).to.be.true();
            expect(unscheduled.length + scheduled.length).to.equal(await wo.count());
            const either = await fetch((q) => q.whereOr(['worktype="EM"', 'status="CAN"']));
            expect(either.every((row) => row.worktype === 'EM' || row.status === 'CAN')).to.be.true();
            expect(either.length).to.equal((await raw(`oslc.where=${encodeURIComponent('worktype="EM" or status="CAN"')}&count=1`)).totalCount);
        });
    });
}
