import * as ChildProcess from 'node:child_process';
import * as Fs from 'node:fs';
import * as Net from 'node:net';
import * as Path from 'node:path';

import * as Code from '@hapi/code';
import * as Lab from '@hapi/lab';

import { dataDir, freePort } from '../helpers/process';
import { root } from '../helpers/server';


const { experiment, test } = exports.lab = Lab.script();
const { expect } = Code;


// Runs the real server to its exit and answers what it wrote on stderr, which is what an operator reads.
const failedStart = (env: Record<string, string>): Promise<{ code: number | null; stderr: string }> => new Promise((resolve) => {


    ChildProcess.execFile(process.execPath, [Path.join(root, 'dist', 'src', 'main.js')], { cwd: root, env: { PATH: process.env.PATH, OSPREY_LOG: 'error', OSPREY_DATA: dataDir(), PORT: '0', DATABASE_URL: 'sqlite::memory:', ...env } }, (err, _stdout, stderr) => {

        resolve({ code: err ? (err as ChildProcess.ExecFileException).code as number : 0, stderr });
    });
});

const stack = /\n\s+at /;

experiment('a start that fails', { timeout: 60_000 }, () => {

    test('on a port in use says to set PORT, in one line; OSPREY_LOG=debug adds the stack', async () => {

        const holder = Net.createServer();
        await new Promise<void>((resolve) => holder.listen(0, '127.0.0.1', resolve));
        const port = (holder.address() as Net.AddressInfo).port;
        try {
            const plain = await failedStart({ PORT: String(port) });
            expect(plain.code).to.equal(1);
            expect(plain.stderr).to.equal(`Osprey could not start: port ${port} of 127.0.0.1 is in use by another program (another Osprey?); stop it, or set PORT to a free port.\n`);

            const debug = await failedStart({ PORT: String(port), OSPREY_LOG: 'debug' });
            expect(debug.code).to.equal(1);
            expect(debug.stderr).to.startWith(plain.stderr);
            expect(debug.stderr).to.match(stack);
        }
        finally {
            await new Promise((resolve) => holder.close(resolve));
        }
    });

    test('on a PostgreSQL server nothing answers for says where it looked and what to do, in one line', async () => {

        const port = await freePort();
        const { code, stderr } = await failedStart({ DATABASE_URL: `postgres://osprey:secret@127.0.0.1:${port}/maximo` });
        expect(code).to.equal(1);
        expect(stderr).to.equal(`Osprey could not start: PostgreSQL at 127.0.0.1:${port} cannot be reached (nothing answers on that port); start it, or set DATABASE_URL to where it runs.\n`);
    });

    test('on a structure file that cannot be read names it among the structure problems, without a stack', async () => {

        const dir = dataDir();
        Fs.mkdirSync(Path.join(dir, 'mxfolder.yaml'));
        const { code, stderr } = await failedStart({ OSPREY_STRUCTURES: dir });
        expect(code).to.equal(1);
        expect(stderr).to.equal(`Object structures are not valid (1 problem):\n- ${Path.join(dir, 'mxfolder.yaml')}: the file cannot be read (EISDIR); make it a YAML file this user can read, or move it out of the folder\n`);
    });

    if (process.env.TEST_DATABASE_URL) {
        test('on a PostgreSQL database that does not exist prints the createdb line that makes it', async () => {

            const url = new URL(process.env.TEST_DATABASE_URL!);
            url.pathname = '/osprey_absent';
            const { code, stderr } = await failedStart({ DATABASE_URL: url.toString() });
            expect(code).to.equal(1);
            const [sentence, command, ...rest] = stderr.split('\n');
            expect(sentence).to.equal(`Osprey could not start: the PostgreSQL database "osprey_absent" does not exist on ${url.hostname}:${url.port || 5432}; create it with the line below, or set DATABASE_URL to a database that exists.`);
            const options = [url.hostname === 'localhost' ? '' : `-h ${url.hostname} `, url.port && url.port !== '5432' ? `-p ${url.port} ` : '', url.username ? `-U ${url.username} ` : ''];
            expect(command).to.equal(`  createdb ${options.join('')}osprey_absent`);
            expect(rest).to.equal(['']);
        });
    }
});
