import * as Crypto from 'node:crypto';
import * as Fs from 'node:fs';
import * as Os from 'node:os';
import * as Path from 'node:path';
import { Readable } from 'node:stream';

import * as Code from '@hapi/code';
import * as Lab from '@hapi/lab';

import { onEachDatabase } from '../helpers/experiments';
import { ownedNotes } from '../helpers/fixtures';
import { maxadmin, maxauth, wilson } from '../helpers/server';
import { watchSql } from '../helpers/sent-sql';
import { tableCount } from '../helpers/tables';


const lab = exports.lab = Lab.script();
const { test } = lab;
const { expect } = Code;

// The doclinks routes (issue 36, CONTRACT §6): upload, list, download (ranges), meta and delete, through HTTP.

const wos = '/maximo/oslc/os/mxapiwodetail';
const wo1004 = `${wos}/_QkVERk9SRC8xMDA0`;           // BEDFORD/1004
const wo1008 = `${wos}/_QkVERk9SRC8xMDA4`;           // BEDFORD/1008
const pathOf = (href: unknown) => new URL(String(href)).pathname;

type Inject = (request: Parameters<import('../helpers/server').TestServer['inject']>[0]) => ReturnType<import('../helpers/server').TestServer['inject']>;

const upload = (inject: Inject, record: string, bytes: Buffer | string | Readable, headers: Record<string, string> = {}, auth: Record<string, string> = wilson) => {

    return inject({ method: 'POST', url: `${record}/doclinks`, headers: { ...auth, slug: 'file.bin', 'content-type': 'application/octet-stream', 'x-document-meta': 'FILE/Attachments', ...headers }, payload: bytes as Buffer });
};

