import * as ChildProcess from 'node:child_process';
import * as Crypto from 'node:crypto';
import * as Fs from 'node:fs';
import * as Https from 'node:https';
import * as Os from 'node:os';
import * as Path from 'node:path';

import * as Code from '@hapi/code';
import * as Lab from '@hapi/lab';

import { testDatabases } from '../helpers/databases';
import { dataDir, freePort, portFreed, startProcess } from '../helpers/process';
import { root } from '../helpers/server';


const { experiment, test } = exports.lab = Lab.script();
const { expect } = Code;

// README's Production recipe: two nodes on one empty PostgreSQL database, started at once, behind nginx run with
// the README's own block (only its certificate and ports swapped), as the current user in a folder of its own.

const nginxBlock = (): string => {

    const readme = Fs.readFileSync(Path.join(root, 'README.md'), 'utf8');
    const section = readme.slice(readme.indexOf('\n## Production\n'), readme.indexOf('\n## Reading and writing records\n'));
    return /```nginx\n([\s\S]*?)```/.exec(section)![1]!;
};

interface Answer {
    status: number;
    headers: Record<string, string | string[] | undefined>;
    body: string;
}

const call = (port: number, method: string, path: string, headers: Record<string, string>, body?: string): Promise<Answer> => new Promise((resolve, reject) => {

    // The host the client uses, as a browser sends it (the certificate is the test's own).
    const req = Https.request({ host: '127.0.0.1', port, method, path, headers: { host: `localhost:${port}`, ...headers }, rejectUnauthorized: false }, (res) => {

        let text = '';
        res.setEncoding('utf8');
        res.on('data', (chunk) => (text += chunk));
        res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body: text }));
    });
    req.on('error', reject);
    req.end(body);
});

