import * as Net from 'node:net';
import { Readable } from 'node:stream';

import * as Code from '@hapi/code';
import * as Lab from '@hapi/lab';

import { Base64Pieces } from '../../src/attachments/upload';
import { onEachDatabase } from '../helpers/experiments';
import { wilson } from '../helpers/server';


const lab = exports.lab = Lab.script();
const { experiment, test } = lab;
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
        refused(await upload({ slug: undefined, encslug: 'not base64!' }), 400, 'encslug');
        // Named twice, the document would keep one of the two names: which is no server's to guess.
        refused(await upload({ slug: 'a.txt', encslug: Buffer.from('b.txt').toString('base64') }), 400, 'in slug or in encslug (the name in base64), not in both');
        refused(await upload({ slug: 'a.txt', encslug: Buffer.from('b.txt').toString('base64'), 'content-location': 'https://example.com/manual' }, ''), 400, 'not in both');
        refused(await upload({ 'x-document-description': 'd'.repeat(1001) }), 400, '1000');
        refused(await upload({ 'content-encoding': 'gzip' }), 415, 'Content-Encoding gzip');
        refused(await upload({ 'custom-encoding': 'uuencode' }), 400, 'custom-encoding uuencode');
        refused(await upload({ slug: '   ' }), 400, 'empty');
        refused(await upload({ 'custom-encoding': 'base64' }, 'QUJDR'), 400, 'one character over');
        refused(await upload({ 'content-location': 'https://example.com/manual' }, 'a body'), 400, 'no bytes');
        refused(await upload({ 'content-location': 'javascript:alert(1)' }, ''), 400, 'content-location');
        // Found by a hostile probe: each was stored, or a 500 on PostgreSQL.
        refused(await upload({ 'x-document-encdescription': Buffer.from('x\u0000y').toString('base64') }), 400, 'control character');
        refused(await upload({ 'x-document-meta': 'FILE/Attachments/Extra' }), 400, 'more than two parts');
        refused(await upload({ slug: encodeURIComponent('invoice\u202efdp.exe') }), 400, 'direction');
        refused(await upload({ slug: encodeURIComponent('\u200b') }), 400, 'nothing visible');
        for (const address of ['javascript:1/alert(1)', 'javascript:80', 'data:80']) {
            refused(await upload({ 'content-location': address }, ''), 400, 'scheme');
        }

        expect((await upload({ 'content-location': 'intranet.example.com:8080/manual', slug: 'Manual' }, '')).statusCode).to.equal(201);
        expect((await t.inject({ url: `${wo}/doclinks`, headers: wilson })).result.member.length).to.equal(before + 1);
    });

    test('a record body\'s documents are checked as the route\'s are', async () => {

        const patch = (doclinks: unknown[]) => t.inject({ method: 'PATCH', url: wo, headers: { ...wilson, patchtype: 'MERGE' }, payload: { doclinks } });
        const cases: [unknown, string][] = [
            [{ urltype: 'FILE', documentdata: 'QQ==', urlname: { a: 1 } }, 'urlname'],
            [{ urltype: 'FILE', documentdata: 'QQ==', urlname: 'n.txt', description: { a: 1 } }, 'description'],
            [{ urltype: 'FILE', documentdata: 'QQ==', urlname: 'n.txt', doctype: 5 }, 'doctype'],
            [{ urltype: 'FILE', documentdata: 'QQ==', urlname: 'n.txt', description: 'a\u0000b' }, 'control character'],
            [{ urltype: 'URL', urlname: 'www.example.com', title: 'a\u0000b' }, 'title'],
            [{ urltype: 'URL', urlname: 'www.example.com', title: 't'.repeat(300) }, 'title'],
            [{ urltype: 'URL', urlname: 'javascript:1/alert(1)' }, 'scheme']
        ];
        cases.push(
            ['not an object', 'JSON object'],
            [{ href: 'nothing here' }, 'names none'],
            [{ _action: 'Delete', doclinksid: 999999999 }, 'there is no document'],
            [{ _action: 'Replace', urltype: 'URL', urlname: 'www.example.com' }, '_action'],
            [{ urltype: 'TEXT', urlname: 'x' }, 'urltype'],
            [{ urltype: 'URL', urlname: 'www.example.com', documentdata: 'QQ==' }, 'no bytes'],
            [{ urltype: 'FILE', urlname: 'n.txt' }, 'documentdata'],
            [{ urltype: 'FILE', documentdata: 'QQ==' }, 'urlname'],
            [{ urltype: 'FILE', documentdata: 'QQ==', urlname: 'n.txt', doctype: 'bad type!' }, 'document type'],
            [{ urltype: 'FILE', documentdata: 'QQ==', urlname: 'n.txt', description: 'd'.repeat(1001) }, '1000']
        );
        for (const [item, words] of cases) {
            const res = await patch([item]);
            expect(res.statusCode, JSON.stringify(item)).to.equal(400);
            expect(res.result.Error.message, JSON.stringify(item)).to.contain(words);
        }

        // WWW is URL; an empty file inlines as ''; a document named again by its href is left as it is; a delete named
        // twice deletes once; deleting the record deletes its link too.
        const made = await t.inject({ method: 'POST', url: '/maximo/oslc/os/mxapiwodetail', headers: wilson, payload: { siteid: 'BEDFORD', description: 'Edges', doclinks: [{ urltype: 'WWW', urlname: 'www.example.com' }, { urltype: 'FILE', documentdata: '', urlname: 'empty.txt' }] } });
        expect(made.statusCode, made.payload).to.equal(201);
        const record = pathOf(made.headers.location);
        const read = await t.inject({ url: `${record}?oslc.select=doclinks{*}&inlinedoc=1`, headers: wilson });
        const [link, empty] = read.result.doclinks;
        expect(link).to.include({ urltype: 'URL', urlname: 'www.example.com' });
        expect(empty).to.include({ urltype: 'FILE', documentdata: '' });
        const again = await t.inject({ method: 'PATCH', url: record, headers: { ...wilson, patchtype: 'MERGE' }, payload: { doclinks: [{ href: empty.href }, { _action: 'Delete', href: link.href }, { _action: 'Delete', doclinksid: link.doclinksid }] } });
        expect(again.statusCode, again.payload).to.equal(204);
        expect((await t.inject({ url: `${record}?oslc.select=doclinks{document}`, headers: wilson })).result.doclinks.map((document: any) => document.document)).to.equal(['empty.txt']);
        await t.inject({ method: 'PATCH', url: record, headers: { ...wilson, patchtype: 'MERGE' }, payload: { doclinks: [{ urltype: 'URL', urlname: 'www.example.org' }] } });
        expect((await t.inject({ method: 'DELETE', url: record, headers: wilson })).statusCode).to.equal(204);
        expect(await t.server.app.osprey.knex('osprey_doclink').where({ urlname: 'www.example.org' }).pluck('doclinksid')).to.equal([]);
    });

    test('names and types: a raw UTF-8 slug, an unknown extension, a description in base64', async () => {

        const raw = await upload({ slug: Buffer.from('Prüfbericht.txt').toString('latin1'), 'x-document-encdescription': Buffer.from('geprüft').toString('base64') });
        expect(raw.statusCode, raw.payload).to.equal(201);
        expect(raw.result).to.include({ fileName: 'Prüfbericht.txt', description: 'geprüft' });
        const unknown = await upload({ slug: 'data.zzqq', 'content-type': 'application/octet-stream' });
        expect(unknown.result.format.label).to.equal('application/octet-stream');
        const noType = await upload({ slug: 'notes', 'content-type': undefined });
        expect(noType.result.format.label).to.equal('application/octet-stream');

        // The type as sent, its parameters too; one that is not a media type is refused, never replaced (found by a
        // hostile probe: a 128-letter subtype was stored as application/octet-stream, or as text/plain from the name).
        const before = (await t.inject({ url: `${wo}/doclinks`, headers: wilson })).result.member.length;
        refused(await upload({ slug: 't.zzz', 'content-type': `application/${'a'.repeat(128)}` }), 400, 'is not one');
        refused(await upload({ slug: 't.txt', 'content-type': `text/${'a'.repeat(300)}` }), 400, 'Content-Type');
        refused(await upload({ slug: 't.txt', 'content-type': 'text/plain; charset' }), 400, 'is not one');
        refused(await upload({ slug: 't.txt', 'content-type': 'text plain' }), 400, 'content-type header');
        refused(await upload({ slug: 't.txt', 'content-type': `text/plain; a=${'b'.repeat(250)}` }), 400, 'at most 255');
        expect((await t.inject({ url: `${wo}/doclinks`, headers: wilson })).result.member.length).to.equal(before);
        const html = await upload({ slug: 'page.html', 'content-type': 'Text/HTML; Charset=UTF-8; q="a \\"b\\""' });
        expect(html.statusCode, html.payload).to.equal(201);
        expect(html.result.format).to.equal({ href: 'http://purl.org/NET/mediatypes/text/html', label: 'text/html; charset=utf-8; q="a \\"b\\""' });
        const served = await t.inject({ url: pathOf(html.headers.location), headers: wilson });
        expect(served.headers['content-type']).to.equal('text/html; charset=utf-8; q="a \\"b\\""');
        expect(String(served.headers['content-disposition'])).to.startWith('attachment;');
        const png = await upload({ slug: 'dot.png', 'content-type': 'image/png; x=1' });
        expect(pathOf(png.headers.location)).to.exist();
        expect(String((await t.inject({ url: pathOf(png.headers.location), headers: wilson })).headers['content-disposition'])).to.startWith('inline;');
        const json = await upload({ slug: 'photo.jpg', 'content-type': 'application/json; charset=utf-8' });
        expect(json.result.format.label).to.equal('image/jpeg');
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
        // Another unit than bytes is not served: the whole document answers, as HTTP says.
        expect((await ranged('items=0-3')).statusCode).to.equal(200);
        refused(await ranged('bytes=a-b'), 400, 'not a byte range');
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

    test('an address over 2000 characters; a base64 body too large by its length; a record gone before the last chunk', async () => {

        refused(await upload({ 'content-location': `https://example.com/${'a'.repeat(2000)}` }, ''), 400, '2000 characters');
        const tooLong = await t.inject({ method: 'POST', url: `${wo}/doclinks`, headers: { ...wilson, slug: 'big.bin', 'custom-encoding': 'base64', 'content-length': String(200 * 1024 * 1024) }, payload: 'QUJD' });
        expect(tooLong.statusCode).to.equal(413);

        // The record is deleted while its upload's bytes come: the upload stores nothing and says the record is gone.
        const created = await t.inject({ method: 'POST', url: '/maximo/oslc/os/mxapiwodetail', headers: wilson, payload: { siteid: 'BEDFORD', description: 'Deleted while uploading' } });
        const record = pathOf(created.headers.location);
        const body = new Readable({ read() {} });
        body.push(Buffer.alloc(1000, 1));
        const answer = t.inject({ method: 'POST', url: `${record}/doclinks`, headers: { ...wilson, slug: 'late.bin' }, payload: body });
        expect((await t.inject({ method: 'DELETE', url: record, headers: wilson })).statusCode).to.equal(204);
        body.push(null);
        expect((await answer).statusCode).to.equal(404);
        await t.server.app.osprey.attachments.sweeper.soon();
        expect(await t.server.app.osprey.knex('osprey_docupload').pluck('contentkey')).to.equal([]);
    });

    test('a document whose own SHA-256 no longer matches its chunks is not served whole; a range of it still is', async () => {

        const sent = await upload({ slug: 'whole.txt' }, 'every chunk checks, the whole does not');
        const id = Number(pathOf(sent.headers.location).split('/').pop());
        await t.server.app.osprey.knex('osprey_doclink').update({ sha256: '0'.repeat(64) }).where({ doclinksid: id });
        const whole = await t.inject({ url: pathOf(sent.headers.location), headers: wilson });
        expect(whole.statusCode).to.equal(409);
        expect(whole.result.Error.reasonCode).to.equal('BMXAA1730E');
        expect((await t.inject({ url: pathOf(sent.headers.location), headers: { ...wilson, range: 'bytes=0-4' } })).payload).to.equal('every');
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

onEachDatabase(lab, 'attachments: uploads refused midway, over real sockets', { settings: { uploadIdleSeconds: 0.5, maxAttachment: 1024 * 1024 } }, (t) => {

    let port = 0;
    let listener: Net.Server | undefined;
    lab.before(async () => {

        // The server's own listener, on a free port: the refusals below are about what a socket sees.
        listener = t.server.listener;
        await new Promise<void>((resolve) => listener!.listen(0, '127.0.0.1', resolve));
        port = (listener.address() as Net.AddressInfo).port;
    });

    lab.after(() => new Promise<void>((resolve) => (listener?.listening ? listener.close(() => resolve()) : resolve())));

    // Sends the head and `body` pieces, then (unless `end`) nothing more; answers what came back, or '' if the socket
    // closed with nothing.
    const send = (headers: Record<string, string>, pieces: string[], end: boolean): Promise<string> => new Promise((resolve) => {

        const socket = Net.connect(port, '127.0.0.1');
        let answer = '';
        socket.on('data', (data) => (answer += data.toString('latin1')));
        socket.on('close', () => resolve(answer));
        socket.on('error', () => undefined);
        const head = Object.entries({ host: 'localhost', ...wilson, slug: 'socket.txt', 'content-type': 'text/plain', ...headers }).map(([name, value]) => `${name}: ${value}`).join('\r\n');
        socket.write(`POST ${wo}/doclinks HTTP/1.1\r\n${head}\r\n\r\n`);
        for (const piece of pieces) {
            socket.write(piece);
        }

        if (end) {
            socket.end();
        }
    });

    const chunk = (text: string) => `${text.length.toString(16)}\r\n${text}\r\n`;

    test('a record deleted while a long upload comes: the batches written before are swept, nothing is left', async () => {

        const knex = t.server.app.osprey.knex;
        const count = async (table: string) => Number((await knex(table).count({ n: '*' }).first())!.n);
        const chunksBefore = await count('osprey_docchunk');
        const created = await t.inject({ method: 'POST', url: '/maximo/oslc/os/mxapiwodetail', headers: wilson, payload: { siteid: 'BEDFORD', description: 'Deleted while uploading' } });
        const record = pathOf(created.headers.location);
        const socket = Net.connect(port, '127.0.0.1');
        let answer = '';
        socket.on('data', (data) => (answer += data.toString('latin1')));
        const closed = new Promise((resolve) => socket.on('close', resolve));
        const head = Object.entries({ host: 'localhost', ...wilson, slug: 'late.bin', 'content-type': 'application/octet-stream', 'content-length': String(400 * 1024), connection: 'close' }).map(([name, value]) => `${name}: ${value}`).join('\r\n');
        socket.write(`POST ${record}/doclinks HTTP/1.1\r\n${head}\r\n\r\n`);
        socket.write(Buffer.alloc(300 * 1024, 7));
        // The first batch is written with the upload's registration while the rest has not come.
        for (let i = 0; i < 100 && await count('osprey_docupload') === 0; ++i) {
            await new Promise((resolve) => setTimeout(resolve, 20));
        }

        expect(await count('osprey_docupload')).to.equal(1);
        expect(await count('osprey_docchunk')).to.equal(chunksBefore + 1);
        expect((await t.inject({ method: 'DELETE', url: record, headers: wilson })).statusCode).to.equal(204);
        socket.write(Buffer.alloc(100 * 1024, 7));
        await closed;
        expect(answer).to.match(/^HTTP\/1\.1 404 /);
        await t.server.app.osprey.attachments.sweeper.soon();
        expect(await count('osprey_docupload')).to.equal(0);
        expect(await count('osprey_docgone')).to.equal(0);
        expect(await count('osprey_docchunk')).to.equal(chunksBefore);
    });

    test('a body that is not base64, one past the limit without a length, one that stops: each answered, and the connection closed', async () => {

        const notBase64 = await send({ 'custom-encoding': 'base64', 'transfer-encoding': 'chunked' }, [chunk('!!!!'), chunk('QUJD')], false);
        expect(notBase64).to.match(/^HTTP\/1\.1 400 /);
        expect(notBase64.toLowerCase()).to.contain('connection: close');
        expect(notBase64).to.contain('base64');

        const past = await send({ 'transfer-encoding': 'chunked' }, [...Array(5).keys()].map(() => chunk('x'.repeat(300 * 1024))), false);
        expect(past).to.match(/^HTTP\/1\.1 413 /);

        const stopped = await send({ 'content-length': '5000' }, ['x'.repeat(1000)], false);
        expect(stopped).to.match(/^HTTP\/1\.1 408 /);
        expect(stopped).to.contain('BMXAA1732E');

        const link = await send({ 'content-location': 'https://example.com/manual', 'content-length': '6' }, ['a body'], false);
        expect(link).to.match(/^HTTP\/1\.1 400 /);

        await t.server.app.osprey.attachments.sweeper.soon();
        const knex = t.server.app.osprey.knex;
        expect(await knex('osprey_docupload').pluck('contentkey')).to.equal([]);
        expect(await knex('osprey_doclink').pluck('document')).to.equal([]);
        expect(await knex('osprey_docchunk').pluck('seq')).to.equal([]);
    });

    test('deletes of one document at once, or of a document and its record: one deletes, the others are a 404 (a 500 or a 400 on PostgreSQL, found by a hostile probe)', async () => {

        for (let i = 0; i < 4; ++i) {
            const made = await t.inject({ method: 'POST', url: '/maximo/oslc/os/mxapiwodetail', headers: wilson, payload: { siteid: 'BEDFORD', description: `Deletes ${i}` } });
            const record = pathOf(made.headers.location);
            const sent = await t.inject({ method: 'POST', url: `${record}/doclinks`, headers: { ...wilson, slug: 'race.txt', 'content-type': 'text/plain' }, payload: 'bytes' });
            expect(sent.statusCode, sent.payload).to.equal(201);
            const document = pathOf(sent.headers.location);
            const deletes = await Promise.all([0, 1, 2, 3].map((j) => t.inject({ method: j % 2 ? 'DELETE' : 'POST', url: document, headers: { ...wilson, ...j % 2 ? {} : { 'x-method-override': 'DELETE' } } })));
            expect(deletes.map((res) => res.statusCode).sort(), deletes.map((res) => res.payload).join()).to.equal([204, 404, 404, 404]);

            const second = await t.inject({ method: 'POST', url: `${record}/doclinks`, headers: { ...wilson, slug: 'race2.txt', 'content-type': 'text/plain' }, payload: 'more bytes' });
            const [ofDocument, ofRecord] = await Promise.all([t.inject({ method: 'DELETE', url: pathOf(second.headers.location), headers: wilson }), t.inject({ method: 'DELETE', url: record, headers: wilson })]);
            expect(ofRecord.statusCode, ofRecord.payload).to.equal(204);
            expect([204, 404], ofDocument.payload).to.include(ofDocument.statusCode);
            expect((await t.inject({ url: record, headers: wilson })).statusCode).to.equal(404);
        }

        const knex = t.server.app.osprey.knex;
        expect(await knex('osprey_doclink').whereIn('document', ['race.txt', 'race2.txt']).pluck('doclinksid')).to.equal([]);
    });
});

// A base64 body is decoded as its pieces come (found by a hostile probe: padding inside it passed where a packet
// ended after it, and 0xA0 was skipped as a space).
experiment('a base64 body read in pieces', () => {

    const decoded = (pieces: readonly (string | Buffer)[]) => {

        const decoder = new Base64Pieces();
        const parts = pieces.map((piece) => decoder.decode(Buffer.isBuffer(piece) ? piece : Buffer.from(piece, 'latin1')));
        return Buffer.concat([...parts, decoder.end()]).toString('latin1');
    };

    test('is the same whole or cut anywhere; padding ends it; line breaks, spaces and tabs are skipped, no other byte', () => {

        const text = Buffer.from('Osprey keeps documents').toString('base64');
        for (let i = 0; i <= text.length; ++i) {
            expect(decoded([text.slice(0, i), text.slice(i)])).to.equal('Osprey keeps documents');
        }

        expect(decoded(['QUJD\r\n', 'REVG\n\t ', 'Rw=', '='])).to.equal('ABCDEFG');
        for (const pieces of [['QQ==QQ=='], ['QQ==', 'QQ=='], ['QQ=', '=QQ=='], [Buffer.from('AB\xa0JD', 'latin1')], ['AB\fJD'], ['QQ=', 'Q']]) {
            expect(() => decoded(pieces), JSON.stringify(pieces)).to.throw(/not base64/);
        }
    });
});