onEachDatabase(lab, 'attachments through the doclinks routes', { settings: { maxAttachment: 512 * 1024 } }, (t) => {

    const inject: Inject = (request) => t.inject(request);

    test('binary, empty, mislabelled as JSON and base64 uploads come back byte for byte', async () => {

        const binary = Crypto.randomBytes(300 * 1024);       // two chunks
        const sent = await upload(inject, wo1004, binary, { slug: 'pump.bin' });
        expect(sent.statusCode, sent.payload).to.equal(201);
        expect(sent.headers.location).to.match(/\/os\/mxapiwodetail\/_QkVERk9SRC8xMDA0\/doclinks\/\d{7,}$/);
        const back = await inject({ url: pathOf(sent.headers.location), headers: wilson });
        expect(back.statusCode).to.equal(200);
        expect(back.rawPayload.equals(binary)).to.be.true();
        expect(back.headers['content-length']).to.equal(String(binary.length));
        expect(back.headers.etag).to.equal(`"${Crypto.createHash('sha256').update(binary).digest('hex')}"`);
        // If-None-Match: the ETag (strong or weak, in a list) or `*` is a 304 without bytes; another tag the bytes.
        for (const tag of [back.headers.etag, `W/${String(back.headers.etag)}`, `"other", ${String(back.headers.etag)}`, '*']) {
            const unchanged = await inject({ url: pathOf(sent.headers.location), headers: { ...wilson, 'if-none-match': String(tag) } });
            expect(unchanged.statusCode, String(tag)).to.equal(304);
            expect(unchanged.rawPayload.length).to.equal(0);
            expect(unchanged.headers.etag).to.equal(back.headers.etag);
        }

        expect((await inject({ url: pathOf(sent.headers.location), headers: { ...wilson, 'if-none-match': '"other"' } })).statusCode).to.equal(200);

        const empty = await upload(inject, wo1004, Buffer.alloc(0), { slug: 'empty.txt', 'content-type': 'text/plain' });
        expect(empty.statusCode).to.equal(201);
        const none = await inject({ url: pathOf(empty.headers.location), headers: wilson });
        expect(none.statusCode).to.equal(200);
        expect(none.rawPayload.length).to.equal(0);

        // IBM's Java client labels every upload application/json: the body is never parsed, and the name's type is kept.
        const json = await upload(inject, wo1004, Buffer.from('{not json at all\u0000'), { slug: 'photo.jpg', 'content-type': 'application/json' });
        expect(json.statusCode, json.payload).to.equal(201);
        const photo = await inject({ url: pathOf(json.headers.location), headers: wilson });
        expect(photo.rawPayload.toString()).to.equal('{not json at all\u0000');
        expect(photo.headers['content-type']).to.equal('image/jpeg');
        expect(String(photo.headers['content-disposition'])).to.startWith('inline;');

        const base64 = await upload(inject, wo1004, binary.subarray(0, 1000).toString('base64').replace(/(.{76})/g, '$1\r\n'), { slug: 'b64.bin', 'custom-encoding': 'base64' });
        expect(base64.statusCode, base64.payload).to.equal(201);
        expect((await inject({ url: pathOf(base64.headers.location), headers: wilson })).rawPayload.equals(binary.subarray(0, 1000))).to.be.true();
        const notBase64 = await upload(inject, wo1004, 'abc$def', { 'custom-encoding': 'base64' });
        expect(notBase64.statusCode).to.equal(400);
        expect(notBase64.result.Error.message).to.contain('base64');
    });

    test('names keep their Unicode and refuse paths and control characters', async () => {

        const name = 'Pumpe Größe 東京.pdf';
        const encoded = await upload(inject, wo1008, 'x', { slug: encodeURIComponent(name) });
        expect(encoded.statusCode, encoded.payload).to.equal(201);
        expect(encoded.result.fileName).to.equal(name);
        const viaEncslug = await upload(inject, wo1008, 'x', { slug: undefined as unknown as string, encslug: Buffer.from(name).toString('base64') });
        expect(viaEncslug.result.fileName).to.equal(name);
        const download = await inject({ url: pathOf(encoded.headers.location), headers: wilson });
        expect(download.headers['content-disposition']).to.equal(`inline; filename="Pumpe Gr__e __.pdf"; filename*=UTF-8''${encodeURIComponent(name)}`);

        for (const bad of ['../etc/passwd', 'a\\b.txt', '..', 'tab\there', 'x'.repeat(256)]) {
            const refused = await upload(inject, wo1008, 'x', { slug: encodeURIComponent(bad) });
            expect(refused.statusCode, bad).to.equal(400);
        }

        // A raw UTF-8 name (IBM's Java client sends one as it is) with a percent escape in it: its bytes are UTF-8 first.
        const raw = await upload(inject, wo1008, 'x', { slug: Buffer.from('café%20menü.txt').toString('latin1') });
        expect(raw.statusCode, raw.payload).to.equal(201);
        expect(raw.result.fileName).to.equal('café menü.txt');
        // base64 of bytes that are no UTF-8 is refused, never stored as U+FFFD.
        for (const headers of [{ encslug: '/w==', slug: undefined as unknown as string }, { 'x-document-encdescription': '/w==' }] as Record<string, string>[]) {
            const refused = await upload(inject, wo1008, 'x', headers);
            expect(refused.statusCode, JSON.stringify(headers)).to.equal(400);
            expect(refused.result.Error.message).to.contain('not UTF-8');
        }

        // A header of the upload sent twice: node would join the names ("a.txt, b.txt") or keep the first type.
        for (const [header, values] of [['slug', ['a.txt', 'b.txt']], ['x-document-description', ['one', 'two']]] as const) {
            const twice = await inject({ method: 'POST', url: `${wo1008}/doclinks`, headers: { ...wilson, slug: 'x.txt', 'content-type': 'text/plain', [header]: values as unknown as string }, payload: 'x' });
            expect(twice.statusCode, header).to.equal(400);
            expect(twice.result.Error.message).to.contain(`The header ${header} is sent twice`);
        }

        const nameless = await inject({ method: 'POST', url: `${wo1008}/doclinks`, headers: { ...wilson, 'content-type': 'text/plain' }, payload: 'x' });
        expect(nameless.statusCode).to.equal(400);
        expect(nameless.result.Error.message).to.contain('slug');
    });

    test('ranges answer 206 with Content-Range; several ranges and ranges outside are refused', async () => {

        const bytes = Buffer.from(Array.from({ length: 400 * 1024 }, (_, i) => i % 251));
        const sent = await upload(inject, wo1008, bytes, { slug: 'ranged.bin' });
        const url = pathOf(sent.headers.location);
        for (const [range, from, to] of [['bytes=0-9', 0, 9], ['bytes=262140-262150', 262140, 262150], ['bytes=409590-', 409590, 409599], ['bytes=-5', 409595, 409599], ['bytes=409000-999999', 409000, 409599]] as const) {
            const part = await inject({ url, headers: { ...wilson, range } });
            expect(part.statusCode, range).to.equal(206);
            expect(part.headers['content-range']).to.equal(`bytes ${from}-${to}/${bytes.length}`);
            expect(part.rawPayload.equals(bytes.subarray(from, to + 1)), range).to.be.true();
        }

        const outside = await inject({ url, headers: { ...wilson, range: 'bytes=500000-' } });
        expect(outside.statusCode).to.equal(416);
        expect(outside.headers['content-range']).to.equal(`bytes */${bytes.length}`);
        const several = await inject({ url, headers: { ...wilson, range: 'bytes=0-1,5-6' } });
        expect(several.statusCode).to.equal(400);
        // An If-Range that no longer matches answers the whole document.
        const stale = await inject({ url, headers: { ...wilson, range: 'bytes=0-9', 'if-range': '"other"' } });
        expect(stale.statusCode).to.equal(200);
        expect(stale.rawPayload.length).to.equal(bytes.length);
    });

    test('the list, the meta and the delete, by DELETE and by x-method-override', async () => {

        const record = `${wos}/_QkVERk9SRC8xMDA2`;
        const first = await upload(inject, record, 'one', { slug: 'one.txt', 'content-type': 'text/plain', 'x-document-description': 'The first' });
        const second = await upload(inject, record, 'two', { slug: 'two.txt', 'content-type': 'text/plain' });
        const list = await inject({ url: `${record}/doclinks`, headers: wilson });
        expect(list.statusCode).to.equal(200);
        expect(list.result.member.map((member: any) => member.describedBy.fileName)).to.equal(['one.txt', 'two.txt']);
        expect(list.result.member[0].href).to.equal(first.headers.location);
        expect(list.result.member[0].describedBy).to.include({ description: 'The first', docType: 'Attachments', urlType: 'FILE', attachmentSize: 3, createby: 'WILSON', title: 'one.txt' });
        expect(list.result.member[0].describedBy.format.label).to.equal('text/plain');

        const paged = await inject({ url: `${record}/doclinks?oslc.pageSize=1&collectioncount=1`, headers: wilson });
        expect(paged.result.member).to.have.length(1);
        expect(paged.result.responseInfo).to.include({ totalCount: 2, totalPages: 2 });
        expect(paged.result.responseInfo.nextPage.href).to.contain('pageno=2');

        const metaUrl = pathOf(first.headers.location).replace('/doclinks/', '/doclinks/meta/');
        const meta = await inject({ url: metaUrl, headers: wilson });
        expect(meta.result).to.include({ title: 'one.txt', description: 'The first', urlType: 'FILE', identifier: pathOf(first.headers.location).split('/').pop() });

        // A text file is served as a download to save, never shown as a page of this origin.
        const text = await inject({ url: pathOf(second.headers.location), headers: wilson });
        expect(text.headers['content-type']).to.equal('text/plain');
        // Every member's localref answers, as its href does (found by a hostile probe: a 404).
        for (const member of list.result.member as { href: string; localref: string }[]) {
            expect(member.localref).to.match(/\/doclinks\/\d+-\d+$/);
            const byLocalref = await inject({ url: pathOf(member.localref), headers: wilson });
            expect(byLocalref.statusCode, member.localref).to.equal(200);
            expect(byLocalref.rawPayload.equals((await inject({ url: pathOf(member.href), headers: wilson })).rawPayload)).to.be.true();
        }

        expect(String(text.headers['content-disposition'])).to.startWith('attachment;');
        expect(text.headers['x-content-type-options']).to.equal('nosniff');

        expect((await inject({ method: 'DELETE', url: pathOf(first.headers.location), headers: wilson })).statusCode).to.equal(204);
        expect((await inject({ method: 'POST', url: pathOf(second.headers.location), headers: { ...wilson, 'x-method-override': 'DELETE' } })).statusCode).to.equal(204);
        expect((await inject({ url: `${record}/doclinks`, headers: wilson })).result.member).to.equal([]);
        expect((await inject({ url: pathOf(first.headers.location), headers: wilson })).statusCode).to.equal(404);
        expect((await inject({ method: 'DELETE', url: pathOf(first.headers.location), headers: wilson })).statusCode).to.equal(404);
        const patch = await inject({ method: 'PATCH', url: pathOf(first.headers.location), headers: wilson, payload: {} });
        expect(patch.statusCode).to.equal(405);
        expect(patch.result.Error.message).to.contain('delete it and upload it again');
    });

    test('an HTML file is a download, never a page of this origin', async () => {

        const sent = await upload(inject, wo1008, '<script>alert(1)</script>', { slug: 'evil.html', 'content-type': 'text/html' });
        const served = await inject({ url: pathOf(sent.headers.location), headers: wilson });
        expect(served.headers['content-type']).to.equal('text/html');
        expect(String(served.headers['content-disposition'])).to.startWith('attachment;');
        expect(served.headers['x-content-type-options']).to.equal('nosniff');
        expect(served.headers['content-security-policy']).to.contain('default-src \'none\'');
    });

    test('above the limit is a 413 and stores nothing, whether the length is told or not', async () => {

        await t.server.app.osprey.attachments.sweeper.soon();
        const before = { documents: await tableCount(t, 'osprey_doclink'), chunks: await tableCount(t, 'osprey_docchunk') };
        const told = await upload(inject, wo1008, Buffer.alloc(600 * 1024), { slug: 'big.bin' });
        expect(told.statusCode).to.equal(413);
        expect(told.result.Error.message).to.contain('524288 bytes');
        // A stream: no Content-Length, so the limit is met while the chunks are written.
        const untold = await upload(inject, wo1008, Readable.from([Buffer.alloc(300 * 1024), Buffer.alloc(300 * 1024)]), { slug: 'big.bin' });
        expect(untold.statusCode).to.equal(413);
        // In base64 the body's length tells little (padding, line breaks): a document of the limit exactly, with
        // line breaks, is stored; one byte more is a 413 found as it is decoded.
        const exact = await upload(inject, wo1008, Buffer.alloc(512 * 1024, 7).toString('base64').replace(/(.{76})/g, '$1\r\n'), { slug: 'exact.bin', 'custom-encoding': 'base64' });
        expect(exact.statusCode, exact.payload).to.equal(201);
        expect((await inject({ method: 'DELETE', url: pathOf(exact.headers.location), headers: wilson })).statusCode).to.equal(204);
        // PEM's shorter lines (64 characters) too.
        const pem = await upload(inject, wo1008, Buffer.alloc(512 * 1024, 7).toString('base64').replace(/(.{64})/g, '$1\r\n'), { slug: 'pem.bin', 'custom-encoding': 'base64' });
        expect(pem.statusCode, pem.payload).to.equal(201);
        expect((await inject({ method: 'DELETE', url: pathOf(pem.headers.location), headers: wilson })).statusCode).to.equal(204);
        const over = await upload(inject, wo1008, Buffer.alloc(512 * 1024 + 1, 7).toString('base64'), { slug: 'over.bin', 'custom-encoding': 'base64' });
        expect(over.statusCode).to.equal(413);
        await t.server.app.osprey.attachments.sweeper.soon();
        expect(await tableCount(t, 'osprey_doclink')).to.equal(before.documents);
        expect(await tableCount(t, 'osprey_docchunk')).to.equal(before.chunks);
        expect(await tableCount(t, 'osprey_docupload')).to.equal(0);
        expect(await tableCount(t, 'osprey_docgone')).to.equal(0);
    });

    test('rights: reading needs read, writing update; a structure without attachments has none', async () => {

        const asset = '/maximo/oslc/os/mxapiasset';
        const page = await inject({ url: `${asset}?oslc.pageSize=1`, headers: wilson });
        const record = pathOf(page.result.member[0].href);
        const refused = await upload(inject, record, 'x');
        expect(refused.statusCode).to.equal(403);
        const admins = await upload(inject, record, 'manual', { slug: 'manual.txt' }, maxadmin);
        expect(admins.statusCode).to.equal(201);
        expect((await inject({ url: pathOf(admins.headers.location), headers: wilson })).rawPayload.toString()).to.equal('manual');
        expect((await inject({ method: 'DELETE', url: pathOf(admins.headers.location), headers: wilson })).statusCode).to.equal(403);

        const none = await inject({ url: '/maximo/oslc/os/mxapiapikey/_MQ--/doclinks', headers: maxadmin });
        expect(none.statusCode).to.equal(404);
        expect(none.result.Error.message).to.contain('no attachments');
        const missing = await inject({ url: `${wos}/_QkVERk9SRC85OTk5OTk-/doclinks`, headers: wilson });
        expect(missing.statusCode).to.equal(404);
    });

    test('a damaged document is refused, never served as if whole', async () => {

        const small = await upload(inject, wo1008, 'checked bytes', { slug: 'small.txt' });
        const big = Crypto.randomBytes(300 * 1024);
        const large = await upload(inject, wo1008, big, { slug: 'large.bin' });
        const keyOf = async (location: unknown) => (await t.server.app.osprey.knex('osprey_doclink').first('contentkey').where({ doclinksid: Number(String(location).split('/').pop()) })).contentkey;
        await t.server.app.osprey.knex('osprey_docchunk').update({ data: Buffer.from('changed bytes') }).where({ contentkey: await keyOf(small.headers.location), seq: 0 });
        const refused = await inject({ url: pathOf(small.headers.location), headers: wilson });
        expect(refused.statusCode).to.equal(409);
        expect(refused.result.Error.reasonCode).to.equal('BMXAA1730E');

        // Damage past the first chunk of a document of up to a megabyte: read and checked whole before the answer
        // starts, a 409 too (a larger one ends short of its Content-Length: test/attachments/download-checks.test.ts).
        await t.server.app.osprey.knex('osprey_docchunk').update({ data: Crypto.randomBytes(300 * 1024 - 262144) }).where({ contentkey: await keyOf(large.headers.location), seq: 1 });
        const past = await inject({ url: pathOf(large.headers.location), headers: wilson });
        expect(past.statusCode).to.equal(409);
        expect(past.result.Error.reasonCode).to.equal('BMXAA1730E');
        // The undamaged first chunk still serves a range of it.
        const head = await inject({ url: pathOf(large.headers.location), headers: { ...wilson, range: 'bytes=0-99' } });
        expect(head.statusCode).to.equal(206);
        expect(head.rawPayload.equals(big.subarray(0, 100))).to.be.true();
    });

    test('a document deleted between its lookup and its first chunk is a 404, not damage', async () => {

        const sent = await upload(inject, wo1008, 'soon gone', { slug: 'gone.txt' });
        const id = Number(pathOf(sent.headers.location).split('/').pop());
        const knex = t.server.app.osprey.knex;
        const store = t.server.app.osprey.attachments.store as { read: (...args: unknown[]) => Promise<unknown> };
        const read = store.read;
        store.read = async (...args) => {

            // As a delete and the sweeper do it meanwhile.
            const { contentkey } = await knex('osprey_doclink').first('contentkey').where({ doclinksid: id });
            await knex('osprey_doclink').delete().where({ doclinksid: id });
            await knex('osprey_docchunk').delete().where({ contentkey });
            return await read.apply(store, args);
        };

        try {
            const res = await inject({ url: pathOf(sent.headers.location), headers: wilson });
            expect(res.statusCode).to.equal(404);
            expect(res.result.Error.message).to.contain(`no document ${id}`);
        }
        finally {
            store.read = read;
        }
    });

    test('a document kept in smaller chunks (as PostgreSQL\'s were, 48 KB) reads back whole and in ranges', async () => {

        const bytes = Crypto.randomBytes(500 * 1024);
        const sent = await upload(inject, wo1008, bytes, { slug: 'older.bin' });
        const id = Number(pathOf(sent.headers.location).split('/').pop());
        const { contentkey } = await t.server.app.osprey.knex('osprey_doclink').first('contentkey').where({ doclinksid: id });
        const small = 48 * 1024;
        const knex = t.server.app.osprey.knex;
        await knex.transaction(async (trx) => {

            await trx('osprey_docchunk').delete().where({ contentkey });
            for (let i = 0; i * small < bytes.length; ++i) {
                const data = bytes.subarray(i * small, (i + 1) * small);
                await trx('osprey_docchunk').insert({ contentkey, seq: i, sha256: Crypto.createHash('sha256').update(data).digest('hex'), data });
            }

            await trx('osprey_doclink').update({ chunksize: small }).where({ doclinksid: id });
        });

        const whole = await inject({ url: pathOf(sent.headers.location), headers: wilson });
        expect(whole.statusCode).to.equal(200);
        expect(whole.rawPayload.equals(bytes)).to.be.true();
        for (const [start, end] of [[0, 0], [small - 1, small], [small * 5 - 3, small * 11 + 7], [bytes.length - 10, bytes.length - 1]] as const) {
            const part = await inject({ url: pathOf(sent.headers.location), headers: { ...wilson, range: `bytes=${start}-${end}` } });
            expect(part.statusCode).to.equal(206);
            expect(part.rawPayload.equals(bytes.subarray(start, end + 1))).to.be.true();
        }

        // A chunk of the middle run missing: never short bytes as whole (a document of up to a megabyte is read and
        // checked before the answer starts: a 409).
        await knex('osprey_docchunk').delete().where({ contentkey, seq: 7 });
        expect((await inject({ url: pathOf(sent.headers.location), headers: wilson })).statusCode).to.equal(409);
    });

    test('an upload of one batch is one transaction; a longer one writes its earlier batches first', async () => {

        const knex = t.server.app.osprey.knex;
        const transactions = (sent: string[]) => sent.filter((sql) => /^\s*begin/i.test(sql)).length;
        const small = Crypto.randomBytes(200 * 1024);
        let answer: Awaited<ReturnType<Inject>> | undefined;
        expect(transactions(await watchSql(knex, async () => (answer = await upload(inject, wo1008, small, { slug: 'one.bin' }))))).to.equal(1);
        expect((await inject({ url: pathOf(answer!.headers.location), headers: wilson })).rawPayload.equals(small)).to.be.true();

        // 500 KB: a whole chunk with the upload's registration, the rest with the document's row.
        const large = Crypto.randomBytes(500 * 1024);
        expect(transactions(await watchSql(knex, async () => (answer = await upload(inject, wo1008, large, { slug: 'two.bin' }))))).to.equal(2);
        expect((await inject({ url: pathOf(answer!.headers.location), headers: wilson })).rawPayload.equals(large)).to.be.true();
        expect(await tableCount(t, 'osprey_docupload')).to.equal(0);
    });

    test('deleting a record deletes its documents and their bytes, and no other record\'s', async () => {

        const created = await inject({ method: 'POST', url: wos, headers: wilson, payload: { siteid: 'BEDFORD', description: 'With documents' } });
        const record = pathOf(created.headers.location);
        await upload(inject, record, Crypto.randomBytes(270 * 1024), { slug: 'a.bin' });
        await upload(inject, record, 'b', { slug: 'b.txt' });
        const others = (await inject({ url: `${wo1008}/doclinks`, headers: wilson })).result.member;
        const chunksBefore = await tableCount(t, 'osprey_docchunk');
        expect((await inject({ method: 'DELETE', url: record, headers: wilson })).statusCode).to.equal(204);
        await t.server.app.osprey.attachments.sweeper.soon();
        // 270 KB in the store's chunks (256 KB), and one chunk of b.
        expect(await tableCount(t, 'osprey_docchunk')).to.equal(chunksBefore - Math.ceil(270 * 1024 / t.server.app.osprey.attachments.store.chunkSize) - 1);
        expect(await tableCount(t, 'osprey_docgone')).to.equal(0);
        const after = await inject({ url: `${wo1008}/doclinks`, headers: wilson });
        expect(after.result.member).to.equal(others);
        for (const member of others) {
            expect((await inject({ url: pathOf(member.describedBy.href), headers: wilson })).statusCode).to.equal(200);
        }
    });
});

