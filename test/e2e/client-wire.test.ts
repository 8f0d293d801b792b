import * as Code from '@hapi/code';
import * as Lab from '@hapi/lab';

import { testDatabases } from '../helpers/databases';
import { startClientServer, type ClientServer, type NpmClient } from '../helpers/npm-client';


const { experiment, test, before, after } = exports.lab = Lab.script();
const { expect } = Code;

// The npm client's wire options against the real process, as an application calls them: internalValues(),
// ignoreRowstamp() and addSchema() on queries and fetches, and SchemaService with a select.

const keysOf = (value: unknown): string[] => {

    if (Array.isArray(value)) {
        return value.flatMap(keysOf);
    }

    return value !== null && typeof value === 'object' ? Object.entries(value).flatMap(([key, inner]) => [key, ...keysOf(inner)]) : [];
};

for (const database of testDatabases) {
    experiment(`wire options of the npm Maximo client (${database.name})`, { timeout: 60_000 }, () => {

        let server: ClientServer;
        let client: NpmClient;
        before({ timeout: 60_000 }, async () => {

            server = await startClientServer(database);
            client = server.client;
        });

        after(() => server.stop());

        test('a query with internalValues() and ignoreRowstamp(); a fetch with them', async () => {

            const assets = client.getService('mxapiasset');
            const result = await assets.executeQuery(assets.query().select(['assetnum', 'status', 'assetmeter{metername}']).where('status="BROKEN"').pageSize(5).internalValues().ignoreRowstamp());
            expect(result.items.length > 0).to.be.true();
            for (const asset of result.items as any[]) {
                expect(asset).to.include({ status: 'BROKEN', status_maxvalue: 'NOT READY' });
            }

            expect(keysOf(result.items)).to.not.include('_rowstamp');
            const id = String((result.items[0] as any).href).split('/').pop()!;
            const fetched = await assets.fetchById(id).properties(['assetnum', 'status']).internalValues().ignoreRowstamp().execute() as any;
            expect(fetched).to.include({ status: 'BROKEN', status_maxvalue: 'NOT READY' });
            expect(fetched._rowstamp).to.not.exist();
        });

        test('addSchema() and SchemaService: the schema of what was selected', async () => {

            const wo = client.getService('mxapiwodetail');
            const schema = await client.schema.getObjectStructureSchema('mxapiwodetail', 'wonum,status,woactivity{taskid}') as any;
            expect(Object.keys(schema.properties)).to.equal(['href', '_rowstamp', 'wonum', 'status', 'status_description', 'woactivity']);
            expect(schema.properties.woactivity.items.properties.taskid.type).to.equal('integer');

            const withSchema = await client.schema.getResourceWithSchema('/maximo/oslc/os/mxapiwodetail', { 'oslc.select': 'wonum,woactivity._dbcount', 'oslc.pageSize': '2' }) as any;
            expect(withSchema.member).to.have.length(2);
            expect(withSchema.member[0].woactivity._dbcount).to.be.a.number();
            expect(withSchema.responseInfo.schema.properties.woactivity).to.equal({ type: 'object', properties: { _dbcount: { type: 'integer' } } });

            const page = await wo.executeQuery(wo.query().select(['wonum']).page(1, 2).addSchema());
            expect(page.items).to.have.length(2);
            expect(page.hasNextPage).to.be.true();
            const next = await page.nextPage();
            expect(next!.items).to.have.length(2);
        });
    });
}
