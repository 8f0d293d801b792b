import * as Code from '@hapi/code';
import { ApiHome, AuthType, GenericOslcService, MASClient, MaximoClient, PermissionService, WorkOrderService } from '@maximomize/maximo-api-client';

import { quiet } from '../../helpers/npm-client';
import { expectError, idOf, type Context, type Probe } from './ledger';


const { expect } = Code;

const information = async (t: Context) => {

    const info = t.wilson.oslcInfoService;
    const home = await info.fetchApiHomeDocument();
    expect(home.href).to.equal(t.home);
    expect(home.whoami.href).to.equal(`${t.home}/whoami`);
    const system = await info.getSystemInfo();
    expect(system.productName).to.equal('Osprey');
    const whoami = await info.getWhoAmI();
    expect(whoami).to.include({ userName: 'WILSON', defaultSite: 'BEDFORD' });
    expect((await info.getInstalledProducts()).member.map((product: any) => product.name)).to.include('Osprey');
    const members = await info.getServerMembers();
    expect(members.member.filter((member: any) => member.thisServer)).to.have.length(1);
    expect((await info.getLicenses()).member[0].component).to.equal('Osprey');
    expect((await info.getApiMetadataDocument()).map((entry: any) => entry.name)).to.equal(['MXAPIAPIKEY', 'MXAPIASSET', 'MXAPILOCATION', 'MXAPIMAXGROUP', 'MXAPIMAXUSER', 'MXAPIPERSON', 'MXAPIWFASSIGNMENT', 'MXAPIWODETAIL']);
    t.works('OslcInfoService.fetchApiHomeDocument', 'OslcInfoService.getSystemInfo', 'OslcInfoService.getWhoAmI', 'OslcInfoService.getInstalledProducts', 'OslcInfoService.getServerMembers', 'OslcInfoService.getLicenses', 'OslcInfoService.getApiMetadataDocument');
};

const schemas = async (t: Context) => {

    const schema = t.wilson.schema;
    const structure = await schema.getObjectStructureSchema('mxapiwodetail');
    expect(structure.properties.wonum.maxLength).to.equal(25);
    expect(structure.properties.woactivity.items.objectName).to.equal('WOACTIVITY');
    const mbo = await schema.getMboSchema('workorder');
    expect(mbo.objectName).to.equal('WORKORDER');
    expect(mbo.properties.wonum).to.equal(structure.properties.wonum);
    expect(mbo.properties.woactivity).to.not.exist();
    expect(mbo.pk).to.equal(['siteid', 'wonum']);
    const child = await schema.getSchema('jsonmboschemas', 'WOACTIVITY');
    expect(child.properties.taskid.type).to.equal('integer');
    expect(child.properties).to.equal(structure.properties.woactivity.items.properties);
    expect((await schema.getSchema('jsonschemas', 'mxapiasset')).properties.assetmeter.items.objectName).to.equal('ASSETMETER');
    t.works('SchemaService.getObjectStructureSchema', 'SchemaService.getMboSchema', 'SchemaService.getSchema');

    // addschema=1: the schema rides along with a collection's page; a single record's answer has no responseInfo.
    const withSchema = await schema.getResourceWithSchema('/maximo/oslc/os/mxapiwodetail', { 'oslc.select': 'wonum', 'oslc.pageSize': '1' }) as any;
    expect(withSchema.member[0].wonum).to.exist();
    expect(withSchema.responseInfo.schema.properties.wonum.type).to.equal('string');
    const record = await schema.getResourceWithSchema('/maximo/oslc/os/mxapiwodetail/_QkVERk9SRC8xMDAw', { 'oslc.select': 'wonum' }).catch((error: any) => error.response);
    expect(record.status).to.equal(400);
    expect(record.data.Error.message).to.contain('addschema');
    t.record('SchemaService.getResourceWithSchema', 'works');
};

