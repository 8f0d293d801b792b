import * as Crypto from 'node:crypto';

import * as Code from '@hapi/code';
import * as Lab from '@hapi/lab';

import { onEachDatabase } from '../helpers/experiments';
import { maxadmin, wilson } from '../helpers/server';
import type { TestServer } from '../helpers/server';


const lab = exports.lab = Lab.script();
const { test, before } = lab;
const { expect } = Code;

// Documents inside records (issue 36): the doclinks link of a whole record, oslc.select=doclinks{…}, inlinedoc=1.

const wos = '/maximo/oslc/os/mxapiwodetail';
const local = (href: string) => href.replace(/^http:\/\/[^/]+/, '');

const upload = async (t: TestServer, record: string, name: string, bytes: Buffer) => {

    const res = await t.inject({ method: 'POST', url: `${record}/doclinks`, headers: { ...wilson, slug: name, 'content-type': 'application/octet-stream', 'x-document-meta': 'FILE/Attachments', 'x-document-description': `about ${name}` }, payload: bytes });
    expect(res.statusCode, res.payload).to.equal(201);
    return String(res.headers.location);
};

const big = Crypto.randomBytes(300 * 1024);
const small = Buffer.from('hello, inline world\n');

onEachDatabase(lab, 'attachments in records (reads)', { settings: { maxBody: 400 * 1024, maxAnswerRows: 40 } }, (t) => {

    let smallHref = '';
    let bigHref = '';
    // Three work orders the demo has, in wonum order: the first gets two files, the second one, the third none.
    let woA = '';
    let woB = '';
    let wonums: string[] = [];
    let among = '';
    before(async () => {

        const first = await t.inject({ url: `${wos}?oslc.select=wonum&oslc.where=siteid="BEDFORD"&oslc.orderBy=%2Bwonum&oslc.pageSize=3`, headers: wilson });
        wonums = first.result.member.map((one: Record<string, string>) => one.wonum);
        [woA, woB] = first.result.member.map((one: Record<string, string>) => local(one.href));
        among = `oslc.where=siteid="BEDFORD" and wonum in [${wonums.map((one) => `"${one}"`).join(',')}]&oslc.orderBy=%2Bwonum`;
        smallHref = await upload(t, woA, 'hello.txt', small);
        bigHref = await upload(t, woA, 'big.bin', big);
        await upload(t, woB, 'other.txt', Buffer.from('other record'));
    });

    test('a whole record links its documents as an object with an absolute href; a select or ignorecollectionref=1 drops it', async () => {

        const record = await t.inject({ url: `${woA}?lean=1`, headers: wilson });
        expect(record.statusCode).to.equal(200);
        expect(record.result.doclinks).to.equal({ href: `${record.result.href}/doclinks` });
        expect(record.result.doclinks.href).to.equal(`http://${record.request.info.host}${woA}/doclinks`);
        const star = await t.inject({ url: `${wos}?oslc.select=*&${among}`, headers: wilson });
        expect(star.result.member[0].doclinks).to.equal({ href: `${star.result.member[0].href}/doclinks` });
        const lean = await t.inject({ url: `${woA}?ignorecollectionref=1`, headers: wilson });
        expect(lean.result.doclinks).to.not.exist();
        const selected = await t.inject({ url: `${woA}?oslc.select=wonum,description`, headers: wilson });
        expect(selected.result.doclinks).to.not.exist();
        // The link answers the documents it names.
        const list = await t.inject({ url: local(record.result.doclinks.href), headers: wilson });
        expect(list.statusCode).to.equal(200);
        expect(list.result.member.length).to.equal(2);
    });

    test('a structure without attachments never carries doclinks, nor lets a select name them', async () => {

        const page = await t.inject({ url: '/maximo/oslc/os/mxapiwfassignment?oslc.select=*&oslc.pageSize=2', headers: maxadmin });
        expect(page.statusCode).to.equal(200);
        for (const member of page.result.member) {
            expect(member.doclinks).to.not.exist();
        }

        const refused = await t.inject({ url: '/maximo/oslc/os/mxapiwfassignment?oslc.select=doclinks{*}', headers: maxadmin });
        expect(refused.statusCode).to.equal(400);
        expect(refused.result.Error.message).to.contain('doclinks');
        const inline = await t.inject({ url: '/maximo/oslc/os/mxapiwfassignment?oslc.select=*&oslc.pageSize=2&inlinedoc=1', headers: maxadmin });
        expect(inline.statusCode).to.equal(200);
        expect(inline.result.member.every((member: Record<string, unknown>) => member.doclinks === undefined)).to.be.true();
    });

    test('oslc.select=doclinks{*} renders each record\'s documents as an array, on a member and on a page', async () => {

        const member = await t.inject({ url: `${woA}?oslc.select=wonum,doclinks{*}`, headers: wilson });
        expect(member.statusCode).to.equal(200);
        const documents = member.result.doclinks;
        expect(documents.length).to.equal(2);
        expect(documents[0]).to.include({ href: smallHref, document: 'hello.txt', urlname: 'hello.txt', urltype: 'FILE', doctype: 'Attachments', description: 'about hello.txt', attachmentsize: small.length, ownertable: 'WORKORDER' });
        expect(documents[0].describedBy.identifier).to.equal(smallHref.split('/').pop());
        expect(documents[0].documentdata).to.not.exist();
        expect(documents[1]).to.include({ href: bigHref, document: 'big.bin', attachmentsize: big.length });

        const page = await t.inject({ url: `${wos}?oslc.select=wonum,doclinks{document,urltype}&${among}`, headers: wilson });
        expect(page.statusCode).to.equal(200);
        const members = page.result.member.map((one: Record<string, unknown>) => one.doclinks);
        expect(members[0]).to.equal([{ href: smallHref, document: 'hello.txt', urltype: 'FILE' }, { href: bigHref, document: 'big.bin', urltype: 'FILE' }]);
        expect(members[1].map((one: Record<string, unknown>) => one.document)).to.equal(['other.txt']);
        expect(members[2]).to.equal([]);

        const aliased = await t.inject({ url: `${woA}?oslc.select=doclinks{document}--files`, headers: wilson });
        expect(aliased.statusCode).to.equal(200);
        expect(aliased.result.files.length).to.equal(2);
    });

    test('a select that names what a document has not is a 400 naming doclinks', async () => {

        const res = await t.inject({ url: `${woA}?oslc.select=doclinks{nosuchfield}`, headers: wilson });
        expect(res.statusCode).to.equal(400);
        expect(res.result.Error.message).to.contain('doclinks');
        expect(res.result.Error.message).to.contain('nosuchfield');
    });

    test('doclinks{documentdata} without inlinedoc=1 is a 400 that names inlinedoc, not an answer without the bytes', async () => {

        const res = await t.inject({ url: `${woA}?oslc.select=wonum,doclinks{urlname,documentdata}`, headers: wilson });
        expect(res.statusCode).to.equal(400);
        expect(res.result.Error.message).to.contain('documentdata');
        expect(res.result.Error.message).to.contain('inlinedoc=1');
        const page = await t.inject({ url: `${wos}?oslc.select=wonum,doclinks{documentdata}&${among}`, headers: wilson });
        expect(page.statusCode).to.equal(400);
        const inline = await t.inject({ url: `${woA}?oslc.select=wonum,doclinks{urlname,documentdata}&inlinedoc=1`, headers: wilson });
        expect(inline.statusCode).to.equal(200);
        expect(Buffer.from(inline.result.doclinks[0].documentdata, 'base64').equals(small)).to.be.true();
    });

    test('documents count toward the rows an answer may hold', async () => {

        // 40 rows: 39 records of a page and the documents of one of them are more.
        const where = `oslc.where=siteid="BEDFORD" and wonum>="${wonums[0]}"&oslc.orderBy=%2Bwonum`;
        const res = await t.inject({ url: `${wos}?oslc.select=wonum,doclinks{document}&oslc.pageSize=39&${where}`, headers: wilson });
        const total = (await t.inject({ url: `${wos}?count=1&${where}`, headers: wilson })).result.totalCount;
        expect(Number(total)).to.be.above(38);
        expect(res.statusCode).to.equal(400);
        expect(res.result.Error.message).to.contain('OSPREY_MAX_ANSWER_ROWS');
        const fewer = await t.inject({ url: `${wos}?oslc.select=wonum,doclinks{document}&oslc.pageSize=30&${where}`, headers: wilson });
        expect(fewer.statusCode).to.equal(200);
    });

    test('inlinedoc=1 puts the documents in the record, a file\'s bytes in base64', async () => {

        // The other record's bytes fit; the first record's big one alone is within the limit, both together not.
        const other = await t.inject({ url: `${woB}?inlinedoc=1&lean=1`, headers: wilson });
        expect(other.statusCode).to.equal(200);
        expect(Array.isArray(other.result.doclinks)).to.be.true();
        expect(other.result.doclinks[0]).to.include({ urltype: 'FILE', doctype: 'Attachments', urlname: 'other.txt', document: 'other.txt', description: 'about other.txt' });
        expect(Buffer.from(other.result.doclinks[0].documentdata, 'base64').toString()).to.equal('other record');
        // Other records' attributes render as without it.
        expect(other.result.wonum).to.equal(wonums[1]);
        expect(other.result.woactivity_collectionref).to.exist();

        const selected = await t.inject({ url: `${wos}?oslc.select=wonum,doclinks{urltype,urlname}&inlinedoc=1&${among}`, headers: wilson });
        expect(selected.statusCode).to.equal(200);
        const first = selected.result.member[0].doclinks;
        expect(Object.keys(first[0]).sort()).to.equal(['documentdata', 'href', 'urlname', 'urltype']);
        expect(Buffer.from(first[0].documentdata, 'base64').equals(small)).to.be.true();
        expect(Buffer.from(first[1].documentdata, 'base64').equals(big)).to.be.true();
    });

    test('inlinedoc=1 refuses an answer whose bytes pass the body limit, naming the document to download instead', async () => {

        await upload(t, woA, 'big2.bin', Crypto.randomBytes(200 * 1024));
        const res = await t.inject({ url: `${woA}?inlinedoc=1`, headers: wilson });
        expect(res.statusCode).to.equal(400);
        expect(res.result.Error.message).to.contain('big2.bin');
        expect(res.result.Error.message).to.contain('/doclinks/');
        expect(res.result.Error.message).to.contain('download');
        // Without inlinedoc the same record is read as ever.
        expect((await t.inject({ url: woA, headers: wilson })).statusCode).to.equal(200);
    });

    test('a damaged chunk is not inlined', async () => {

        const href = await upload(t, woB, 'damaged.txt', Buffer.from('will be damaged'));
        const id = Number(href.split('/').pop());
        const knex = t.server.app.osprey.knex;
        const [row] = await knex('osprey_doclink').where({ doclinksid: id }).select('contentkey', 'store');
        if (row.store === 'database') {
            await knex('osprey_docchunk').where({ contentkey: row.contentkey, seq: 0 }).update({ data: Buffer.from('tampered bytes!') });
        }
        else {
            await knex('osprey_docchunk').where({ contentkey: row.contentkey, seq: 0 }).update({ sha256: '0'.repeat(64) });
        }

        const res = await t.inject({ url: `${woB}?inlinedoc=1`, headers: wilson });
        expect(res.statusCode).to.be.above(399);
        expect(res.result.Error.message).to.contain('damaged.txt');
        await t.inject({ method: 'DELETE', url: local(href), headers: wilson });
    });

    test('a file whose document row lost its SHA-256, or an empty one whose size was made 0, is not inlined', async () => {

        const knex = t.server.app.osprey.knex;
        for (const [name, change] of [['unhashed.txt', { sha256: null }], ['emptied.txt', { size: 0 }]] as const) {
            const href = await upload(t, woB, name, Buffer.from(`the bytes of ${name}`));
            await knex('osprey_doclink').where({ doclinksid: Number(href.split('/').pop()) }).update(change);
            const res = await t.inject({ url: `${woB}?inlinedoc=1`, headers: wilson });
            expect(res.statusCode, name).to.be.above(399);
            expect(res.result.Error.message, name).to.contain(name);
            await t.inject({ method: 'DELETE', url: local(href), headers: wilson });
        }
    });

    test('the schema of a structure with attachments describes doclinks', async () => {

        const schema = await t.inject({ url: '/maximo/oslc/jsonschemas/mxapiwodetail', headers: wilson });
        expect(schema.result.properties.doclinks.type).to.equal('array');
        expect(schema.result.properties.doclinks.items.properties.documentdata.type).to.equal('string');
        const selection = await t.inject({ url: `${wos}?oslc.select=wonum,doclinks{document}&addschema=1&oslc.pageSize=1`, headers: wilson });
        expect(selection.result.responseInfo.schema.properties.doclinks.items.properties.document).to.exist();
        const star = await t.inject({ url: `${wos}?oslc.select=*&addschema=1&oslc.pageSize=1`, headers: wilson });
        expect(star.result.responseInfo.schema.properties.doclinks.properties.href).to.exist();
        const none = await t.inject({ url: '/maximo/oslc/jsonschemas/mxapiwfassignment', headers: maxadmin });
        expect(none.result.properties.doclinks).to.not.exist();
    });
});
