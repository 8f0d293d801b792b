import * as Crypto from 'node:crypto';
import * as Fs from 'node:fs';
import * as Http from 'node:http';
import * as Os from 'node:os';
import * as Path from 'node:path';
import { Readable } from 'node:stream';

import * as Code from '@hapi/code';
import * as Lab from '@hapi/lab';

import { testDatabases } from '../helpers/databases';
import { dataDir, startProcess } from '../helpers/process';


const { experiment, test } = exports.lab = Lab.script();
const { expect } = Code;

// Attachments seen by every node (issue 36): two server processes on one database (and, with the folder store, one
// folder) — a document attached through one is read back identical, and deleted, through the other. A 50 MB file
// goes up and comes down through real sockets, its bytes made and checked as they stream (the test holds none of it).

const auth = { maxauth: Buffer.from('wilson:wilson').toString('base64') };
const record = '/maximo/oslc/os/mxapiwodetail/_QkVERk9SRC8xMDAy';

interface Answer {
    status: number;
    headers: Http.IncomingHttpHeaders;
    body: Buffer;
    sha256: string;
    length: number;
}

// A request whose answer is hashed as it comes; the body kept only when small.
const request = (port: number, method: string, path: string, headers: Record<string, string> = {}, body?: Readable | Buffer): Promise<Answer> => new Promise((resolve, reject) => {

    const req = Http.request({ host: '127.0.0.1', port, method, path, headers: { ...auth, ...headers } }, (res) => {

        const hash = Crypto.createHash('sha256');
        const kept: Buffer[] = [];
        let length = 0;
        res.on('data', (chunk: Buffer) => {

            hash.update(chunk);
            length += chunk.length;
            if (length <= 1024 * 1024) {
                kept.push(chunk);
            }
        });
        res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body: Buffer.concat(kept), sha256: hash.digest('hex'), length }));
        res.on('error', reject);
    });
    req.on('error', reject);
    if (body instanceof Readable) {
        body.pipe(req);
    }
    else {
        req.end(body);
    }
});

// `size` pseudo-random bytes in 1 MB pieces, and their SHA-256 once they have all been read.
const generated = (size: number, seed: string) => {

    const hash = Crypto.createHash('sha256');
    const stream = Readable.from((function* () {

        for (let i = 0; i * 1048576 < size; ++i) {
            const piece = Buffer.alloc(Math.min(1048576, size - i * 1048576));
            Crypto.createHash('sha512').update(`${seed}${i}`).digest().copy(piece);
            piece.fill(i % 256, 64);
            hash.update(piece);
            yield piece;
        }
    })(), { objectMode: false });
    return { stream, digest: () => hash.digest('hex') };
};

const pathOf = (href: unknown) => new URL(String(href)).pathname;

for (const database of testDatabases) {
    for (const store of ['database', 'folder'] as const) {
        experiment(`attachments on two nodes (${database.name}, ${store} store)`, { timeout: 180_000 }, () => {

            test('attached through one node, read back identical and deleted through the other; 50 MB both ways', async () => {

                const created = await database.create();
                const folder = store === 'folder' ? Fs.mkdtempSync(Path.join(Os.tmpdir(), 'osprey-documents-')) : undefined;
                const env = { DATABASE_URL: created.url, OSPREY_DATA: dataDir(), ...folder ? { OSPREY_ATTACHMENTS_DIR: folder } : {} };
                const first = await startProcess(env);
                const second = await startProcess(env);
                try {
                    const photo = Crypto.randomBytes(1_500_000);
                    const sent = await request(first.port, 'POST', `${record}/doclinks`, { slug: 'failed-pump.jpg', 'content-type': 'image/jpeg', 'x-document-meta': 'FILE/Attachments', 'x-document-description': 'The pump that failed' }, photo);
                    expect(sent.status, sent.body.toString()).to.equal(201);
                    const location = pathOf(sent.headers.location);

                    const listed = JSON.parse((await request(second.port, 'GET', `${record}/doclinks`)).body.toString());
                    expect(listed.member.map((member: { href: string }) => pathOf(member.href))).to.equal([location]);
                    const read = await request(second.port, 'GET', location);
                    expect(read.status).to.equal(200);
                    expect(read.headers['content-type']).to.equal('image/jpeg');
                    expect(read.length).to.equal(photo.length);
                    expect(read.sha256).to.equal(Crypto.createHash('sha256').update(photo).digest('hex'));

                    // 50 MB through the database store (the default); 5 MB through the folder store, whose chunks
                    // differ only in where their bytes are kept.
                    const size = (store === 'database' ? 50 : 5) * 1048576;
                    const big = generated(size, store);
                    const up = await request(second.port, 'POST', `${record}/doclinks`, { slug: 'manual.pdf', 'content-type': 'application/pdf', 'content-length': String(size) }, big.stream);
                    expect(up.status, up.body.toString()).to.equal(201);
                    const down = await request(first.port, 'GET', pathOf(up.headers.location));
                    expect(down.status).to.equal(200);
                    expect(down.length).to.equal(size);
                    expect(down.sha256).to.equal(big.digest());

                    expect((await request(second.port, 'DELETE', location)).status).to.equal(204);
                    expect((await request(first.port, 'GET', location)).status).to.equal(404);
                    expect((await request(first.port, 'DELETE', pathOf(up.headers.location))).status).to.equal(204);
                    if (folder) {
                        // The files leave the folder once swept: a node sweeps after its deletes have answered.
                        const files = () => Fs.readdirSync(folder, { recursive: true }).map(String).filter((name) => /[0-9a-f]{32}$/.test(name));
                        for (let i = 0; i < 100 && files().length; ++i) {
                            await new Promise((resolve) => setTimeout(resolve, 100));
                        }

                        expect(files()).to.equal([]);
                    }
                }
                finally {
                    await Promise.all([first.stop(), second.stop()]);
                    await created.drop();
                    if (folder) {
                        Fs.rmSync(folder, { recursive: true, force: true });
                    }
                }
            });
        });
    }
}