const notesWithDocuments = ownedNotes.replace('access:', 'children:\n  doclinks: { attachments: true, maxSize: 2kb }\naccess:');

onEachDatabase(lab, 'attachments under owner rules', { settings: { demo: false, adminUser: 'ADMIN', adminPassword: 'admin-secret-1' }, fixture: { add: { 'mxtestnote.yaml': notesWithDocuments } } }, (t) => {

    test('a document of another user\'s record is a 404, as the record is; the structure\'s limit holds', async () => {

        await t.server.app.osprey.users.create({ userid: 'ANNA', password: 'anna-password', groups: ['EVERYONE'] });
        await t.server.app.osprey.users.create({ userid: 'BEN', password: 'ben-password', groups: ['EVERYONE'] });
        const anna = maxauth('anna', 'anna-password');
        const ben = maxauth('ben', 'ben-password');
        const note = await t.inject({ method: 'POST', url: '/maximo/oslc/os/mxtestnote', headers: anna, payload: { body: 'mine' } });
        const record = pathOf(note.headers.location);
        const sent = await upload((request) => t.inject(request), record, 'secret', { slug: 'secret.txt' }, anna);
        expect(sent.statusCode, sent.payload).to.equal(201);
        for (const url of [`${record}/doclinks`, pathOf(sent.headers.location), pathOf(sent.headers.location).replace('/doclinks/', '/doclinks/meta/')]) {
            expect((await t.inject({ url, headers: ben })).statusCode, url).to.equal(404);
            expect((await t.inject({ url, headers: anna })).statusCode, url).to.equal(200);
        }

        expect((await upload((request) => t.inject(request), record, 'x', {}, ben)).statusCode).to.equal(404);
        expect((await t.inject({ method: 'DELETE', url: pathOf(sent.headers.location), headers: ben })).statusCode).to.equal(404);
        const big = await upload((request) => t.inject(request), record, Buffer.alloc(3000), {}, anna);
        expect(big.statusCode).to.equal(413);
        expect(big.result.Error.message).to.contain('2048 bytes');
    });
});

