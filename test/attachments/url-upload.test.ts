import * as Code from '@hapi/code';
import * as Lab from '@hapi/lab';

import { onEachDatabase } from '../helpers/experiments';
import { wilson } from '../helpers/server';
import { tableRows } from '../helpers/tables';


const lab = exports.lab = Lab.script();
const { test, before } = lab;
const { expect } = Code;

// A URL document uploaded through the route (IBM's guide, "Create (URL)"): content-location, no body.

const wos = '/maximo/oslc/os/mxapiwodetail';
const local = (href: string) => href.replace(/^http:\/\/[^/]+/, '');

onEachDatabase(lab, 'URL documents through the doclinks route', (t) => {

    let record = '';
    before(async () => {

        const first = await t.inject({ url: `${wos}?oslc.pageSize=1&oslc.where=siteid="BEDFORD"`, headers: wilson });
        record = local(first.result.member[0].href);
    });

    test('content-location, x-document-meta URL/…, a slug and no body make a link', async () => {

        const res = await t.inject({ method: 'POST', url: `${record}/doclinks`, headers: { ...wilson, 'content-location': 'www.cnn.com', 'x-document-meta': 'URL/Attachments', slug: 'CNN', 'x-document-description': 'News' } });
        expect(res.statusCode, res.payload).to.equal(201);
        expect(res.headers.location).to.match(/\/doclinks\/\d+$/);
        expect(res.result).to.include({ urlType: 'URL', urlname: 'www.cnn.com', title: 'CNN', description: 'News', docType: 'Attachments' });
        const meta = await t.inject({ url: local(String(res.headers.location)).replace('/doclinks/', '/doclinks/meta/'), headers: wilson });
        expect(meta.result).to.include({ urlType: 'URL', urlname: 'www.cnn.com', title: 'CNN' });
        const download = await t.inject({ url: local(String(res.headers.location)), headers: wilson });
        expect(download.statusCode).to.equal(404);
        expect(download.result.Error.message).to.contain('www.cnn.com');
        const inline = await t.inject({ url: `${record}?inlinedoc=1`, headers: wilson });
        const link = inline.result.doclinks.find((one: Record<string, unknown>) => one.href === res.headers.location);
        expect(link).to.include({ urltype: 'URL', urlname: 'www.cnn.com', document: 'CNN' });
        expect(link.documentdata).to.not.exist();

        // Without a URL type, content-location makes a URL; without a slug, the address is the title.
        const bare = await t.inject({ method: 'POST', url: `${record}/doclinks`, headers: { ...wilson, 'content-location': 'https://example.com/a' } });
        expect(bare.statusCode, bare.payload).to.equal(201);
        expect(bare.result).to.include({ urlType: 'URL', title: 'https://example.com/a' });
    });

    test('a link with a body, a FILE with content-location, a URL without it, or a bad address is refused and writes nothing', async () => {

        const earlier = await tableRows(t, 'osprey_doclink', 'doclinksid');
        const cases: [Record<string, string>, string | undefined, string][] = [
            [{ 'content-location': 'www.cnn.com', 'x-document-meta': 'URL/Attachments', slug: 'CNN' }, 'some bytes', 'no bytes'],
            [{ 'content-location': 'www.cnn.com', 'x-document-meta': 'FILE/Attachments', slug: 'CNN' }, undefined, 'content-location'],
            [{ 'x-document-meta': 'URL/Attachments', slug: 'CNN' }, undefined, 'content-location'],
            [{ 'content-location': 'javascript:alert(1)', slug: 'x' }, undefined, 'javascript'],
            [{ 'content-location': 'www.cnn.com', 'x-document-meta': 'LINK/Attachments', slug: 'CNN' }, undefined, 'LINK']
        ];
        for (const [headers, payload, named] of cases) {
            const res = await t.inject({ method: 'POST', url: `${record}/doclinks`, headers: { ...wilson, ...headers }, ...payload === undefined ? {} : { payload } });
            expect(res.statusCode, JSON.stringify(headers)).to.equal(400);
            expect(res.result.Error.message, JSON.stringify(headers)).to.contain(named);
        }

        expect(await tableRows(t, 'osprey_doclink', 'doclinksid')).to.equal(earlier);
    });

    test('content-location belongs to uploads: elsewhere it is refused by name', async () => {

        const res = await t.inject({ url: record, headers: { ...wilson, 'content-location': 'www.cnn.com' } });
        expect(res.statusCode).to.equal(400);
        expect(res.result.Error.message).to.contain('content-location');
    });
});