const metrics = ['pingDb', 'getDbInfo', 'getMemory', 'getThreads'];
const unservedMetrics: Record<string, string> = {
    getCloudDbStatistics: 'clouddbstatistics', getCloudDbStorage: 'clouddbstorage', pingKafka: 'pingkafka', pingCos: 'pingcos', getDbManagerInfo: 'dbinfo/dbmanager',
    getCronThread: 'cronthread', getClassInfo: 'classinfo', getOpSystem: 'opsystem', getThreadPoolInfo: 'threadpoolinfo', getServletStats: 'servletstats', getMboCount: 'mbocount',
    getApiMetrics: 'apimetrics', getMsgProviders: 'msgproviders', getLoggers: 'loggers', getCron: 'cron', getSessionStatsInfo: 'sessionstatsinfo', getAppServices: 'appservices',
    getAppServicesHeapDump: 'appservices/heapdump', getTableSize: 'tablesize', getFormula: 'formula', getReport: 'report', getQueues: 'queues', getOsCache: 'oscache', getJvm: 'jvm',
    getHttp: 'http', getHeapDump: 'heapdump', getEventTree: 'eventtree', getErrCountMetrics: 'errcountmetrics', getChildDirs: 'globaldir/childdirs'
};

const management = async (t: Context, database: string) => {

    const mmi = t.admin.mmi;
    const overview = await mmi.getMmi();
    expect(overview.member.map((metric: any) => metric.name)).to.equal(['pingdb', 'dbinfo', 'memory', 'threads']);
    const thisNode = (await mmi.getMembers()).member.find((member: any) => member.thisServer);
    expect(overview.thisserver.href).to.equal(thisNode.href);
    const member = await mmi.getMember();
    expect(member).to.include({ id: thisNode.id, thisServer: true, pid: thisNode.pid });
    expect(await mmi.getMember(thisNode.id)).to.equal(member);

    const ping = await mmi.pingDb();
    expect(ping).to.include({ member: thisNode.id, status: 'OK', statement: 'select 1', runs: 10 });
    expect(ping.averageResponseTimeMs > 0 && ping.averageResponseTimeMs <= ping.maxResponseTimeMs).to.be.true();
    const db = await mmi.getDbInfo(thisNode.id);
    const system = await t.admin.oslcInfoService.getSystemInfo();
    expect(db).to.include({ databaseKind: database, databaseProductVersion: system.database.dbVersion, driverName: database === 'sqlite' ? 'better-sqlite3' : 'pg' });
    expect(db.connectionPool.max >= db.connectionPool.inUse + db.connectionPool.free).to.be.true();
    // Nothing that reaches the database: no URL, user, password or file.
    const described = { ...db, href: undefined };
    expect(JSON.stringify(described)).to.not.match(/postgres:|sqlite:|password|\.sqlite|127\.0\.0\.1|osprey_t_/);
    const memory = await mmi.getMemory();
    expect(memory.unit).to.equal('MB');
    expect(memory.heapMemoryUsage.used > 0 && memory.heapMemoryUsage.used <= memory.heapMemoryUsage.committed && memory.heapMemoryUsage.committed < memory.heapMemoryUsage.max).to.be.true();
    expect(memory.residentSetSize > memory.heapMemoryUsage.used).to.be.true();
    const threads = await mmi.getThreads();
    expect(threads).to.include({ javascriptThreads: 1, deadlockedThreadCount: 0 });
    expect(threads.threadCount > 1).to.be.true();
    expect(threads.model).to.contain('one JavaScript thread');
    t.works('MmiService.getMmi', 'MmiService.getMembers', 'MmiService.getMember', ...metrics.map((name) => `MmiService.${name}`));

    // Kept to administrators, as Maximo keeps them to the holders of the Logging application's options.
    for (const call of [() => t.wilson.mmi.getMmi(), () => t.wilson.mmi.getMemory()]) {
        const refused = await expectError(call);
        expect(refused.status).to.equal(403);
        expect(refused.body.Error.reasonCode).to.equal('BMXAA9301E');
    }

    for (const [method, name] of Object.entries(unservedMetrics)) {
        await t.notProvided(`MmiService.${method}`, () => (mmi as any)[method](), `the ${name} metric`);
    }
};

