import * as Code from '@hapi/code';
import { CacheService, MaximoToolsClientBuilder, PermissionService } from '@maximomize/maximo-api-client';
import { AppXmlService } from '@maximomize/maximo-api-client/dist/services/manage/appxml-service';

import { quiet } from '../../helpers/npm-client';
import type { Context, Probe } from './ledger';


const { expect } = Code;

// The methods of Maximo services Osprey does not provide: each is answered 501 naming the service, and writes
// nothing (the work orders, the one table every probe here could have reached by mistake, keep their count).

const autoscript = 'the automation script service';

const scripts = async (t: Context) => {

    const service = t.wilson.autoScript;
    const name = 'HELLO';
    const calls: Record<string, () => Promise<unknown>> = {
        createScript: () => service.createScript({ autoscript: name, source: 'print(1)', language: 'python' } as any),
        addScriptVariables: () => service.addScriptVariables(name, [{ varname: 'x' } as any]),
        addLaunchPoints: () => service.addLaunchPoints(name, [{ launchpointname: 'LP' } as any]),
        addLaunchPointVariables: () => service.addLaunchPointVariables(name, 'LP', [{ varname: 'x' } as any]),
        execute: () => service.execute(name, { a: '1' }),
        executeScript: () => service.executeScript(name, 'POST', { a: 1 }),
        executeWithContext: () => (service as any).executeWithContext(name, { 'x-custom': '1' }, { a: 1 }),
        downloadScriptSource: () => service.downloadScriptSource(name),
        downloadAllScripts: () => service.downloadAllScripts('mxapiautoscript'),
        uploadScript: () => service.uploadScript(name, 'print(2)'),
        changeStatus: () => service.changeStatus(name, 'ACTIVE'),
        findByLanguage: () => service.findByLanguage('python'),
        findByStatus: () => service.findByStatus('ACTIVE'),
        uploadExecuteAndDeleteScriptHandler: () => service.uploadExecuteAndDeleteScriptHandler({ autoscript: name, source: 'print(3)' } as any)
    };
    for (const [method, call] of Object.entries(calls)) {
        await t.notProvided(`AutoscriptService.${method}`, call, autoscript);
    }

    await t.notProvided('ScriptHandlerService.executeScript', () => t.wilson.scriptHandlerService.executeScript('HELLO', { method: 'PUT', queryParams: { a: '1' }, body: { b: 2 } }), autoscript);
};

const logging = async (t: Context) => {

    const service = t.admin.getLoggingService();
    const calls: Record<string, [() => Promise<unknown>, string]> = {
        getAppenderList: [() => service.getAppenderList(), 'service/logging'],
        getLoggerList: [() => service.getLoggerList(), 'service/logging'],
        getRootLogFolder: [() => service.getRootLogFolder(), 'service/logging'],
        uploadLogsToS3: [() => (service as any).uploadLogsToS3(), 'service/logging'],
        streamLogsFromManage: [() => service.streamLogsFromManage(10), 'service/logging'],
        getLogLevel: [() => service.getLogLevel('maximo.sql'), 'service/logging'],
        setLogLevel: [() => service.setLogLevel('maximo.sql', 'DEBUG'), 'service/logging'],
        disableAllThreadLogs: [() => service.disableAllThreadLogs(), 'log/…'],
        enableAllThreadLogs: [() => service.enableAllThreadLogs(), 'log/…'],
        enableThreadLoggers: [() => service.enableThreadLoggers(['maximo.sql']), 'log/…']
    };
    for (const [method, [call, names]] of Object.entries(calls)) {
        await t.notProvided(`LoggingService.${method}`, call, names);
    }
};

