import * as Code from '@hapi/code';
import * as Lab from '@hapi/lab';

import { onEachDatabase } from '../helpers/experiments';
import { wilson } from '../helpers/server';


const lab = exports.lab = Lab.script();
const { test } = lab;
const { expect } = Code;

// The doclinks routes' refusals, each by name, and the paths of the engine a plain round trip does not take.

const wo = '/maximo/oslc/os/mxapiwodetail/_QkVERk9SRC8xMDEw';          // BEDFORD/1010
const pathOf = (href: unknown) => new URL(String(href)).pathname;

onEachDatabase(lab, 'attachments: refusals and edges', (t) => {

    const upload = (headers: Record<string, string | undefined>, payload: string | Buffer = 'bytes') => {

        const sent = Object.fromEntries(Object.entries({ ...wilson, slug: 'edge.txt', 'content-type': 'text/plain', ...headers }).filter(([, value]) => value !== undefined)) as Record<string, string>;
        return t.inject({ method: 'POST', url: `${wo}/doclinks`, headers: sent, payload });
    };

    const refused = (res: Awaited<ReturnType<typeof upload>>, status: number, words: string) => {

        expect(res.statusCode, res.payload).to.equal(status);
        expect(res.result.Error.message).to.contain(words);
    };

    test('upload headers that are not carried out are refused by name, and nothing is stored', async () => {

        const before = (await t.inject({ url: `${wo}/doclinks`, headers: wilson })).result.member.length;
        refused(await upload({ 'x-document-meta': 'FILE/bad type!' }), 400, 'document type');
        refused(await upload({ 'x-document-meta': 'URL/Attachments' }), 400, 'URL');
        refused(await upload({ encslug: 'not base64!' }), 400, 'encslug');
        refused(await upload({ 'x-document-description': 'd'.repeat(1001) }), 400, '1000');
        refused(await upload({ 'content-encoding': 'gzip' }), 415, 'Content-Encoding gzip');
        refused(await upload({ 'custom-encoding': 'uuencode' }), 400, 'custom-encoding uuencode');
        refused(await upload({ slug: '   ' }), 400, 'empty');
        refused(await upload({ 'custom-encoding': 'base64' }, 'QUJDR'), 400, 'one character over');
        refused(await upload({ 'content-location': 'https://example.com/manual' }, 'a body'), 400, 'no bytes');
        refused(await upload({ 'content-location': 'javascript:alert(1)' }, ''), 400, 'content-location');
        expect((await t.inject({ url: `${wo}/doclinks`, headers: wilson })).result.member.length).to.equal(before);
    });

    test('names and types: a raw UTF-8 slug, an unknown extension, a description in base64', async () => {

        const raw = await upload({ slug: Buffer.from('Prüfbericht.txt').toString('latin1'), 'x-document-encdescription': Buffer.from('geprüft').toString('base64') });
        expect(raw.statusCode, raw.payload).to.equal(201);
        expect(raw.result).to.include({ fileName: 'Prüfbericht.txt', description: 'geprüft' });
        const unknown = await upload({ slug: 'data.zzqq', 'content-type': 'application/octet-stream' });
        expect(unknown.result.format.label).to.equal('application/octet-stream');
        const noType = await upload({ slug: 'notes', 'content-type': undefined });
        expect(noType.result.format.label).to.equal('application/octet-stream');
    });

    test('pages of the list, bad page parameters, documents by bad ids, other methods', async () => {

        for (let i = 0; i < 3; ++i) {
            await upload({ slug: `page-${i}.txt` });
        }

        const second = await t.inject({ url: `${wo}/doclinks?oslc.pageSize=1&pageno=2`, headers: wilson });
        expect(second.result.member).to.have.length(1);
        expect(second.result.responseInfo.previousPage.href).to.contain('pageno=1');
        expect(second.result.responseInfo.pagenum).to.equal(2);
        refused(await t.inject({ url: `${wo}/doclinks?oslc.pageSize=0`, headers: wilson }), 400, 'oslc.pageSize');
        refused(await t.inject({ url: `${wo}/doclinks?pageno=x`, headers: wilson }), 400, 'pageno');
        refused(await t.inject({ url: `${wo}/doclinks?oslc.pageSize=100000000`, headers: wilson }), 400, 'oslc.pageSize');
        refused(await t.inject({ url: `${wo}/doclinks/abc`, headers: wilson }), 404, 'a number');
        refused(await t.inject({ url: `${wo}/doclinks/meta/0`, headers: wilson }), 404, 'a number');
        refused(await t.inject({ method: 'PUT', url: `${wo}/doclinks`, headers: wilson, payload: 'x' }), 405, 'listed (GET …/doclinks) and added');
    });

    test('ranges: suffix of zero, reversed, malformed, on an empty document; If-Range that matches', async () => {

        const sent = await upload({ slug: 'range.txt' }, '0123456789');
        const url = pathOf(sent.headers.location);
        const ranged = (range: string, more: Record<string, string> = {}) => t.inject({ url, headers: { ...wilson, range, ...more } });
        expect((await ranged('bytes=-0')).statusCode).to.equal(416);
        expect((await ranged('bytes=7-3')).statusCode).to.equal(416);
        refused(await ranged('items=0-3'), 400, 'not a byte range');
        refused(await ranged('bytes=-'), 400, 'not a byte range');
        const etag = String((await t.inject({ url, headers: wilson })).headers.etag);
        const matching = await ranged('bytes=2-4', { 'if-range': etag });
        expect(matching.statusCode).to.equal(206);
        expect(matching.payload).to.equal('234');

        const empty = await upload({ slug: 'empty.txt' }, '');
        expect((await t.inject({ url: pathOf(empty.headers.location), headers: { ...wilson, range: 'bytes=0-' } })).statusCode).to.equal(416);
        expect((await t.inject({ url: pathOf(empty.headers.location), headers: { ...wilson, range: 'bytes=-3' } })).statusCode).to.equal(416);
    });

    test('a document kept in a folder this server has no folder for is refused, naming the setting', async () => {

        const sent = await upload({ slug: 'elsewhere.txt' });
        await t.server.app.osprey.knex('osprey_doclink').update({ store: 'folder' }).where({ doclinksid: Number(pathOf(sent.headers.location).split('/').pop()) });
        refused(await t.inject({ url: pathOf(sent.headers.location), headers: wilson }), 409, 'OSPREY_ATTACHMENTS_DIR');
        // Deleted, its content is swept by the database store all the same.
        expect((await t.inject({ method: 'DELETE', url: pathOf(sent.headers.location), headers: wilson })).statusCode).to.equal(204);
        await t.server.app.osprey.attachments.sweeper.soon();
        expect(Number((await t.server.app.osprey.knex('osprey_docgone').count({ n: '*' }).first())!.n)).to.equal(0);
    });

    test('a sweep that fails is logged and tried again by the next', async () => {

        const logged: unknown[] = [];
        const listener = (event: { tags: string[]; data: unknown }) => (event.tags.includes('attachments') ? logged.push(event.data) : undefined);
        t.server.events.on('log', listener);
        try {
            const knex = t.server.app.osprey.knex;
            await knex('osprey_docgone').insert({ contentkey: 'not a key', store: 'nowhere', gone: 0 });
            const sweeper = t.server.app.osprey.attachments.sweeper;
            const original = sweeper.sweep.bind(sweeper);
            sweeper.sweep = () => Promise.reject(new Error('the disk is gone'));
            await Promise.all([sweeper.soon(), sweeper.soon()]);
            sweeper.sweep = original;
            expect(logged.map(String).join()).to.contain('the disk is gone');
            await sweeper.soon();
            expect(await knex('osprey_docgone').where({ contentkey: 'not a key' }).pluck('store')).to.equal([]);
        }
        finally {
            t.server.events.removeListener('log', listener);
        }
    });
});
