import * as ChildProcess from 'node:child_process';
import * as Fs from 'node:fs';
import * as Path from 'node:path';

import * as Code from '@hapi/code';
import * as Lab from '@hapi/lab';

import { settingNames } from '../../src/config';
import { onEachDatabase } from '../helpers/experiments';
import { root } from '../helpers/server';


const lab = exports.lab = Lab.script();
const { before, test } = lab;
const { expect } = Code;

// The README's "Browsers and proxies" shell block, run as pasted against a listening server started with the
// settings its first line names (only the port differs): a failing example there is a failing test here.

const readme = Fs.readFileSync(Path.join(root, 'README.md'), 'utf8');
const section = readme.slice(readme.indexOf('### Browsers and proxies\n'), readme.indexOf('## Errors\n'));
const script = /```sh\n([\s\S]*?)```/.exec(section)![1]!;
const settings = Object.fromEntries(/^# ((?:OSPREY_\w+=\S+ ?)+)\n/.exec(script)![1]!.trim().split(' ').map((assignment) => {

    const [name, value] = assignment.split('=') as [string, string];
    return [settingNames[name]!, value];
}));

const bash = (text: string): Promise<{ status: number | null; stdout: string; stderr: string }> => {

    return new Promise((resolve) => {

        const child = ChildProcess.spawn('bash', ['-eo', 'pipefail', '-c', text]);
        let stdout = '';
        let stderr = '';
        child.stdout.on('data', (chunk) => (stdout += chunk));
        child.stderr.on('data', (chunk) => (stderr += chunk));
        child.on('close', (status) => resolve({ status, stdout, stderr }));
    });
};

onEachDatabase(lab, 'the README\'s browser and proxy examples', { settings: { ...settings, port: 0 } }, (t) => {

    before(() => t.server.start());

    test('run as written: a preflight answered, a 401 asking for Basic, hrefs on the proxy\'s public origin', async () => {

        expect(settings).to.equal({ corsOrigins: 'https://app.example.com', trustProxy: '1', publicOrigins: 'https://eam.example.com' });
        // Not spawnSync: the server answering curl runs in this process.
        const run = await bash(script.replaceAll('127.0.0.1:8080', `127.0.0.1:${t.server.info.port}`));
        expect(run.status, run.stderr).to.equal(0);
        expect(run.stdout.replaceAll('\r', '').split('\n')).to.equal([
            'HTTP/1.1 204 No Content',
            'access-control-allow-origin: https://app.example.com',
            'access-control-allow-methods: GET, HEAD, POST, PUT, PATCH, DELETE',
            'access-control-allow-credentials: true',
            'www-authenticate: Basic realm="Osprey", charset="UTF-8"',
            '"href":"https://eam.example.com/maximo/oslc/whoami"',
            ''
        ]);
    });
});
