import * as Code from '@hapi/code';
import * as Lab from '@hapi/lab';

import { testDatabases } from '../helpers/databases';
import { startClientServer, type ClientServer, type NpmClient } from '../helpers/npm-client';


const { experiment, test, before, after } = exports.lab = Lab.script();
const { expect } = Code;

// The npm Maximo client has no attachment API (ATTACH-WIRE.md §2), but it hands out its HTTP client, which
// carries the session and adds lean=1 to every request. A user of the package attaches files with these calls,
// exactly as below:
//
//     const http = client.getHttpClient();
//     const record = await client.getService('mxapiwodetail').fetchById(id).execute();     // record.doclinks.href
//     // upload: the body is the file's bytes; the name in slug (ASCII) or encslug (base64 of its UTF-8)
//     const up = await http.post(record.doclinks.href, bytes, { headers: { 'content-type': 'application/octet-stream',
//         encslug: Buffer.from(name).toString('base64'), 'x-document-meta': 'FILE/Attachments',
//         'x-document-encdescription': Buffer.from(description).toString('base64') } });     // 201, Location
//     const list = await http.get(record.doclinks.href);                                     // { member: [{ href, describedBy }] }
//     const file = await http.get(up.headers.location, undefined, { responseType: 'arraybuffer' });  // file.data: Buffer
//     const meta = await http.get(list.data.member[0].describedBy.href);                     // …/doclinks/meta/{id}
//     await http.delete(up.headers.location);                                                // 204

const wo = '_QkVERk9SRC8xMDA0';

for (const database of testDatabases) {
    experiment(`attachments through the npm Maximo client's HTTP client (${database.name})`, { timeout: 60_000 }, () => {

        let server: ClientServer;
        let client: NpmClient;
        before({ timeout: 60_000 }, async () => {

            server = await startClientServer(database);
            client = server.client;
        });

        after(() => server.stop());

        test('upload from the record\'s doclinks href, list, download byte for byte, meta, delete', async () => {

            const http = client.getHttpClient();
            const record = await client.getService('mxapiwodetail').fetchById(wo).execute() as any;
            const collection = record.doclinks.href as string;
            expect(collection).to.equal(`${record.href}/doclinks`);
            expect((await http.get(collection)).data.member).to.equal([]);

            // Every byte value, a JSON-looking start and a CR LF: the body reaches the store untouched.
            const bytes = Buffer.concat([Buffer.from('{"a":1}\r\n'), Buffer.from(Array.from({ length: 256 }, (_, i) => i)), Buffer.from([0, 255])]);
            const name = 'Prüfbericht Pumpe 泵.bin';
            const up = await http.post(collection, bytes, {
                headers: {
                    'content-type': 'application/octet-stream',
                    encslug: Buffer.from(name).toString('base64'),
                    'x-document-meta': 'FILE/Attachments',
                    'x-document-encdescription': Buffer.from('Lager geprüft, 50% Verschleiß').toString('base64')
                }
            });
            expect(up.status).to.equal(201);
            const location = up.headers.location as string;
            expect(location).to.match(new RegExp(`^${collection}/\\d{7,}$`));
            const second = await http.post(collection, Buffer.from('plain text\n'), { headers: { 'content-type': 'text/plain', slug: 'notes.txt', 'x-document-description': 'notes' } });
            expect(second.status).to.equal(201);

            const list = await http.get(collection);
            expect(list.data.member.map((member: any) => member.href)).to.equal([location, second.headers.location]);
            const described = list.data.member[0].describedBy;
            expect(described).to.include({ title: name, fileName: name, description: 'Lager geprüft, 50% Verschleiß', urlType: 'FILE', docType: 'Attachments', attachmentSize: bytes.length });

            const file = await http.get(location, undefined, { responseType: 'arraybuffer' });
            expect(file.status).to.equal(200);
            expect(Buffer.from(file.data).equals(bytes)).to.be.true();
            const text = await http.get(second.headers.location as string, undefined, { responseType: 'arraybuffer' });
            expect(text.headers['content-type']).to.equal('text/plain');
            expect(Buffer.from(text.data).toString()).to.equal('plain text\n');

            const meta = await http.get(described.href);
            expect(meta.data).to.equal(described);

            const removed = await http.delete(location);
            expect(removed.status).to.equal(204);
            expect((await http.get(collection)).data.member.map((member: any) => member.href)).to.equal([second.headers.location]);
            const gone = await http.get(location, undefined, { responseType: 'arraybuffer' }).catch((err) => err.response);
            expect(gone.status).to.equal(404);
            await http.delete(second.headers.location as string);
            expect((await http.get(collection)).data.member).to.equal([]);
        });
    });
}
