import * as ChildProcess from 'node:child_process';
import * as Fs from 'node:fs';
import * as Os from 'node:os';
import * as Path from 'node:path';
import { PassThrough } from 'node:stream';

import * as Code from '@hapi/code';
import * as Lab from '@hapi/lab';

import { runCli } from '../../src/cli/run';
import { readPassword } from '../../src/cli/password';
import { testDatabases } from '../helpers/databases';
import { demoStructures, maxauth, root, startTestServer } from '../helpers/server';


const lab = exports.lab = Lab.script();
const { experiment, test, before, after } = lab;
const { expect } = Code;

interface Ran {
    code: number;
    stdout: string;
    stderr: string;
}

// runCli in this process, its standard input the given text (a pipe, not a terminal).
const inProcess = async (env: NodeJS.ProcessEnv, argv: string[], input = ''): Promise<Ran> => {

    const stdin = new PassThrough();
    stdin.end(input);
    const stdout = new PassThrough();
    const stderr = new PassThrough();
    let out = '';
    let err = '';
    stdout.on('data', (chunk) => (out += chunk));
    stderr.on('data', (chunk) => (err += chunk));
    const code = await runCli(argv, { env, stdin: stdin as unknown as NodeJS.ReadStream, stdout: stdout as unknown as NodeJS.WriteStream, stderr: stderr as unknown as NodeJS.WriteStream });
    return { code, stdout: out, stderr: err };
};

// The built command (`npm run osprey`, node dist/src/cli.js) as a process of its own.
const spawned = (env: NodeJS.ProcessEnv, argv: string[], input = ''): Promise<Ran> => new Promise((resolve) => {

    const child = ChildProcess.spawn(process.execPath, [Path.join(root, 'dist', 'src', 'cli.js'), ...argv], { cwd: root, env: { PATH: process.env.PATH, ...env } });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk) => (stdout += chunk));
    child.stderr.on('data', (chunk) => (stderr += chunk));
    child.on('close', (code) => resolve({ code: code ?? -1, stdout, stderr }));
    child.stdin.end(input);
});