const startNginx = async (dir: string, config: string, port: number, nodePorts: readonly number[]): Promise<{ stop: () => Promise<number | null>; log: () => string }> => {

    ChildProcess.execFileSync('openssl', ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-subj', '/CN=localhost', '-days', '1', '-keyout', Path.join(dir, 'key.pem'), '-out', Path.join(dir, 'cert.pem')], { stdio: 'ignore' });
    const block = config
        .replace('listen 443 ssl;', `listen 127.0.0.1:${port} ssl;`)
        .replace('server 127.0.0.1:8080;', `server 127.0.0.1:${nodePorts[0]};`)
        .replace('server 127.0.0.1:8081;', `server 127.0.0.1:${nodePorts[1]};`)
        .replace('/etc/ssl/certs/eam.example.com.pem', Path.join(dir, 'cert.pem'))
        .replace('/etc/ssl/private/eam.example.com.key', Path.join(dir, 'key.pem'));
    const temp = (name: string) => `${name}_temp_path ${Path.join(dir, name)};`;
    Fs.writeFileSync(Path.join(dir, 'nginx.conf'), [
        'daemon off;',
        'worker_processes 1;',
        // As root the workers would run as nobody, who cannot enter the test's folder.
        ...(process.getuid?.() === 0 ? [`user ${Os.userInfo().username};`] : []),
        `pid ${Path.join(dir, 'nginx.pid')};`,
        `error_log ${Path.join(dir, 'error.log')} info;`,
        'events { worker_connections 64; }',
        'http {',
        `access_log ${Path.join(dir, 'access.log')};`,
        ...['client_body', 'proxy', 'fastcgi', 'uwsgi', 'scgi'].map(temp),
        block,
        '}'
    ].join('\n'));

    const child = ChildProcess.spawn('nginx', ['-p', dir, '-e', Path.join(dir, 'error.log'), '-c', Path.join(dir, 'nginx.conf')], { stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (chunk) => (output += chunk));
    child.stderr.on('data', (chunk) => (output += chunk));
    const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
    const log = () => output + (Fs.existsSync(Path.join(dir, 'error.log')) ? Fs.readFileSync(Path.join(dir, 'error.log'), 'utf8') : '');
    while (!(await Promise.race([exited.then(() => true), new Promise((resolve) => setTimeout(resolve, 100, false))]))) {
        if (!await portFreed(port)) {
            return { log, stop: () => (child.kill('SIGQUIT'), exited) };
        }
    }

    throw new Error(`nginx did not start:\n${log()}`);
};

for (const database of testDatabases.filter((candidate) => candidate.name === 'postgresql')) {
    experiment(`two nodes behind nginx (${database.name})`, { timeout: 120_000 }, () => {

        test('started at once on an empty database, reached in turn through the README\'s nginx block, sharing writes, with the proxy\'s origin in hrefs, and stopped cleanly', async () => {

            const created = await database.create();
            const dir = Fs.mkdtempSync(Path.join(Os.tmpdir(), 'osprey-nginx-'));
            const secret = Crypto.randomBytes(32).toString('hex');
            // Two public origins: without the forwarded scheme or host, the first would stand in and the test fail.
            const settings = (origin: string) => ({ DATABASE_URL: created.url, OSPREY_DATA: dataDir(), OSPREY_SECRET: secret, OSPREY_TRUST_PROXY: '1', OSPREY_PUBLIC_ORIGINS: `https://eam.example.com,${origin}` });

            const config = nginxBlock();
            expect(config).to.contain('server 127.0.0.1:8080;');
            expect(config).to.contain('server 127.0.0.1:8081;');
            expect(config).to.contain('proxy_request_buffering off;');
            let nginx: Awaited<ReturnType<typeof startNginx>> | undefined;
            let nodes: Awaited<ReturnType<typeof startProcess>>[] = [];
            try {
                // nginx's port is the public origin the nodes are given; nginx starts once they listen.
                const nginxPort = await freePort();
                const origin = `https://localhost:${nginxPort}`;
                nodes = await Promise.all([startProcess(settings(origin)), startProcess(settings(origin))]);
                nginx = await startNginx(dir, config, nginxPort, nodes.map((node) => node.port));

                const wilson = { maxauth: Buffer.from('wilson:wilson').toString('base64') };

                // Each answer names the node that gave it (thisServer in members): both take turns.
                const served = new Set<string>();
                for (let i = 0; i < 4; ++i) {
                    const members = await call(nginxPort, 'GET', '/maximo/oslc/members', wilson);
                    expect(members.status, members.body).to.equal(200);
                    const list = JSON.parse(members.body).member as { id: string; href: string; thisServer: boolean }[];
                    expect(list).to.have.length(2);
                    expect(list[0]!.href.startsWith(`${origin}/maximo/oslc/members/`)).to.be.true();
                    served.add(list.find((member) => member.thisServer)!.id);
                }

                expect(served.size).to.equal(2);

                // A write through the proxy, read from each node and through the proxy.
                const record = await call(nginxPort, 'POST', '/maximo/oslc/os/mxapiwodetail', { ...wilson, 'content-type': 'application/json' }, JSON.stringify({ siteid: 'BEDFORD', description: 'Behind nginx' }));
                expect(record.status, record.body).to.equal(201);
                const location = record.headers.location as string;
                expect(location.startsWith(`${origin}/maximo/oslc/os/mxapiwodetail/`)).to.be.true();
                const path = location.slice(origin.length);
                for (const { port } of nodes) {
                    const direct = await fetch(`http://127.0.0.1:${port}${path}?oslc.select=description`, { headers: wilson });
                    expect(direct.status).to.equal(200);
                    expect((await direct.json() as { description: string }).description).to.equal('Behind nginx');
                }

                for (let i = 0; i < 2; ++i) {
                    const read = await call(nginxPort, 'GET', `${path}?oslc.select=description`, wilson);
                    expect(read.status).to.equal(200);
                    expect(JSON.parse(read.body)).to.include({ href: location, description: 'Behind nginx' });
                }

                // An upload streams through (proxy_request_buffering off) and is read back through the other turn.
                const upload = await call(nginxPort, 'POST', `${path}/doclinks`, { ...wilson, 'content-type': 'text/plain', slug: 'note.txt', 'x-document-meta': 'FILE/Attachments' }, 'through nginx');
                expect(upload.status, upload.body).to.equal(201);
                for (let i = 0; i < 2; ++i) {
                    const download = await call(nginxPort, 'GET', (upload.headers.location as string).slice(origin.length), wilson);
                    expect(download.status).to.equal(200);
                    expect(download.body).to.equal('through nginx');
                }
            }
            finally {
                const codes = await Promise.all(nodes.map((node) => node.stop()));
                expect(codes).to.equal(nodes.map(() => 0));
                for (const node of nodes) {
                    expect(node.output()).to.match(/Osprey received SIGTERM, draining requests[\s\S]*Osprey stopped/);
                    expect(await portFreed(node.port)).to.be.true();
                }

                await nginx?.stop();
                await created.drop();
                Fs.rmSync(dir, { recursive: true, force: true });
            }
        });
    });
}