const permissions = async (t: Context) => {

    // The singleton takes the HTTP client of the client built last.
    t.client('wilson');
    expect(await PermissionService.listAllowedApps()).to.equal(['APIKEY', 'ASSET', 'INBOX', 'LOCATION', 'PERSON', 'USER', 'WOTRACK']);
    expect(await PermissionService.getAllowedAppOptions('wotrack')).to.equal({ WOTRACK: ['READ', 'INSERT', 'SAVE', 'DELETE', 'changeStatus'] });
    const all = await PermissionService.getAllowedAppOptions();
    expect(all).to.equal({ APIKEY: ['READ', 'INSERT', 'DELETE'], ASSET: ['READ'], INBOX: ['READ'], LOCATION: ['READ'], PERSON: ['READ'], SECURGROUP: [], USER: ['READ'], WOTRACK: ['READ', 'INSERT', 'SAVE', 'DELETE', 'changeStatus'] });
    t.client('maxadmin');
    expect((await PermissionService.getAllowedAppOptions('ASSET')).ASSET).to.equal(['READ', 'INSERT', 'SAVE', 'DELETE']);
    const unknown = await expectError(() => PermissionService.getAllowedAppOptions('NOAPP'));
    expect(unknown.status).to.equal(404);
    t.works('PermissionService.listAllowedApps', 'PermissionService.getAllowedAppOptions');
    PermissionService.initialize(t.wilson.getHttpClient());
    expect(await PermissionService.getAllowedAppOptions('ASSET')).to.equal({ ASSET: ['READ'] });
    t.clientSide('PermissionService.initialize');

    // The client names no structure; named, the same question is answered.
    await t.refused('PermissionService.checkOsAuthorized', 400, () => PermissionService.checkOsAuthorized(), 'permission/checkosauthorized/{os}');
    expect((await t.get('/permission/checkosauthorized/MXAPIASSET')).body).to.equal(true);
};

const apiKeys = async (t: Context) => {

    // From no key at all: earlier probes may have made some.
    const keys = t.admin.getApiKeyService();
    for (const key of await keys.getAllApiKeys(undefined, 'userid') as any[]) {
        await keys.revokeApiKeyById(idOf(key.href));
    }

    const wilson = t.client('wilson').getApiKeyService();
    const { apikey } = await wilson.getCurrentUserApiKey();
    expect(apikey).to.have.length(43);
    const token = await keys.createApiToken('WILSON', 60);
    const made = await keys.createApiKey({ userid: 'MAXADMIN', expiration: 30 } as any) as any;
    expect(made.apikey).to.have.length(43);
    expect((await wilson.getAllApiKeys(undefined, 'userid,apikey') as any[]).map((key) => key.apikey).sort()).to.equal([apikey, token].sort());
    // A key's value is rendered only when named, never in *.
    expect((await wilson.getAllApiKeys() as any[]).map((key) => [key.userid, key.apikey])).to.equal([['WILSON', undefined], ['WILSON', undefined]]);
    expect((await keys.getApiKeysByUser('MAXADMIN') as any[]).map((key) => key.apikey)).to.equal([made.apikey]);
    expect((await keys.findExpiringApiKeys(45, 'userid,expiration') as any[]).map((key) => key.expiration)).to.equal([30]);
    expect((await keys.findNonExpiringApiKeys('userid') as any[]).map((key) => key.userid)).to.equal(['WILSON']);
    const status = async (key: string) => (await fetch(`${t.home}/whoami`, { headers: { apikey: key } })).status;
    const made30 = (await keys.findAll('expiration=30', 'userid') as any[])[0];
    await keys.revokeApiKeyById(idOf(made30.href));
    expect(await status(made.apikey)).to.equal(401);
    expect(await status(token)).to.equal(200);
    await wilson.revokeCurrentUserApiKey();
    expect(await status(token)).to.equal(401);
    expect(await keys.getAllApiKeys()).to.equal([]);
    t.works(...['getCurrentUserApiKey', 'createApiToken', 'createApiKey', 'getAllApiKeys', 'getApiKeysByUser', 'findExpiringApiKeys', 'findNonExpiringApiKeys', 'revokeApiKeyById', 'revokeCurrentUserApiKey'].map((name) => `ApiKeyService.${name}`));
};