const applications = async (t: Context) => {

    const apps = t.admin.appXml;
    const key = { optionname: 'READ' };
    const calls: Record<string, () => Promise<unknown>> = {
        getAppPresentation: () => apps.getAppPresentation('WOTRACK'),
        getAllAppPresentations: () => apps.getAllAppPresentations(),
        createApp: () => apps.createApp({ app: 'NEWAPP' } as any, 'app'),
        updateApp: () => apps.updateApp('WOTRACK', { description: 'x' } as any),
        deleteApp: () => apps.deleteApp('WOTRACK'),
        addPresentation: () => apps.addPresentation('WOTRACK', { presentation: '<x/>' }),
        updatePresentation: () => apps.updatePresentation('WOTRACK', { presentation: '<y/>' }, 'UPDATE'),
        removePresentation: () => apps.removePresentation('WOTRACK', { app: 'WOTRACK' }),
        addSigOption: () => apps.addSigOption('WOTRACK', key),
        updateSigOption: () => apps.updateSigOption('WOTRACK', key),
        removeSigOption: () => apps.removeSigOption('WOTRACK', key),
        addSigOptFlag: () => apps.addSigOptFlag('WOTRACK', key),
        updateSigOptFlag: () => apps.updateSigOptFlag('WOTRACK', key),
        removeSigOptFlag: () => apps.removeSigOptFlag('WOTRACK', key),
        addAppDocType: () => apps.addAppDocType('WOTRACK', { doctype: 'PDF' }),
        updateAppDocType: () => apps.updateAppDocType('WOTRACK', { doctype: 'PDF' }),
        removeAppDocType: () => apps.removeAppDocType('WOTRACK', { doctype: 'PDF' }),
        // An action, a workflow and a web method: the structure is refused before the action would be.
        approveApp: () => apps.approveApp('WOTRACK', { memo: 'x' }),
        startWorkflow: () => apps.startWorkflow('WOTRACK', 'APPWF'),
        runWebMethod: () => apps.runWebMethod('WOTRACK', 'publish', {})
    };
    for (const [method, call] of Object.entries(calls)) {
        await t.notProvided(`MaxAppService.${method}`, call, 'the application XML service (MXL_APPS)');
    }

    const xml = t.admin.getCustomService(AppXmlService, 'MXL_APPS');
    await t.notProvided('AppXmlService.downloadAppXml', () => xml.downloadAppXml('WOTRACK'), 'MXL_APPS');
    await t.notProvided('AppXmlService.downloadAllAppXmls', () => xml.downloadAllAppXmls(), 'MXL_APPS');
    await t.notProvided('AppXmlService.updateXml', () => xml.updateXml('WOTRACK', '<x/>', 'app'), 'MXL_APPS');

    await t.notProvided('ObjectStructService.createObjectStructure', () => t.admin.objectStructService.createObjectStructure({ intobjectname: 'MXNEW' } as any, 'intobjectname'), 'structures are YAML files under structures/');

    const conditions = t.admin.getConditionExpressionService();
    const conditionCalls: Record<string, [() => Promise<unknown>, string]> = {
        createCondition: [() => conditions.createCondition({ conditionnum: 'C1', expression: '1=1' } as any), 'MXL_CONDITION'],
        downloadCondition: [() => conditions.downloadCondition('C1'), 'MXL_CONDITION'],
        downloadAllConditions: [() => conditions.downloadAllConditions(), 'MXL_CONDITION'],
        updateCondition: [() => conditions.updateCondition('C1', '1=2', 'conditionnum'), 'MXL_CONDITION'],
        refreshMaxConditionCache: [() => conditions.refreshMaxConditionCache(), 'the cache service (refresh/{cache})']
    };
    for (const [method, [call, names]] of Object.entries(conditionCalls)) {
        await t.notProvided(`ConditionExpressionService.${method}`, call, names);
    }

    // The singletons take the HTTP client of the client built last: MAXADMIN's.
    t.client('maxadmin');
    await t.notProvided('CacheService.refreshCache', () => CacheService.refreshCache('MaxConditionCache' as any), 'refresh/{cache}');
    await t.notProvided('CacheService.refreshMaxConditionCache', () => CacheService.refreshMaxConditionCache(), 'refresh/{cache}');
    // initialize hands the singleton the HTTP client it calls with (every MaximoClient does so when built).
    CacheService.initialize(t.wilson.getHttpClient());
    t.clientSide('CacheService.initialize');
};

const permissions = async (t: Context) => {

    t.client('wilson');
    const why: Record<string, [() => Promise<unknown>, string]> = {
        getAllGlAuth: [() => PermissionService.getAllGlAuth(), 'no general ledger accounts'],
        getAnyGlAuth: [() => PermissionService.getAnyGlAuth(), 'no general ledger accounts'],
        getOrgs: [() => PermissionService.getOrgs(), 'permission/orgs'],
        getOrgDetails: [() => PermissionService.getOrgDetails(), 'permission/orgdetails'],
        getSites: [() => PermissionService.getSites(), 'permission/sites'],
        getSiteDetails: [() => PermissionService.getSiteDetails(), 'permission/sitedetails'],
        getCollections: [() => PermissionService.getCollections(), 'no asset collections']
    };
    for (const [method, [call, names]] of Object.entries(why)) {
        await t.notProvided(`PermissionService.${method}`, call, names);
    }
};

