import * as Code from '@hapi/code';
import * as Lab from '@hapi/lab';

import type { UserProfile } from '../../src/auth/users';
import type { Osprey } from '../../src/context';
import { compiledCount, compiledOnce, sqlCacheSize, largestKept } from '../../src/read/compile/compiled-sql';
import { readLookup } from '../../src/read/lookups';
import { readChildren, readCollection, readMember } from '../../src/read/records';
import type { ReadQuery } from '../../src/read/request';
import type { ResourceRequest } from '../../src/request';
import { onEachDatabase } from '../helpers/experiments';
import { maxauth } from '../helpers/server';
import { ownedNotes } from '../helpers/fixtures';


const lab = exports.lab = Lab.script();
const { experiment, test, before } = lab;
const { expect } = Code;

// The read pipeline's seam (issue 17): its entry points take a request value built by hand, with no hapi
// request, and answer as the routes do. And the SQL of collection reads is compiled once per shape.

const user = (userid: string, isAdmin = false): UserProfile => ({ userid, personid: null, displayname: null, primaryemail: null, defsite: null, insertsite: null, defaultorg: null, langcode: 'EN', groups: ['EVERYONE'], isAdmin });

const home = 'http://osprey.test/maximo/oslc';

const request = (osprey: Osprey, structure: string, settings: { read?: Partial<ReadQuery>; user?: UserProfile; id?: string; child?: string; attribute?: string; path?: string } = {}): ResourceRequest => {

    const read = { opmodeor: false, pageno: 1, stablePaging: false, count: false, collectionCount: false, addSchema: false, attachment: false, parameters: {}, ...settings.read };
    return {
        osprey,
        user: settings.user ?? user('MAXADMIN', true),
        structure: osprey.registry.get(structure)!,
        id: settings.id,
        child: settings.child,
        attribute: settings.attribute,
        home,
        url: new URL(`${home}/os/${structure.toLowerCase()}${settings.path ?? ''}`),
        linkHref: `${home}/os/${structure.toLowerCase()}${settings.path ?? ''}`,
        render: { dropNulls: true, collectionRefs: true, rowstamps: true, internalValues: false },
        read,
        write: { override: '', merge: false, batchErrors: false, allowEvents: true, allOrNothing: false, body: undefined }
    };
};

const json = (answer: Awaited<ReturnType<typeof readCollection>>): any => {

    expect(answer).to.include('json');
    return (answer as { json: unknown }).json;
};

onEachDatabase(lab, 'the read pipeline without hapi', (t) => {

    const osprey = () => t.server.app.osprey;

    test('reads a page, a record, its children and a lookup from request values', async () => {

        const where = 'siteid="BEDFORD"';
        const page = json(await readCollection(request(osprey(), 'MXAPIWODETAIL', { read: { where, select: { text: 'wonum,siteid', parameter: 'oslc.select' }, pageSize: 2, collectionCount: true } })));
        expect(page.member).to.have.length(2);
        expect(page.member[0].siteid).to.equal('BEDFORD');
        expect(String(page.responseInfo.nextPage.href)).to.startWith(`${home}/os/mxapiwodetail?`);
        const byHttp = await t.inject({ url: `/maximo/oslc/os/mxapiwodetail?oslc.where=${encodeURIComponent(where)}&oslc.select=wonum,siteid&oslc.pageSize=2&collectioncount=1`, headers: maxauth('maxadmin', 'maxadmin') });
        expect(page.member.map((member: any) => member.wonum)).to.equal(byHttp.result.member.map((member: any) => member.wonum));
        expect(page.responseInfo.totalCount).to.equal(byHttp.result.responseInfo.totalCount);

        const id = (page.member[0].href as string).split('/').pop()!;
        const member = await readMember(request(osprey(), 'MXAPIWODETAIL', { id }));
        expect(member.record.wonum).to.equal(page.member[0].wonum);
        expect(member.rowstamp).to.match(/^\d+$/);

        const children = await readChildren(request(osprey(), 'MXAPIWODETAIL', { id, child: 'woactivity' }));
        expect(children.href).to.equal(`${home}/os/mxapiwodetail/${id}/woactivity`);
        expect(children.member as unknown[]).to.be.an.array();

        const lookup = await readLookup(request(osprey(), 'MXAPIWODETAIL', { id, attribute: 'assetnum', path: `/${id}/getlist~assetnum`, read: { pageSize: 3 } }));
        expect(lookup.href).to.equal(`http://osprey.test/maximo/oslc/os/mxapiwodetail/${id}/getlist~assetnum`);
        expect(lookup.member as unknown[]).to.have.length(3);

        const reports = json(await readCollection(request(osprey(), 'MXAPIWODETAIL', { read: { action: 'listreports' } })));
        expect(reports).to.be.an.array();
    });

    test('compiles a collection read once per shape', async () => {

        const read = (where: string, pageno = 1) => readCollection(request(osprey(), 'MXAPIASSET', { read: { where, pageno, pageSize: 5, select: { text: 'assetnum,siteid', parameter: 'oslc.select' } } }));
        const kept = compiledCount(osprey());
        const bedford = json(await read('siteid="BEDFORD"'));
        expect(compiledCount(osprey())).to.equal(kept + 1);
        // Another page of the same shape: its offset is bound afresh, nothing is compiled.
        const second = json(await read('siteid="BEDFORD"', 2));
        expect(compiledCount(osprey())).to.equal(kept + 1);
        expect(second.member[0].assetnum).to.not.equal(bedford.member[0].assetnum);
        expect(second.responseInfo.pagenum).to.equal(2);
        // A different where is a different shape, with its own results.
        const nashua = json(await read('siteid="NASHUA"'));
        expect(compiledCount(osprey())).to.equal(kept + 2);
        expect(nashua.member.map((member: any) => member.siteid)).to.only.include('NASHUA');
        expect(bedford.member.map((member: any) => member.siteid)).to.only.include('BEDFORD');
        // A timeline is relative to the time of the request: never kept.
        await read('siteid="NASHUA"').then(() => readCollection(request(osprey(), 'MXAPIWODETAIL', { read: { tlrange: '-10Y', tlattribute: 'reportdate' } })));
        expect(compiledCount(osprey())).to.equal(kept + 2);
    });
});

