import * as Code from '@hapi/code';

import { expectError, idOf, type Context, type Probe } from './ledger';


const { expect } = Code;

// The generic record methods (ResourceService) and the builders they send, on work orders as WILSON (a planner:
// reads everything, writes work orders). Every write is read back, and the work orders of the other site, which
// none of them names, must come out unchanged.

const nashua = '/os/mxapiwodetail?oslc.where=siteid=%22NASHUA%22&oslc.select=wonum,description,status,worktype&oslc.pageSize=1000';
const where = (text: string) => encodeURIComponent(text);

// A builder step whose parameter another branch of the project is bringing: refused by name until it is carried
// out, and checked for what it does once it is.
// A wire option the server carries out: the answer shows it.
const carriedOut = async (t: Context, method: string, call: () => Promise<any>, check: (answer: any) => void) => {

    check(await call());
    t.record(method, 'works');
};

const reading = async (t: Context) => {

    const wo = t.wilson.getService('mxapiwodetail');
    const rows = async (build: (query: any) => unknown) => {

        const query = wo.query().select(['wonum', 'worktype', 'status', 'description', 'actstart', 'reportdate']).pageSize(1000);
        build(query);
        return await wo.findAll(query) as any[];
    };

    const count = async (text: string) => (await t.get(`/os/mxapiwodetail?oslc.where=${where(text)}&count=1`)).body.totalCount as number;

    const firstFive = await wo.findAll(wo.query().where('siteid="BEDFORD"').where('status="APPR"').select(['wonum', 'status']).orderBy('-wonum').pageSize(5)) as any[];
    const raw = (await t.get(`/os/mxapiwodetail?oslc.where=${where('siteid="BEDFORD" and status="APPR"')}&oslc.select=wonum&oslc.orderBy=-wonum&oslc.pageSize=5`)).body;
    expect(firstFive.map((row) => row.wonum)).to.equal(raw.member.map((row: any) => row.wonum));
    expect(firstFive).to.have.length(5);

    const either = await rows((q) => q.where('worktype="EM"').orWhere('status="CAN"'));
    expect(either.length).to.equal(await count('worktype="EM" or status="CAN"'));
    expect(either.every((row) => row.worktype === 'EM' || row.status === 'CAN')).to.be.true();
    const anyOf = await rows((q) => q.whereOr(['worktype="PM"', 'status="CLOSE"']));
    expect(anyOf.length).to.equal(await count('worktype="PM" or status="CLOSE"'));
    const within = await rows((q) => q.whereIn('worktype', ['EM', 'CP']));
    expect(within.length > 0 && within.every((row) => ['EM', 'CP'].includes(row.worktype))).to.be.true();
    const outside = await rows((q) => q.whereNotIn('status', ['CLOSE', 'CAN']));
    expect(outside.length).to.equal(await count('status!="[CLOSE,CAN]"'));
    expect(outside.some((row) => ['CLOSE', 'CAN'].includes(row.status))).to.be.false();
    const like = await rows((q) => q.whereLike('description', 'seal'));
    expect(like.length > 0 && like.every((row) => /seal/i.test(row.description))).to.be.true();
    const starts = await rows((q) => q.whereLike('description', 'leak', 'startsWith'));
    expect(starts.length > 0 && starts.every((row) => /^leak/i.test(row.description))).to.be.true();
    const ends = await rows((q) => q.whereLike('description', 'Press #209', 'endsWith'));
    expect(ends.length > 0 && ends.every((row) => /Press #209$/.test(row.description))).to.be.true();
    const unstarted = await rows((q) => q.whereNull('actstart'));
    const started = await rows((q) => q.whereNotNull('actstart'));
    expect(unstarted.length > 0 && unstarted.every((row) => row.actstart === undefined)).to.be.true();
    expect(started.length > 0 && started.every((row) => row.actstart !== undefined)).to.be.true();
    expect(unstarted.length + started.length).to.equal(await wo.count());
    const year = await rows((q) => q.whereTimelineRange('reportdate', '-1Y', '2026-01-05'));
    expect(year.length).to.equal((await t.get('/os/mxapiwodetail?tlattribute=reportdate%3D2026-01-05&tlrange=-1Y&count=1')).body.totalCount);
    expect(year.length > 0 && year.every((row) => row.reportdate >= '2025-01-05' && row.reportdate <= '2026-01-05T00:00:00+00:00')).to.be.true();
    t.works(...['where', 'orWhere', 'whereOr', 'whereIn', 'whereNotIn', 'whereLike', 'whereNull', 'whereNotNull', 'whereTimelineRange', 'select', 'orderBy', 'pageSize'].map((name) => `QueryBuilder.${name}`));
    t.works('ResourceService.findAll', 'ResourceService.count');

    // Pages and counts.
    const total = await wo.count(wo.query().where('siteid="NASHUA"'));
    const page = await wo.executeQuery(wo.query().where('siteid="NASHUA"').select('wonum').orderBy('wonum').page(2, 40).withCount());
    expect([page.pageNum, page.items.length, page.totalCount, page.totalPages]).to.equal([2, 40, total, Math.ceil(total / 40)]);
    const paginated = await wo.findPaginated('siteid="NASHUA"', 2, 40, ['wonum'], 'wonum');
    expect(paginated.items).to.equal(page.items);
    const paged = await wo.findAll(wo.query().where('siteid="NASHUA"').select('wonum').orderBy('wonum').withPaging().pageSize(3)) as any[];
    expect(paged).to.have.length(3);
    expect(paged).to.equal(await wo.findAll(wo.query().where('siteid="NASHUA"').select('wonum').orderBy('wonum').pageSize(3)));
    const stable = await wo.executeQuery(wo.query().select('wonum').orderBy('wonum').pageSize(50).withStablePaging());
    expect(stable.items).to.have.length(50);
    expect(stable.hasNextPage).to.be.true();
    t.works('QueryBuilder.page', 'QueryBuilder.withCount', 'QueryBuilder.withPaging', 'QueryBuilder.withStablePaging', 'ResourceService.executeQuery', 'ResourceService.findPaginated');

    // Saved queries, distinct values, the or modes, search terms, group-by.
    const open = await wo.findBySavedQuery(wo.query().savedQuery('OPENWO').select(['status']).pageSize(1000));
    expect(open.items.length).to.equal(await count('status in ["WAPPR","APPR","WSCH","WMATL","INPRG"]'));
    const emergencies = await wo.findBySavedQuery('EMERGENCYWO', ['worktype']);
    expect(emergencies.items.length > 0 && emergencies.items.every((row: any) => row.worktype === 'EM')).to.be.true();
    expect(await wo.findDistinct(wo.query().distinct('worktype'))).to.equal((await t.get('/os/mxapiwodetail?distinct=worktype')).body);
    expect(await wo.findDistinct('status', 'siteid="NASHUA"')).to.equal((await t.get(`/os/mxapiwodetail?distinct=status&oslc.where=${where('siteid="NASHUA"')}`)).body);
    const orMode = await rows((q) => q.where('worktype="EM" and status="CAN"').opMode('or'));
    const orLogic = await rows((q) => q.where('worktype="EM" and status="CAN"').useOrLogic());
    expect(orMode.length).to.equal(await count('worktype="EM" or status="CAN"'));
    expect(orLogic).to.equal(orMode);
    const pumps = await rows((q) => q.withSearchTerms('pump'));
    expect(pumps.length > 0 && pumps.every((row) => /pump/i.test(row.description) || /pump/i.test(row.wonum))).to.be.true();
    const groups = await wo.findAll(wo.query().groupBy(['status', 'count.*']).groupBySort('-count')) as any[];
    expect(groups).to.equal((await t.get('/os/mxapiwodetail?gbcols=status,count.*&gbsortby=-count')).body);
    expect(groups.reduce((sum, group) => sum + group.count, 0)).to.equal(await wo.count());
    const ranged = await wo.findAll(wo.query().groupBy(['wopriority', 'count.*']).groupByRange('wopriority={[1..3],[4..7)}')) as any[];
    expect(ranged.map((group) => group.wopriority)).to.include([[1, 3], [4, 7]]);
    t.works('QueryBuilder.savedQuery', 'QueryBuilder.distinct', 'QueryBuilder.opMode', 'QueryBuilder.useOrLogic', 'QueryBuilder.withSearchTerms', 'QueryBuilder.groupBy', 'QueryBuilder.groupBySort', 'QueryBuilder.groupByRange');
    t.works('ResourceService.findBySavedQuery', 'ResourceService.findDistinct');

    // What the answer carries: nulls, child links, relative hrefs; any parameter by name.
    const withNulls = await rows((q) => q.where('wonum="1001"').dropNulls(false));
    expect(withNulls[0]).to.include({ wonum: '1001' });
    expect(Object.keys(withNulls[0]).length > Object.keys((await rows((q) => q.where('wonum="1001"').dropNulls(true)))[0]).length).to.be.true();
    const noRefs = await wo.findAll(wo.query().where('wonum="1000"').select('*').ignoreCollectionRef()) as any[];
    const refs = await wo.findAll(wo.query().where('wonum="1000"').select('*')) as any[];
    expect(refs[0].woactivity_collectionref).to.exist();
    expect(noRefs[0].woactivity_collectionref).to.not.exist();
    const relative = await wo.findAll(wo.query().where('wonum="1000"').select('wonum').relativeUri()) as any[];
    expect(String(relative[0].href)).to.startWith('/maximo/oslc/os/mxapiwodetail/');
    const byName = await wo.findAll(wo.query().param('oslc.where', 'wonum="1002"').params({ 'oslc.select': 'wonum,siteid' })) as any[];
    expect(byName.map((row) => [row.wonum, row.siteid])).to.equal([['1002', 'BEDFORD']]);
    t.works('QueryBuilder.dropNulls', 'QueryBuilder.ignoreCollectionRef', 'QueryBuilder.relativeUri', 'QueryBuilder.param', 'QueryBuilder.params');

    const query = wo.query().where('wonum="1000"').page(1, 10);
    const copy = query.clone().withCount();
    expect(query.hasPageSettings()).to.be.true();
    expect(wo.query().hasPageSettings()).to.be.false();
    expect(copy.hasCountRequested()).to.be.false();         // the client looks for count, and withCount sets collectioncount
    expect(Object.fromEntries(copy.buildQuery().params)).to.equal({ where: 'wonum="1000"', pageno: '1', pageSize: '10', collectioncount: '1' });
    expect(Object.fromEntries(query.buildQuery().params)).to.equal({ where: 'wonum="1000"', pageno: '1', pageSize: '10' });
    t.clientSide('QueryBuilder.clone', 'QueryBuilder.hasPageSettings', 'QueryBuilder.hasCountRequested', 'QueryBuilder.buildQuery', 'ResourceService.query');

    // What Osprey does not carry out is refused by name, and what other branches bring is checked either way.
    await carriedOut(t, 'QueryBuilder.inlineDoc', () => wo.findAll(wo.query().where('wonum="1000"').select(['wonum', 'doclinks{*}']).inlineDoc()), (answer) => expect(answer[0].doclinks).to.be.an.array());
    await t.refused('QueryBuilder.ignoreKeyRef', 400, () => wo.findAll(wo.query().ignoreKeyRef()), 'ignorekeyref');
    await t.refused('QueryBuilder.geometryFormat', 400, () => wo.findAll(wo.query().geometryFormat()), 'geometryformat');
    await t.refused('QueryBuilder.checkEsig', 400, () => wo.findAll(wo.query().checkEsig()), 'checkesig');
    const one = () => wo.query().where('wonum="1000"').select(['wonum', 'status']);
    await carriedOut(t, 'QueryBuilder.ignoreRowstamp', () => wo.findAll(one().ignoreRowstamp()), (answer) => expect(answer[0]._rowstamp).to.not.exist());
    await carriedOut(t, 'QueryBuilder.internalValues', () => wo.findAll(one().internalValues()), (answer) => expect(answer[0].status_maxvalue).to.equal('INPRG'));
    await carriedOut(t, 'QueryBuilder.addSchema', () => wo.executeQuery(one().addSchema()), (answer) => expect(answer.items[0].wonum).to.equal('1000'));
    // The paginated result keeps only the members, so the schema is read from the same request sent as
    // executeQuery sends it (its short names mapped to oslc.*).
    const oslc: Record<string, string> = { where: 'oslc.where', select: 'oslc.select', pageSize: 'oslc.pageSize' };
    const sent = Object.fromEntries([...one().addSchema().buildQuery().params].map(([key, value]) => [oslc[key] ?? key, value]));
    const withSchema = (await t.wilson.getHttpClient().get('/maximo/oslc/os/mxapiwodetail', sent)).data as any;
    expect(withSchema.responseInfo.schema.properties.wonum.type).to.equal('string');
    expect(withSchema.responseInfo.schema.properties.status_description).to.exist();

    // One record.
    const record = await wo.getById('_QkVERk9SRC8xMDAw', ['wonum', 'status']) as any;
    expect(record).to.include({ wonum: '1000', status: 'INPRG' });
    expect(await wo.findById('_QkVERk9SRC8xMDAw', 'wonum,status')).to.equal(record);
    const actions = await wo.getAllowedActions('_QkVERk9SRC8xMDAw') as any;
    expect(actions.allowedactions.changeStatus.type).to.equal('wsmethod');
    t.works('ResourceService.getById', 'ResourceService.findById', 'ResourceService.getAllowedActions');

    const reports = await wo.listReports();
    expect(reports.map((report: any) => report.reportname)).to.equal(['woprint.rptdesign', 'woassets.rptdesign', 'woplan.rptdesign']);
    const csv = Buffer.from(await wo.generateReport('woprint.rptdesign', 'csv', { 'oslc.where': 'wonum="1000"' })).toString('utf8');
    expect(csv.split('\r\n')[1]).to.startWith('1000,BEDFORD,');
    const listed = await wo.globalAction('listreports');
    expect(listed.data.map((report: any) => report.reportname)).to.equal(reports.map((report: any) => report.reportname));
    t.works('ResourceService.listReports', 'ResourceService.generateReport', 'ResourceService.globalAction');
};

const fetching = async (t: Context) => {

    const wo = t.wilson.getService('mxapiwodetail');
    const fetch = () => wo.fetchById('_TkFTSFVBLzEwMDE-');         // NASHUA/1001
    const fetched = await fetch().properties(['wonum', 'schedstart', 'woactivity']).dropNulls(false).ignoreCollectionRef(true).relativeUri().param('lean', '1').params({ _: '1' }).execute() as any;
    expect(fetched.wonum).to.equal('1001');
    expect(String(fetched.href)).to.startWith('/maximo/oslc/os/mxapiwodetail/');
    expect('schedstart' in fetched).to.be.true();
    expect(fetched.woactivity_collectionref).to.not.exist();
    expect(await wo.executeResourceFetch(fetch().properties('wonum'))).to.include({ wonum: '1001' });
    expect(fetch().getId()).to.equal('_TkFTSFVBLzEwMDE-');
    expect(fetch().properties('wonum').dropNulls(false).buildParams()).to.equal({ 'oslc.properties': 'wonum', _dropnulls: '0' });
    t.works(...['properties', 'dropNulls', 'ignoreCollectionRef', 'relativeUri', 'param', 'params', 'execute'].map((name) => `ResourceFetch.${name}`), 'ResourceService.executeResourceFetch');
    t.clientSide('ResourceFetch.getId', 'ResourceFetch.buildParams', 'ResourceService.fetchById');

    await carriedOut(t, 'ResourceFetch.inlineDoc', () => fetch().inlineDoc(true).execute(), (answer) => expect(answer.doclinks).to.be.an.array());
    // An action on the fetched record, by a GET without a payload: system:candelete asks and changes nothing.
    await carriedOut(t, 'ResourceFetch.action', () => fetch().action('system:candelete').execute(), (answer) => expect(typeof answer.candelete).to.equal('boolean'));
    await t.refused('ResourceFetch.ignoreKeyRef', 400, () => fetch().ignoreKeyRef().execute(), 'ignorekeyref');
    await t.refused('ResourceFetch.geometryFormat', 400, () => fetch().geometryFormat().execute(), 'geometryformat');
    await t.refused('ResourceFetch.checkEsig', 400, () => fetch().checkEsig().execute(), 'checkesig');
    await carriedOut(t, 'ResourceFetch.ignoreRowstamp', () => fetch().properties('wonum').ignoreRowstamp().execute(), (answer) => expect(answer._rowstamp).to.not.exist());
    await carriedOut(t, 'ResourceFetch.internalValues', () => fetch().properties('status').internalValues().execute(), (answer) => expect(answer.status_maxvalue).to.exist());
    await t.refused('ResourceFetch.addSchema', 400, () => fetch().properties('wonum').addSchema().execute(), 'addschema');
};

const writing = async (t: Context) => {

    const before = (await t.get(nashua)).body.member;
    const wo = t.wilson.getService('mxapiwodetail');
    const read = async (id: string, select = 'wonum,description,status,worktype,wopriority,woactivity{taskid,description}') => (await t.get(`/os/mxapiwodetail/${id}?oslc.select=${select}`)).body;

    const created = await wo.createRecord({ siteid: 'BEDFORD', description: 'Generic create', worktype: 'CM' } as any, ['wonum', 'description'], true) as any;
    expect(created.description).to.equal('Generic create');
    const id = idOf(created.href);
    expect((await read(id)).worktype).to.equal('CM');
    const plain = await wo.create({ siteid: 'BEDFORD', description: 'Plain create' } as any, { lean: '1' }, { properties: 'wonum,status' }) as any;
    expect(plain.status).to.equal('WAPPR');
    const plainId = idOf(plain.href);

    const updated = await wo.updateRecord(id, { description: 'Generic update', woactivity: [{ taskid: 10, description: 'One' }, { taskid: 20, description: 'Two' }] } as any, ['description']);
    expect([updated.status, (updated.data as any).description]).to.equal([200, 'Generic update']);
    const replaced = await wo.update(id, { woactivity: [{ taskid: 20 }] } as any);
    expect(replaced.status).to.equal(204);
    expect((await read(id)).woactivity.map((task: any) => task.taskid)).to.equal([20]);
    const merged = await wo.mergeRecord(id, { woactivity: [{ taskid: 30, description: 'Three' }] } as any, 'wonum');
    expect(merged.status).to.equal(200);
    await wo.merge(id, { woactivity: [{ taskid: 40 }] } as any);
    expect((await read(id)).woactivity.map((task: any) => task.taskid)).to.equal([20, 30, 40]);
    const synced = await wo.sync({ siteid: 'BEDFORD', wonum: created.wonum, description: 'Generic sync' } as any);
    expect(synced.success).to.be.true();
    expect((await read(id)).description).to.equal('Generic sync');
    t.works(...['createRecord', 'create', 'updateRecord', 'update', 'mergeRecord', 'merge', 'sync'].map((name) => `ResourceService.${name}`));

    // The update builder: a payload, merged or not, with children added, changed and removed.
    const payload = wo.updateBuilder().set('description' as any, 'Built').unset('wopriority').addChild('woactivity', { taskid: 50 }).updateChild('woactivity', { taskid: 20, description: 'Twenty' }).removeChild('woactivity', { taskid: 30 }).patchType('MERGE').build();
    expect(payload.patchType).to.equal('MERGE');
    await wo.update(id, payload as any);
    const built = await read(id, 'description,wopriority,woactivity{taskid,description}');
    expect(built.description).to.equal('Built');
    expect(built.wopriority).to.not.exist();
    expect(built.woactivity.map((task: any) => [task.taskid, task.description])).to.equal([[20, 'Twenty'], [40, undefined], [50, undefined]]);
    const replacing = wo.createBuilder().addChild('woactivity', { taskid: 20 }).patchType('UPDATE').build();
    await wo.update(id, replacing as any);
    expect((await read(id)).woactivity.map((task: any) => task.taskid)).to.equal([20]);
    t.works(...['set', 'unset', 'addChild', 'updateChild', 'removeChild', 'patchType', 'build'].map((name) => `UpdateBuilder.${name}`));
    t.clientSide('ResourceService.updateBuilder', 'ResourceService.createBuilder');

    // Create, update and delete builders.
    const publicUri = 'https://eam.example.com/maximo/oslc';
    const create = () => wo.createResource({ siteid: 'BEDFORD', description: 'Built create' } as any);
    const made = await create().returnProperties(['wonum', 'description']).withTransactionId(`create-${Date.now()}`).suppressEvents().withPublicUri(publicUri).ignoreCollectionRef().header('batcherror', '1').param('_dropnulls', '1').execute() as any;
    expect(String(made.href)).to.startWith(`${publicUri}/os/mxapiwodetail/`);
    const madeId = idOf(made.href);
    expect((await read(madeId)).description).to.equal('Built create');
    const twice = `create-twice-${Date.now()}`;
    await wo.executeResourceCreate(create().withTransactionId(twice).allowEvents().relativeUri().returnProperties('wonum'));
    const again = await expectError(() => create().withTransactionId(twice).execute());
    expect(again.status).to.equal(409);
    expect(create().getData()).to.equal({ siteid: 'BEDFORD', description: 'Built create' });
    expect(create().returnProperties('wonum').suppressEvents().buildHeaders()).to.equal({ properties: 'wonum', 'x-allow-events': '0' });
    expect(create().relativeUri().buildParams()).to.equal({ relativeuri: '1' });
    t.works(...['returnProperties', 'withTransactionId', 'suppressEvents', 'allowEvents', 'withPublicUri', 'ignoreCollectionRef', 'relativeUri', 'header', 'param', 'execute'].map((name) => `ResourceCreate.${name}`), 'ResourceService.executeResourceCreate');
    t.clientSide('ResourceCreate.getData', 'ResourceCreate.buildHeaders', 'ResourceCreate.buildParams', 'ResourceService.createResource');

    const update = (data: any = { description: 'Built update' }) => wo.updateResource(madeId, data);
    const changed = await update().returnProperties('description').withTransactionId(`update-${Date.now()}`).suppressEvents().withPublicUri(publicUri).ignoreCollectionRef().relativeUri().header('batcherror', '1').param('_dropnulls', '1').useUpdatePatch().execute();
    expect((changed.data as any).description).to.equal('Built update');
    expect(String((changed.data as any).href)).to.startWith('/maximo/oslc/');
    await wo.executeResourceUpdate(update({ woactivity: [{ taskid: 10 }] }).allowEvents());
    await update({ woactivity: [{ taskid: 20 }] }).useMergePatch().execute();
    expect((await read(madeId)).woactivity.map((task: any) => task.taskid)).to.equal([10, 20]);
    expect(update().getId()).to.equal(madeId);
    expect(update().getData()).to.equal({ description: 'Built update' });
    expect(update().useMergePatch().buildHeaders()).to.equal({ 'x-method-override': 'PATCH', patchtype: 'MERGE' });
    expect(update().ignoreCollectionRef().buildParams()).to.equal({ ignorecollectionref: '1' });
    t.works(...['useMergePatch', 'useUpdatePatch', 'returnProperties', 'withTransactionId', 'suppressEvents', 'allowEvents', 'withPublicUri', 'ignoreCollectionRef', 'relativeUri', 'header', 'param', 'execute'].map((name) => `ResourceUpdate.${name}`), 'ResourceService.executeResourceUpdate');
    t.clientSide('ResourceUpdate.getId', 'ResourceUpdate.getData', 'ResourceUpdate.buildHeaders', 'ResourceUpdate.buildParams', 'ResourceService.updateResource');

    // A create's POST with ?action= is a collection action whose payload is the body: a record action is refused.
    await t.refused('ResourceCreate.action', 400, () => create().action('wsmethod:changeStatus').execute(), 'acts on one MXAPIWODETAIL record');
    await t.refused('ResourceCreate.ignoreKeyRef', 400, () => create().ignoreKeyRef().execute(), 'ignorekeyref');
    await t.refused('ResourceUpdate.ignoreKeyRef', 400, () => update().ignoreKeyRef().execute(), 'ignorekeyref');
    await carriedOut(t, 'ResourceCreate.ignoreRowstamp', () => create().returnProperties('wonum').ignoreRowstamp().execute(), (answer) => expect(answer._rowstamp).to.not.exist());
    await carriedOut(t, 'ResourceCreate.internalValues', () => create().returnProperties('status').internalValues().execute(), (answer) => expect(answer.status_maxvalue).to.equal('WAPPR'));
    await carriedOut(t, 'ResourceUpdate.ignoreRowstamp', () => update().returnProperties('wonum').ignoreRowstamp().execute(), (answer) => expect(answer.data._rowstamp).to.not.exist());
    await carriedOut(t, 'ResourceUpdate.internalValues', () => update().returnProperties('status').internalValues().execute(), (answer) => expect(answer.data.status_maxvalue).to.equal('WAPPR'));
    const acted = await update({ status: 'APPR', memo: 'by the update builder' }).action('wsmethod:changeStatus').returnProperties('status').execute();
    expect([acted.status, (acted.data as any).status]).to.equal([200, 'APPR']);
    t.works('ResourceUpdate.action');

    // Deletes: by id, by the record itself, and by the delete builder.
    const remove = () => wo.deleteById(plainId);
    expect(remove().getId()).to.equal(plainId);
    expect(remove().withTransactionId('d1').suppressEvents().buildHeaders()).to.equal({ transactionid: 'd1', 'x-allow-events': '0' });
    await remove().withTransactionId(`delete-${Date.now()}`).suppressEvents().allowEvents().withPublicUri(publicUri).header('x-request-id', 'delete-probe').execute();
    expect((await t.get(`/os/mxapiwodetail/${plainId}`)).status).to.equal(404);
    await wo.executeResourceDelete(wo.deleteById(madeId));
    expect((await t.get(`/os/mxapiwodetail/${madeId}`)).status).to.equal(404);
    await wo.delete({ href: `${t.home}/os/mxapiwodetail/${id}` } as any);
    expect((await t.get(`/os/mxapiwodetail/${id}`)).status).to.equal(404);
    t.works(...['withTransactionId', 'suppressEvents', 'allowEvents', 'withPublicUri', 'header', 'execute'].map((name) => `ResourceDelete.${name}`), 'ResourceService.executeResourceDelete', 'ResourceService.delete');
    t.clientSide('ResourceDelete.getId', 'ResourceDelete.buildHeaders', 'ResourceService.deleteById');

    // Actions: a GET without a payload, a POST with x-method-override: PATCH with one; properties as a query parameter.
    const fresh = idOf((await wo.createRecord({ siteid: 'BEDFORD', description: 'Action probe' } as any, ['wonum'], true) as any).href);
    const changedStatus = await wo.action(fresh, 'wsmethod:changeStatus', { status: 'APPR', memo: 'by action' }, ['status']);
    expect([changedStatus.status, (changedStatus.data as any).status]).to.equal([200, 'APPR']);
    expect((await wo.webMethod(fresh, 'changeStatus', { status: 'INPRG' })).status).to.equal(204);
    expect(((await wo.action(fresh, 'system:candelete')).data as any).candelete).to.be.true();
    t.works('ResourceService.action', 'ResourceService.webMethod');
    // The demo's workflow, on a work order waiting for approval: it waits at the supervisors' task.
    const sent = idOf((await wo.createRecord({ siteid: 'BEDFORD', description: 'Workflow probe' } as any, ['wonum'], true) as any).href);
    const started = await wo.workflow(sent, 'WOAPPROVE', {});
    expect([started.status, (started.data as any).node, (started.data as any).active]).to.equal([200, 'review', true]);
    t.works('ResourceService.workflow');
    expect((await read(fresh, 'status,wostatus{status,memo}')).wostatus.map((row: any) => [row.status, row.memo])).to.equal([['WAPPR', undefined], ['APPR', 'by action'], ['INPRG', undefined]]);

    // Where the service's requests go, and what it holds.
    const other = t.wilson.getService('mxapiwodetail');
    other.setApiHome('/maximo/api/os');
    expect((await other.getById('_QkVERk9SRC8xMDAw', 'wonum') as any).href).to.equal(`http://127.0.0.1:${t.port}/maximo/api/os/mxapiwodetail/_QkVERk9SRC8xMDAw`);
    t.works('ResourceService.setApiHome');
    expect(wo.getObjectStructure()).to.equal('mxapiwodetail');
    expect(wo.getUniqueColumnName()).to.be.undefined();
    expect(t.wilson.autoScript.getUniqueColumnName()).to.equal('autoscriptid');
    expect(t.wilson.autoScript.getUniqueColumnId({ autoscriptid: 7 } as any)).to.equal(7);
    expect(wo.getUniqueColumnId({ workorderid: 7 } as any)).to.be.undefined();
    expect(wo.getWebUrl(7, 'WOTRACK')).to.equal(`http://127.0.0.1:${t.port}/maximo/ui/?event=loadapp&value=WOTRACK&uniqueid=7&forcereload=true`);
    t.clientSide('ResourceService.getObjectStructure', 'ResourceService.getUniqueColumnName', 'ResourceService.getUniqueColumnId', 'ResourceService.getWebUrl');

    expect((await t.get(nashua)).body.member).to.equal(before);
};

const bulk = async (t: Context) => {

    const before = (await t.get(nashua)).body.member;
    const wo = t.wilson.getService('mxapiwodetail');
    const read = async (id: string) => (await t.get(`/os/mxapiwodetail/${id}?oslc.select=wonum,description,worktype`)).body;

    const added = await wo.executeBulkOperation([{ siteid: 'BEDFORD', description: 'Bulk 1' }, { siteid: 'BEDFORD', description: 'Bulk 2', _action: 'Add' }] as any);
    expect(added.responses.map((item) => item.status)).to.equal([201, 201]);
    const [one, two] = added.responses.map((item) => idOf(item.location!)) as [string, string];
    const wonum = (await read(one)).wonum;

    const builder = wo.bulkOperation()
        .update(one, { description: 'Bulk 1 updated' } as any)
        .merge(two, { worktype: 'PM' } as any)
        .create({ siteid: 'BEDFORD', description: 'Bulk 3' } as any)
        .addChange({ siteid: 'BEDFORD', wonum, description: 'Bulk 1 synced' } as any)
        .addUpdate({ siteid: 'BEDFORD', wonum: 'BULK-NEW', description: 'Bulk 4' } as any)
        .addOperations([{ siteid: 'BEDFORD', description: 'Bulk 5' }] as any, 'Add');
    expect(builder.getObjectStructure()).to.equal('mxapiwodetail');
    expect(builder.getOperations().map((op) => op.action)).to.equal(['Update', 'Merge', 'Add', 'AddChange', 'AddChange', 'Add']);
    expect(builder.buildPayload()[1]).to.include({ worktype: 'PM', _action: 'Merge' });
    const mixed = await wo.executeBulkOperation(builder);
    expect(mixed.responses.map((item) => item.status)).to.equal([204, 204, 201, 204, 201, 201]);
    expect(await read(one)).to.include({ description: 'Bulk 1 synced' });
    expect(await read(two)).to.include({ description: 'Bulk 2', worktype: 'PM' });
    expect((await t.get(`/os/mxapiwodetail?oslc.where=${where('wonum="BULK-NEW"')}&oslc.select=description`)).body.member[0].description).to.equal('Bulk 4');

    const removed = await wo.executeBulkOperation(wo.bulkOperation().delete(two));
    expect(removed.success).to.be.true();
    expect((await t.get(`/os/mxapiwodetail/${two}`)).status).to.equal(404);
    t.works(...['update', 'merge', 'create', 'addChange', 'addUpdate', 'addOperations', 'delete'].map((name) => `BulkOperationBuilder.${name}`), 'ResourceService.executeBulkOperation');

    // All or nothing: a bad item writes nothing, and the answer says which item failed.
    const count = async () => (await t.get(`/os/mxapiwodetail?oslc.where=${where('description="Bulk atomic"')}&count=1`)).body.totalCount;
    const atomic = wo.bulkOperation().create({ siteid: 'BEDFORD', description: 'Bulk atomic' } as any).create({ siteid: 'BEDFORD', worktype: 'NOPE' } as any).setAllOrNothing(true);
    expect(atomic.isAllOrNothing()).to.be.true();
    const failed = await wo.executeBulkOperation(atomic);
    expect(failed.success).to.be.false();
    expect(failed.responses.map((item) => item.status)).to.equal([424, 400]);
    expect(failed.responses[1]!.error.errorattrname).to.equal('worktype');
    expect(failed.responses[0]!.error.message).to.contain('bulk item 2 of 2 failed');
    expect(await count()).to.equal(0);
    const whole = await wo.executeBulkOperation(wo.bulkOperation().create({ siteid: 'BEDFORD', description: 'Bulk atomic' } as any).setAllOrNothing(true));
    expect(whole.responses.map((item) => item.status)).to.equal([201]);
    expect(await count()).to.equal(1);
    t.works('BulkOperationBuilder.setAllOrNothing');

    // An item built by action() names a record by href without an _action: refused rather than created anew; with
    // the action it is for, the action runs on the record.
    const acted = await wo.executeBulkOperation(wo.bulkOperation().action(`${t.home}/os/mxapiwodetail/${one}`, { status: 'APPR' }));
    expect(acted.responses[0]!.status).to.equal(400);
    expect(acted.responses[0]!.error.message).to.contain('needs an _action');
    expect((await t.get(`/os/mxapiwodetail/${one}?oslc.select=status`)).body.status).to.equal('WAPPR');
    const bulkActed = await wo.executeBulkOperation(wo.bulkOperation().action(`${t.home}/os/mxapiwodetail/${one}`, { status: 'APPR' }).action(`${t.home}/os/mxapiwodetail/${one}`, { status: 'CLOSE' }), 'wsmethod:changeStatus');
    expect(bulkActed.responses.map((item) => item.status)).to.equal([204, 400]);
    expect((await t.get(`/os/mxapiwodetail/${one}?oslc.select=status`)).body.status).to.equal('APPR');
    t.works('BulkOperationBuilder.action');

    const cleared = wo.bulkOperation().create({} as any).clear();
    expect([cleared.getOperations(), cleared.buildPayload(), cleared.isAllOrNothing()]).to.equal([[], [], false]);
    t.clientSide('BulkOperationBuilder.getObjectStructure', 'BulkOperationBuilder.getOperations', 'BulkOperationBuilder.buildPayload', 'BulkOperationBuilder.isAllOrNothing', 'BulkOperationBuilder.clear', 'ResourceService.bulkOperation');

    expect((await t.get(nashua)).body.member).to.equal(before);
};

export const recordProbes: Probe[] = [
    { title: 'queries: every step of the query builder, pages, counts, saved queries, distinct, group-by, reports', run: reading },
    { title: 'one record: the fetch builder', run: fetching },
    { title: 'writes: create, update, merge, sync, delete, with their builders, read back; actions refused', run: writing },
    { title: 'bulk: the bulk builder, each item answered; all or nothing writes nothing and says which item failed', run: bulk }
];