const tools = async (t: Context) => {

    const { apikey } = await t.admin.getApiKeyService().getCurrentUserApiKey();
    const client = new MaximoToolsClientBuilder().baseUrl(`127.0.0.1:${t.port}`).ssl(false).apiKey(apikey).logger(quiet).build();
    const calls: Record<string, () => Promise<unknown>> = {
        'BuildStatusCheckerService.getBuildStatus': () => client.buildStatusChecker.getBuildStatus(),
        'CustomizationManagerService.updateCustomizationArchive': () => client.customizationManager.updateCustomizationArchive({ url: 'https://x' } as any),
        'CustomizationManagerService.updateCustomizationArchiveS3': () => client.customizationManager.updateCustomizationArchiveS3({ bucket: 'b' } as any),
        'CustomizationManagerService.createArchiveSecret': () => client.customizationManager.createArchiveSecret({ name: 's' } as any),
        'CustomizationManagerService.createS3SecretKeySecret': () => client.customizationManager.createS3SecretKeySecret({ name: 's' } as any),
        'DatabaseService.validateDatabaseForMigration': () => client.databaseService.validateDatabaseForMigration(),
        'DatabaseService.configureDb': () => client.databaseService.configureDb(),
        'DatabaseService.resetCryptoCryptox': () => client.databaseService.resetCryptoCryptox(),
        'ErdGeneratorService.generateErd': () => client.erdGenerator.generateErd(),
        'ErdGeneratorService.downloadErd': () => client.erdGenerator.downloadErd(),
        'IntegrityCheckerService.generateIntegrityCheckerLog': () => client.integrityChecker.generateIntegrityCheckerLog(),
        'IntegrityCheckerService.runIntegrityCheckerRepair': () => client.integrityChecker.runIntegrityCheckerRepair(),
        'PodManagerService.stopPods': () => client.podManager.stopPods(),
        'PodManagerService.startPods': () => client.podManager.startPods(),
        'ScriptRunnerService.runDbcScript': () => client.scriptRunner.runDbcScript('V8000_01.dbc'),
        'ToolsLogService.getAllToolsLogs': () => client.logManager.getAllToolsLogs(),
        'ToolsLogService.getToolsLog': () => client.logManager.getToolsLog('dbc.log'),
        'TrustStoreImporterService.installExternalCertificateByContent': () => client.trustStoreImporter.installExternalCertificateByContent('-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----', 'alias'),
        'TrustStoreImporterService.installExternalCertificateByHost': () => client.trustStoreImporter.installExternalCertificateByHost('example.com', 443, 'alias', 'example.com')
    };
    for (const [method, call] of Object.entries(calls)) {
        // Axios hands an arraybuffer answer (downloadErd) back as bytes: decoded, it is the same JSON error.
        await t.notProvided(method, async () => {

            try {
                return await call();
            }
            catch (error: any) {
                if (error.response?.data instanceof ArrayBuffer || Buffer.isBuffer(error.response?.data)) {
                    error.response.data = JSON.parse(Buffer.from(error.response.data).toString('utf8'));
                }

                throw error;
            }
        }, 'the Maximo tools API (toolsapi/toolservice)');
    }

    // The tools client itself: what it is configured with, and its logger.
    expect(client.getConfig().apiKey).to.equal(apikey);
    expect((client.getHttpClient() as any).baseUrl).to.equal(`http://127.0.0.1:${t.port}`);
    expect(client.getLogger()).to.shallow.equal(quiet);
    client.setLogLevel('error' as any);
    expect(client.setServiceLogger(client.podManager as any, quiet)).to.shallow.equal(client.podManager);
    t.clientSide('MaximoToolsClient.getConfig', 'MaximoToolsClient.getHttpClient', 'MaximoToolsClient.getLogger', 'MaximoToolsClient.setLogLevel', 'MaximoToolsClient.setServiceLogger');
};

export const unservedProbes: Probe[] = [
    {
        title: 'automation scripts and the script handler: 501 naming the automation script service', run: async (t) => {

            const before = await t.get('/os/mxapiwodetail?count=1');
            await scripts(t);
            expect((await t.get('/os/mxapiwodetail?count=1')).body).to.equal(before.body);
        }
    },
    { title: 'the logging service: 501 naming each', run: logging },
    { title: 'application XML, object structures, condition expressions and caches: 501 naming each', run: applications },
    { title: 'site, organization, general ledger and collection permissions: 501 naming each', run: permissions },
    { title: 'every service of the tools API: 501 naming it, with an API key', run: tools }
];