const documentsFolder = Path.join(Os.tmpdir(), `osprey-folder-store-${process.pid}`);

onEachDatabase(lab, 'attachments in the folder store', { settings: { attachmentsDir: documentsFolder } }, (t) => {

    const inject: Inject = (request) => t.inject(request);
    const folder = () => documentsFolder;
    const files = () => (Fs.existsSync(folder()) ? Fs.readdirSync(folder(), { recursive: true }).map(String).filter((name) => /[0-9a-f]{32}$/.test(name)) : []);

    lab.after(() => Fs.rmSync(folder(), { recursive: true, force: true }));

    test('an empty document first, in a folder with nothing in it yet', async () => {

        Fs.rmSync(folder(), { recursive: true, force: true });
        const empty = await upload(inject, wo1004, Buffer.alloc(0), { slug: 'first.txt', 'content-type': 'text/plain' });
        expect(empty.statusCode, empty.payload).to.equal(201);
        const back = await inject({ url: pathOf(empty.headers.location), headers: wilson });
        expect(back.statusCode).to.equal(200);
        expect(back.rawPayload.length).to.equal(0);
        expect((await inject({ method: 'DELETE', url: pathOf(empty.headers.location), headers: wilson })).statusCode).to.equal(204);
    });

    test('keeps the bytes in files, checks them, and sweeps them after a delete', async () => {

        const bytes = Crypto.randomBytes(600 * 1024);
        const sent = await upload(inject, wo1004, bytes, { slug: 'drawing.bin' });
        expect(sent.statusCode, sent.payload).to.equal(201);
        expect(files()).to.have.length(1);
        // The chunks' hashes are in the database; their bytes are not.
        const [row] = await t.server.app.osprey.knex('osprey_docchunk').select('data').whereNotNull('sha256').limit(1);
        expect(row.data).to.be.null();
        const back = await inject({ url: pathOf(sent.headers.location), headers: wilson });
        expect(back.rawPayload.equals(bytes)).to.be.true();
        const part = await inject({ url: pathOf(sent.headers.location), headers: { ...wilson, range: 'bytes=262100-262200' } });
        expect(part.rawPayload.equals(bytes.subarray(262100, 262201))).to.be.true();

        const empty = await upload(inject, wo1004, Buffer.alloc(0), { slug: 'empty.bin' });
        expect((await inject({ url: pathOf(empty.headers.location), headers: wilson })).rawPayload.length).to.equal(0);

        // A file changed on disk is refused, as a damaged chunk is; one that is gone too.
        const [file] = files().filter((name) => Fs.statSync(Path.join(folder(), name)).size > 0);
        Fs.writeFileSync(Path.join(folder(), file!), Buffer.from('not the drawing'));
        expect((await inject({ url: pathOf(sent.headers.location), headers: wilson })).statusCode).to.equal(409);
        Fs.rmSync(Path.join(folder(), file!));
        expect((await inject({ url: pathOf(sent.headers.location), headers: wilson })).statusCode).to.equal(409);

        // A chunk whose hash row is gone is as damaged as one whose bytes changed; a key that is not one is refused.
        const kept = await upload(inject, wo1004, 'kept', { slug: 'kept.txt' });
        const [keptRow] = await t.server.app.osprey.knex('osprey_doclink').select('contentkey').where({ doclinksid: Number(pathOf(kept.headers.location).split('/').pop()) });
        await t.server.app.osprey.knex('osprey_docchunk').delete().where({ contentkey: keptRow.contentkey });
        expect((await inject({ url: pathOf(kept.headers.location), headers: wilson })).statusCode).to.equal(409);
        await expect(t.server.app.osprey.attachments.store.sweep('../../etc/passwd')).to.reject(/Not a content key/);

        expect((await inject({ method: 'DELETE', url: pathOf(sent.headers.location), headers: wilson })).statusCode).to.equal(204);
        expect((await inject({ method: 'DELETE', url: pathOf(empty.headers.location), headers: wilson })).statusCode).to.equal(204);
        expect((await inject({ method: 'DELETE', url: pathOf(kept.headers.location), headers: wilson })).statusCode).to.equal(204);
        await t.server.app.osprey.attachments.sweeper.soon();
        expect(files()).to.equal([]);
        expect(await tableCount(t, 'osprey_docgone')).to.equal(0);
    });

    test('an upload a stopped node left unfinished is swept after a day; a failed one at once', async () => {

        const store = t.server.app.osprey.attachments.store;
        await t.server.app.osprey.knex('osprey_docupload').insert({ contentkey: 'ab'.repeat(16), store: 'folder', started: Date.now() - 25 * 3600_000 });
        await store.write('ab'.repeat(16), 0, [Buffer.from('left behind')]);
        await t.server.app.osprey.knex('osprey_docupload').insert({ contentkey: 'cd'.repeat(16), store: 'folder', started: Date.now() });
        await t.server.app.osprey.attachments.sweeper.soon();
        expect(await t.server.app.osprey.knex('osprey_docupload').pluck('contentkey')).to.equal(['cd'.repeat(16)]);
        expect(await t.server.app.osprey.knex('osprey_docchunk').where({ contentkey: 'ab'.repeat(16) }).pluck('seq')).to.equal([]);
        expect(files().filter((name) => name.endsWith('ab'.repeat(16)))).to.equal([]);
        await t.server.app.osprey.knex('osprey_docupload').delete();

        // A body that breaks off: nothing of it stays.
        const broken = new Readable({ read() {} });
        broken.push(Crypto.randomBytes(300 * 1024));
        setImmediate(() => broken.destroy(new Error('client went away')));
        await expect(upload(inject, wo1004, broken, { slug: 'broken.bin' })).to.reject();
        await t.server.app.osprey.attachments.sweeper.soon();
        expect(await tableCount(t, 'osprey_docupload')).to.equal(0);
        expect(await t.server.app.osprey.knex('osprey_docchunk').whereNotIn('contentkey', t.server.app.osprey.knex('osprey_doclink').select('contentkey').whereNotNull('contentkey')).pluck('seq')).to.equal([]);
    });
});