for (const database of testDatabases) {
    experiment(`the osprey command (${database.name})`, { timeout: 120_000 }, () => {

        let url: string;
        let drop: () => Promise<void>;
        let env: NodeJS.ProcessEnv;

        before(async () => {

            ({ url, drop } = await database.create());
            env = { DATABASE_URL: url, OSPREY_STRUCTURES: demoStructures, OSPREY_DATA_DIR: Fs.mkdtempSync(Path.join(Os.tmpdir(), 'osprey-cli-')) };
        });

        after(() => drop());

        test('makes the first administrator of an empty database, whom the server then lets in (the built command)', async () => {

            // Before there is any administrator, a user may come and go.
            expect((await inProcess(env, ['user', 'add', 'early'], 'Early-Bird-1234\n')).code).to.equal(0);
            expect((await inProcess(env, ['user', 'deactivate', 'early'])).code).to.equal(0);

            const added = await spawned(env, ['user', 'add', 'root1', '--group', 'MAXADMIN', '--displayname', 'First Admin'], 'Juniper-Cliff-73\n');
            expect(added.code, added.stderr).to.equal(0);
            expect(added.stdout).to.equal('User ROOT1 added, in EVERYONE, MAXADMIN.\n');

            const listed = await spawned(env, ['user', 'list']);
            expect(listed.code).to.equal(0);
            expect(listed.stdout).to.equal('EARLY\tINACTIVE\tEVERYONE\nROOT1\tACTIVE\tEVERYONE,MAXADMIN\n');

            const unknown = await spawned(env, ['user', 'add', 'x', '--grop', 'MAXADMIN']);
            expect(unknown.code).to.equal(2);
            expect(unknown.stderr).to.contain('user add has no option --grop');

            // No demo: the server starts on this database because the command made an administrator.
            const server = await startTestServer(database, { databaseUrl: url, demo: false });
            try {
                const whoami = await server.inject({ url: '/maximo/oslc/whoami', headers: maxauth('root1', 'Juniper-Cliff-73') });
                expect(whoami.statusCode).to.equal(200);
                expect(whoami.result.displayName).to.equal('First Admin');
            }
            finally {
                await server.server.stop();
            }
        });

        test('adds, lists, sets passwords, deactivates, unlocks, and refuses what it must', async () => {

            const run = (argv: string[], input?: string) => inProcess(env, argv, input);
            expect((await run(['group', 'add', 'crew', '--description', 'Field crew'])).stdout).to.equal('Group CREW added.\n');
            expect((await run(['group', 'add', 'ops', '--admin'])).stdout).to.equal('Group OPS added: its members are administrators.\n');
            expect((await run(['user', 'add', 'tech1', '--group=CREW'], 'Birch-Meadow-15\r\nignored\n')).code).to.equal(0);
            expect((await run(['user', 'add', 'ops1', '--group', 'ops', '--password', 'Cedar-Ridge-44', '--email', 'ops1@example.com', '--displayname', 'Ops One'])).code).to.equal(0);
            const listed = (await run(['user', 'list'])).stdout.split('\n');
            expect(listed).to.include(['TECH1\tACTIVE\tCREW,EVERYONE', 'OPS1\tACTIVE\tEVERYONE,OPS']);

            const refusals: [string[], string | undefined, number, string][] = [
                [['user', 'add', 'tech1'], 'Birch-Meadow-16', 1, 'exists already'],
                [['user', 'add', 'EVIL\n[22:00:00.000] INFO: forged'], 'Birch-Meadow-16', 1, 'is not allowed: a user ID has 1 to 30'],
                [['user', 'add', 'A'.repeat(31)], 'Birch-Meadow-16', 1, 'is not allowed'],
                [['user', 'add', 'tech3'], 'x'.repeat(201), 1, 'at most 200 characters'],
                [['user', 'add', 'tech2', '--group', 'CREW', '--group', 'NOSUCH'], 'Birch-Meadow-16', 1, 'There is no group NOSUCH'],
                [['user', 'add', 'tech2', '--grop', 'CREW'], undefined, 2, 'user add has no option --grop (it takes --group, --displayname, --email, --password)'],
                [['user'], undefined, 2, 'Unknown command "user"'],
                [['user', 'add', 'tech2'], 'short', 1, 'at least 8 characters (OSPREY_PASSWORD_MIN_LENGTH)'],
                // Measured in NFC, as the API measures it: five é typed as e + a combining accent are five characters.
                [['user', 'add', 'tech2'], 'e\u0301'.repeat(5), 1, 'at least 8 characters (OSPREY_PASSWORD_MIN_LENGTH)'],
                [['user', 'add', 'tech2'], 'iloveyou', 1, 'most common passwords'],
                [['user', 'add', 'tech2longid'], 'Tech2LongId', 1, 'cannot be the user ID'],
                [['user', 'passwd', 'nobody'], 'Birch-Meadow-16', 1, 'There is no user NOBODY'],
                [['user', 'deactivate', 'nobody'], undefined, 1, 'There is no user NOBODY'],
                [['user', 'unlock', 'nobody'], undefined, 1, 'There is no user NOBODY'],
                [['group', 'add', 'crew'], undefined, 1, 'The group CREW exists already'],
                [['group', 'add', 'bad name!'], undefined, 1, 'A group name has'],
                [['user', 'remove', 'tech1'], undefined, 2, 'Unknown command "user remove"'],
                [[], undefined, 2, 'No command given'],
                [['user', 'list', 'extra'], undefined, 2, 'user list takes no arguments; "extra" is one too many'],
                [['user', 'add'], undefined, 2, 'user add takes USERID'],
                [['user', 'add', 'x', '--password'], undefined, 2, '--password needs a value'],
                [['group', 'add', 'x', '--admin=yes'], undefined, 2, '--admin takes no value'],
                [['user', 'add', 'x', '--email', 'a', '--email', 'b'], undefined, 2, '--email is given twice'],
                [['user', 'list', '--config'], undefined, 2, '--config needs a file'],
                [['user', 'list', '--config', '/nonexistent/osprey.yaml'], undefined, 1, 'Cannot read config file'],
                [['user', 'list', '--config=/nonexistent/osprey.yaml'], undefined, 1, 'Cannot read config file'],
                [['user', 'list', '--constructor'], undefined, 2, 'user list has no option --constructor.']
            ];
            for (const [argv, input, code, message] of refusals) {
                const ran = await run(argv, input);
                expect(ran.code, argv.join(' ')).to.equal(code);
                expect(ran.stderr, argv.join(' ')).to.contain(message);
            }

            expect((await run(['user', 'passwd', 'tech1'], 'Birch-Meadow-16\n')).stdout).to.contain('The password of TECH1 is set');
            expect((await run(['user', 'deactivate', 'tech1'])).stdout).to.equal('TECH1 is inactive: their sessions have ended and they cannot log in.\n');
            expect((await run(['user', 'list'])).stdout).to.contain('TECH1\tINACTIVE\tCREW,EVERYONE');
            expect((await run(['user', 'activate', 'tech1'])).stdout).to.equal('TECH1 is active.\n');
            expect((await run(['user', 'unlock', 'tech1'])).stdout).to.equal('TECH1 was not locked.\n');
            expect((await run(['help'])).stdout).to.contain('user add USERID');

            // The last active administrator stays: ROOT1 and OPS1 are the administrators here.
            expect((await run(['user', 'deactivate', 'ops1'])).code).to.equal(0);
            const last = await run(['user', 'deactivate', 'root1']);
            expect(last.code).to.equal(1);
            expect(last.stderr).to.contain('ROOT1 is the last active administrator');

            // Groups added and removed by name; a refusal changes nothing; the last active administrator stays one.
            expect((await run(['user', 'groups', 'tech1', '--add', 'ops', '--add=MAXADMIN'])).stdout).to.equal('TECH1 is in CREW, EVERYONE, MAXADMIN, OPS.\n');
            expect((await run(['user', 'groups', 'tech1', '--remove', 'crew', '--remove', 'MAXADMIN'])).stdout).to.equal('TECH1 is in EVERYONE, OPS.\n');
            expect((await run(['user', 'groups', 'tech1'])).stdout).to.equal('TECH1 is in EVERYONE, OPS.\n');
            for (const [argv, code, message] of [
                [['user', 'groups', 'tech1', '--add', 'NOSUCH', '--remove', 'ops'], 1, 'There is no group NOSUCH'],
                [['user', 'groups', 'tech1', '--remove', 'crew'], 1, 'TECH1 is not in CREW: their groups are EVERYONE, OPS.'],
                [['user', 'groups', 'tech1', '--add', 'crew', '--remove', 'CREW'], 1, 'CREW is both added and removed'],
                [['user', 'groups', 'nobody', '--add', 'crew'], 1, 'There is no user NOBODY'],
                [['user', 'groups', 'tech1', '--add='], 1, 'A group name is empty: name the group.'],
                [['user', 'groups', 'tech1', '--drop', 'crew'], 2, 'user groups has no option --drop'],
                [['user', 'groups'], 2, 'user groups takes USERID']
            ] as [string[], number, string][]) {
                const ran = await run(argv);
                expect(ran.code, argv.join(' ')).to.equal(code);
                expect(ran.stderr, argv.join(' ')).to.contain(message);
            }

            expect((await run(['user', 'groups', 'tech1', '--remove', 'ops'])).code).to.equal(0);
            const lastGroup = await run(['user', 'groups', 'root1', '--remove', 'maxadmin']);
            expect(lastGroup.code).to.equal(1);
            expect(lastGroup.stderr).to.contain('ROOT1 is the last active administrator');
            expect((await run(['user', 'list'])).stdout.split('\n')).to.include(['ROOT1\tACTIVE\tEVERYONE,MAXADMIN', 'TECH1\tACTIVE\tEVERYONE']);

            // A lock from failed logins is lifted by unlock, and by a new password.
            const server = await startTestServer(database, { databaseUrl: url, demo: false });
            try {
                const knex = server.server.app.osprey.knex;
                // A user in no group is listed too.
                await server.server.app.osprey.users.create({ userid: 'lone', password: 'Lone-Wolf-123' });
                expect((await run(['user', 'list'])).stdout).to.contain('LONE\tACTIVE\t\n');
                await knex('osprey_loginfailure').insert({ name: 'user:TECH1', failures: 1000, since: Date.now() });
                const whoami = () => server.inject({ url: '/maximo/oslc/whoami', headers: maxauth('tech1', 'Birch-Meadow-16') });
                expect((await whoami()).statusCode).to.equal(429);
                expect((await run(['user', 'unlock', 'tech1'])).stdout).to.equal('TECH1 is unlocked.\n');
                expect((await whoami()).statusCode).to.equal(200);
                await knex('osprey_loginfailure').insert({ name: 'user:TECH1', failures: 1000, since: Date.now() });
                expect((await run(['user', 'passwd', 'tech1', '--password', 'Birch-Meadow-17'])).code).to.equal(0);
                expect((await server.inject({ url: '/maximo/oslc/whoami', headers: maxauth('tech1', 'Birch-Meadow-17') })).statusCode).to.equal(200);
            }
            finally {
                await server.server.stop();
            }
        });
    });
}