onEachDatabase(lab, 'SQL kept by shape under an owner rule', { settings: { demo: false, adminUser: 'ADMIN', adminPassword: 'admin-secret-1' }, fixture: { add: { 'mxtestnote.yaml': ownedNotes } } }, (t) => {

    before(async () => {

        await t.server.app.osprey.knex('note').insert([{ author: 'ANNA', body: 'one' }, { author: 'BEN', body: 'one' }, { author: 'ANNA', body: 'two' }]);
    });

    test('gives each user their own rows through one compiled statement', async () => {

        const osprey = t.server.app.osprey;
        const read = async (who: UserProfile) => json(await readCollection(request(osprey, 'MXTESTNOTE', { user: who, read: { where: 'body="one"', select: { text: 'author,body', parameter: 'oslc.select' }, collectionCount: true } })));
        const kept = compiledCount(osprey);
        const anna = await read(user('ANNA'));
        const ben = await read(user('BEN'));
        expect(compiledCount(osprey)).to.equal(kept + 1);
        expect(anna.member.map((note: any) => note.author)).to.equal(['ANNA']);
        expect(ben.member.map((note: any) => note.author)).to.equal(['BEN']);
        expect(ben.responseInfo.totalCount).to.equal(1);
        // An administrator is bound by no owner rule: another shape, every author.
        const admin = await read(user('ADMIN', true));
        expect(compiledCount(osprey)).to.equal(kept + 2);
        expect(admin.member.map((note: any) => note.author).sort()).to.equal(['ANNA', 'BEN']);
    });
});

experiment('the cache of compiled SQL', () => {

    test('is bounded', () => {

        const owner = {};
        let compiled = 0;
        for (let i = 0; i <= sqlCacheSize; ++i) {
            compiledOnce(owner, `shape ${i}`, () => ++compiled);
        }

        expect(compiled).to.equal(sqlCacheSize + 1);
        expect(compiledCount(owner)).to.be.at.most(sqlCacheSize);
        expect(compiledOnce(owner, `shape ${sqlCacheSize}`, () => 0)).to.equal(sqlCacheSize + 1);
    });

    test('keeps no shape whose key and SQL are larger than it keeps', () => {

        const owner = {};
        const huge = 'x'.repeat(largestKept);
        expect(compiledOnce(owner, 'small', () => 'a', (sql) => sql.length)).to.equal('a');
        expect(compiledOnce(owner, 'big', () => huge, (sql) => sql.length)).to.equal(huge);
        // Not kept: compiled afresh the next time (and this small one is kept).
        expect(compiledOnce(owner, 'big', () => 'again', (sql) => sql.length)).to.equal('again');
        expect(compiledCount(owner)).to.equal(2);
    });
});