const clients = async (t: Context) => {

    // Each login flow the client offers that Osprey answers: a session cookie, then requests with it alone.
    for (const authType of [AuthType.MAXIMO_NATIVE, AuthType.LDAP_BASIC, AuthType.LDAP_FORM, AuthType.MAS_USER_PASS]) {
        const client = new MaximoClient({ baseUrl: '127.0.0.1', port: t.port, ssl: false, userName: 'wilson', password: 'wilson', authType, apiHome: ApiHome.API, logger: quiet } as any);
        expect(client.isAuthenticated()).to.be.false();
        const state = await client.authenticate();
        expect(state).to.include({ success: true, authType });
        expect(client.getAuthState()).to.shallow.equal(state);
        expect(client.isAuthenticated()).to.be.true();
        expect(await client.checkAuthentication()).to.be.true();
        expect((await client.oslcInfoService.getWhoAmI()).userName).to.equal('WILSON');
    }

    const { apikey } = await t.wilson.getApiKeyService().getCurrentUserApiKey();
    const byKey = new MaximoClient({ baseUrl: '127.0.0.1', port: t.port, ssl: false, apiKey: apikey, logger: quiet } as any);
    expect(byKey.getAuthType()).to.equal(AuthType.APIKEY);
    expect(byKey.getApiHome()).to.equal('api');
    expect((await byKey.authenticate()).success).to.be.true();
    expect((await byKey.workOrder.findAll('wonum="1000"', 'wonum')).map((row: any) => row.wonum)).to.equal(['1000']);
    await t.wilson.getApiKeyService().revokeCurrentUserApiKey();
    t.works('MaximoClient.authenticate', 'MaximoClient.checkAuthentication');

    // logout ends the session on the server: the cookie it held no longer logs in.
    const session = t.client('wilson');
    await session.authenticate();
    const jar = session.getHttpClient().cookieJar;
    const cookie = await jar.getCookieString(`http://127.0.0.1:${t.port}/maximo/oslc/whoami`);
    expect(cookie).to.contain('=');
    expect((await fetch(`${t.home}/whoami`, { headers: { cookie } })).status).to.equal(200);
    await session.logout();
    expect(session.isAuthenticated()).to.be.false();
    expect(await session.checkAuthentication()).to.be.false();
    expect((await fetch(`${t.home}/whoami`, { headers: { cookie } })).status).to.equal(401);
    t.works('MaximoClient.logout');

    // What the client holds and hands out, without a request.
    const client = t.client('wilson');
    expect(client.getDefaultApiHome(AuthType.APIKEY)).to.equal(ApiHome.API);
    expect(client.getDefaultApiHome(AuthType.LDAP_FORM)).to.equal(ApiHome.REST);
    expect(client.getApiHome()).to.equal('oslc');
    expect(client.getConfig().userName).to.equal('wilson');
    expect(client.getAuthType()).to.equal(AuthType.MAXIMO_NATIVE);
    expect((client.getHttpClient() as any).baseUrl).to.equal(`http://127.0.0.1:${t.port}`);
    expect(client.getService('mxapiperson').getObjectStructure()).to.equal('mxapiperson');
    expect(client.getService('mxapiwodetail', WorkOrderService as any)).to.be.an.instanceof(WorkOrderService);
    expect(client.getGenericOslcService().getObjectStructure()).to.equal('mxapiasset');
    expect(client.getCustomService(GenericOslcService, 'mxapilocation').getObjectStructure()).to.equal('mxapilocation');
    expect(client.getAutoscriptService('myscripts').getObjectStructure()).to.equal('myscripts');
    expect(client.getAutoscriptService()).to.shallow.equal(client.autoScript);
    expect(client.getMaxAppService().getObjectStructure()).to.equal('MXL_APPS');
    expect(client.getObjectStructService().getObjectStructure()).to.equal('MXINTOBJECT');
    expect(client.getConditionExpressionService().getObjectStructure()).to.equal('MXL_CONDITION');
    expect(client.getLoggingService()).to.shallow.equal(client.getLoggingService());
    expect(client.getSystemService()).to.shallow.equal(client.getSystemService());
    expect(client.getApiKeyService().getObjectStructure()).to.equal('mxapiapikey');
    expect(client.setServiceLogger(client.workOrder, quiet).getLogger()).to.shallow.equal(quiet);
    client.setLogLevel('error' as any);
    expect(client.getWebUrl({ value: 'WOTRACK', uniqueid: 7 } as any)).to.equal(`http://127.0.0.1:${t.port}/maximo/ui/?event=loadapp&value=WOTRACK&uniqueid=7&forcereload=true`);
    t.clientSide(...['getDefaultApiHome', 'getApiHome', 'getConfig', 'getAuthType', 'getHttpClient', 'getService', 'getGenericOslcService', 'getCustomService', 'getAutoscriptService', 'getMaxAppService', 'getObjectStructService',
        'getConditionExpressionService', 'getLoggingService', 'getSystemService', 'getApiKeyService', 'setServiceLogger', 'setLogLevel', 'getWebUrl', 'isAuthenticated', 'getAuthState'].map((name) => `MaximoClient.${name}`));

    // The Maximo Application Suite client: its manage client is a MaximoClient of this server.
    const mas = new MASClient({ common: { baseUrl: '127.0.0.1', ssl: false, logger: quiet }, manage: { port: t.port, userName: 'wilson', password: 'wilson', contextRoot: 'maximo' }, tools: { baseUrl: `127.0.0.1:${t.port}`, apiKey: 'none' } } as any);
    expect([mas.hasManage(), mas.hasTools(), mas.hasAdmin()]).to.equal([true, true, false]);
    expect((await mas.manage.oslcInfoService.getWhoAmI()).userName).to.equal('WILSON');
    t.clientSide('MASClient.hasManage', 'MASClient.hasTools', 'MASClient.hasAdmin');

    // BaseMaximoService: an action on an endpoint, and the service's logger.
    const base = client.oslcInfoService;
    expect(base.setLogger(quiet).getLogger()).to.shallow.equal(quiet);
    t.clientSide('BaseMaximoService.setLogger', 'BaseMaximoService.getLogger');
    const reports = await base.actionOnEndpoint('os/mxapiwodetail', 'listreports');
    expect(reports.data.map((report: any) => report.reportname)).to.equal(['woprint.rptdesign', 'woassets.rptdesign', 'woplan.rptdesign']);
    t.works('BaseMaximoService.actionOnEndpoint');
};

export const informationProbes = (database: string): Probe[] => [
    { title: 'the information documents', run: information },
    { title: 'JSON schemas of structures and of business objects', run: schemas },
    { title: 'the Maximo Management Interface: pingdb, dbinfo, memory and threads for an administrator; other metrics 501', run: (t) => management(t, database) },
    { title: 'permissions: the applications and signature options of the caller', run: permissions },
    { title: 'API keys: the caller\'s, and every user\'s for an administrator', run: apiKeys },
    { title: 'the clients: logins, logout, what they hand out', run: clients }
];
