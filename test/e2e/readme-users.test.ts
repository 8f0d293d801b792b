import * as ChildProcess from 'node:child_process';
import * as Fs from 'node:fs';
import * as Path from 'node:path';

import * as Code from '@hapi/code';
import * as Lab from '@hapi/lab';

import { testDatabases } from '../helpers/databases';
import { dataDir, startProcess } from '../helpers/process';
import { root } from '../helpers/server';


const { experiment, test } = exports.lab = Lab.script();
const { expect } = Code;

// The README's Users and groups section, run as pasted: its curl block against a real server process on a fresh
// demo database (only the port differs), then its `osprey` command block on the same database.

const readme = Fs.readFileSync(Path.join(root, 'README.md'), 'utf8');
const section = readme.slice(readme.indexOf('### Users and groups\n'), readme.indexOf('### Browsers and proxies\n'));
const [http, command] = [...section.matchAll(/```sh\n([\s\S]*?)```/g)].map((match) => match[1]!);

for (const database of testDatabases) {
    experiment(`the README's user examples (${database.name})`, { timeout: 90_000 }, () => {

        test('run as written: a planner added, logging in, listed, deactivated, unlocked; the osprey command', async () => {

            const created = await database.create();
            const env = { DATABASE_URL: created.url, OSPREY_DATA: dataDir() };
            const server = await startProcess(env);
            try {
                const run = (script: string) => ChildProcess.spawnSync('bash', ['-eo', 'pipefail', '-c', script], { cwd: root, encoding: 'utf8', env: { PATH: process.env.PATH, HOME: process.env.HOME, ...env } });
                const curl = run(http!.replaceAll('127.0.0.1:8080', `127.0.0.1:${server.port}`));
                expect(curl.status, curl.stderr).to.equal(0);
                expect(curl.stdout.split('\n')).to.equal(['201', '"userName":"PAT"', '"userid":"PAT"', '204', '401', '{"unlocked":true}', '']);

                const cli = run(command!);
                expect(cli.status, cli.stderr).to.equal(0);
                const lines = cli.stdout.split('\n');
                expect(lines.slice(0, 7)).to.equal([
                    'User ROOT added, in EVERYONE, MAXADMIN.',
                    'Group CREW added.',
                    'User TECH1 added, in CREW, EVERYONE.',
                    'The password of TECH1 is set; their sessions have ended.',
                    'TECH1 is in EVERYONE, MAXADMIN.',
                    'TECH1 is inactive: their sessions have ended and they cannot log in.',
                    'TECH1 was not locked.'
                ]);
                expect(lines).to.include(['ROOT\tACTIVE\tEVERYONE,MAXADMIN', 'TECH1\tINACTIVE\tEVERYONE,MAXADMIN', 'PAT\tINACTIVE\tEVERYONE,PLANNERS']);
            }
            finally {
                await server.stop();
                await created.drop();
            }
        });
    });
}
