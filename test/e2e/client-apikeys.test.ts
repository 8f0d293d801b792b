import * as Code from '@hapi/code';
import * as Lab from '@hapi/lab';
import { ApiHome, MaximoClientBuilder } from '@maximomize/maximo-api-client';

import { testDatabases } from '../helpers/databases';
import { quiet } from '../helpers/npm-client';
import { dataDir, startProcess } from '../helpers/process';


const { experiment, test } = exports.lab = Lab.script();
const { expect } = Code;

const builder = (port: number) => new MaximoClientBuilder().baseUrl('127.0.0.1').port(port).ssl(false).contextRoot('maximo').logger(quiet);
const idOf = (href: string) => href.split('/').pop()!;

for (const database of testDatabases) {
    experiment(`API keys with the npm Maximo client, on two server processes (${database.name})`, { timeout: 90_000 }, () => {

        test('WILSON gets a key, uses it on /api of another node, and loses it the moment MAXADMIN revokes it', async () => {

            const created = await database.create();
            // Two nodes on one database share the secret, as the README says they must.
            const env = { DATABASE_URL: created.url, OSPREY_SECRET: 'e2e-shared-secret-0123456789abcdefghijk' };
            const first = await startProcess({ ...env, OSPREY_DATA: dataDir() });
            const second = await startProcess({ ...env, OSPREY_DATA: dataDir() });
            const status = async (port: number, path: string, apikey: string) => (await fetch(`http://127.0.0.1:${port}/maximo${path}`, { headers: { apikey } })).status;
            try {
                const wilson = builder(first.port).withCredentials('wilson', 'wilson').apiHome(ApiHome.OSLC).build();
                const { apikey } = await wilson.getApiKeyService().getCurrentUserApiKey();
                expect(apikey).to.have.length(43);
                expect((await wilson.getApiKeyService().getCurrentUserApiKey()).apikey).to.equal(apikey);

                // A second client with only the key, on the /api home of the other node.
                const byKey = builder(second.port).withApiKey(apikey).apiHome(ApiHome.API).build();
                const info = byKey.oslcInfoService;
                expect((await info.getWhoAmI() as { userName: string }).userName).to.equal('WILSON');
                expect((await info.getSystemInfo() as { database: { kind: string } }).database.kind).to.equal(database.name);
                expect((await info.getApiMetadataDocument() as unknown[]).length).to.equal(8);
                expect(await byKey.workOrder.count('status="APPR"')).to.equal(await wilson.workOrder.count('status="APPR"'));

                // MAXADMIN manages everyone's keys.
                const admin = builder(first.port).withCredentials('maxadmin', 'maxadmin').apiHome(ApiHome.OSLC).build();
                const keys = admin.getApiKeyService();
                const token = await keys.createApiToken('WILSON', 60);
                expect(token).to.have.length(43);
                const made = await keys.createApiKey({ userid: 'WILSON', expiration: 30 } as any) as any;
                expect(made.apikey).to.have.length(43);
                const adminOwn = await keys.createApiToken('MAXADMIN');
                expect(adminOwn).to.have.length(43);

                const all = await keys.getAllApiKeys() as any[];
                expect(new Set(all.map((key) => key.userid))).to.equal(new Set(['WILSON', 'MAXADMIN']));
                const wilsons = await keys.getApiKeysByUser('WILSON') as any[];
                expect(wilsons).to.have.length(3);
                expect(wilsons.map((key) => key.apikey).sort()).to.equal([apikey, token, made.apikey].sort());
                const expiring = await keys.findExpiringApiKeys(60, 'userid,expiration') as any[];
                expect(expiring.map((key) => key.expiration).sort()).to.equal([30, 60]);
                const forever = await keys.findNonExpiringApiKeys('userid,expiration') as any[];
                expect(forever.map((key) => key.userid).sort()).to.equal(['MAXADMIN', 'WILSON']);

                // WILSON cannot list MAXADMIN's keys, nor make one for him.
                expect(await wilson.getApiKeyService().getApiKeysByUser('MAXADMIN')).to.equal([]);
                expect((await wilson.getApiKeyService().getAllApiKeys() as any[]).every((key) => key.userid === 'WILSON')).to.be.true();
                await expect(wilson.getApiKeyService().createApiToken('MAXADMIN')).to.reject();

                // Revoked through the first node: the second refuses the key on its next request.
                const current = (await keys.findAll('expiration=-1 and userid="WILSON"', 'userid') as any[])[0];
                await keys.revokeApiKeyById(idOf(current.href));
                expect(await status(second.port, '/api/whoami', apikey)).to.equal(401);
                expect(await status(second.port, '/api/whoami', token)).to.equal(200);

                await wilson.getApiKeyService().revokeCurrentUserApiKey();
                expect(await status(second.port, '/api/whoami', token)).to.equal(401);
                expect(await status(second.port, '/oslc/whoami', made.apikey)).to.equal(401);
                expect(await status(second.port, '/api/whoami', adminOwn)).to.equal(200);
            }
            finally {
                await first.stop();
                await second.stop();
                await created.drop();
            }
        });
    });
}