experiment('the osprey command on a database it cannot reach', () => {

    test('fails with the database\'s message, exit status 1', async () => {

        const ran = await inProcess({ DATABASE_URL: 'postgres://nobody@127.0.0.1:1/none', OSPREY_STRUCTURES: demoStructures }, ['user', 'list']);
        expect(ran.code).to.equal(1);
        expect(ran.stderr).to.startWith('osprey: ');
    });
});

experiment('the osprey command\'s password prompt', () => {

    test('asks twice without echo at a terminal, and refuses two that differ', async () => {

        const terminal = (typed: string) => {

            const input = new PassThrough() as PassThrough & { isTTY?: boolean };
            input.isTTY = true;
            const output = new PassThrough();
            let shown = '';
            output.on('data', (chunk) => (shown += chunk));
            setImmediate(() => input.write(typed));
            return { input: input as unknown as NodeJS.ReadStream, output: output as unknown as NodeJS.WriteStream, shown: () => shown };
        };

        const same = terminal('Secret-Word-1\nSecret-Word-1\n');
        expect(await readPassword(same.input, same.output)).to.equal('Secret-Word-1');
        expect(same.shown()).to.not.contain('Secret');
        expect(same.shown()).to.contain('Password again: ');

        const differ = terminal('Secret-Word-1\nSecret-Word-2\n');
        await expect(readPassword(differ.input, differ.output)).to.reject('The two passwords differ.');
    });
});
