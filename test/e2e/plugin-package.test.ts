import * as ChildProcess from 'node:child_process';
import * as Fs from 'node:fs';
import * as Os from 'node:os';
import * as Path from 'node:path';

import * as Code from '@hapi/code';
import * as Lab from '@hapi/lab';

import { testDatabases } from '../helpers/databases';
import { dataDir, startProcess } from '../helpers/process';
import { root } from '../helpers/server';


const { experiment, test } = exports.lab = Lab.script();
const { expect } = Code;

// README's "A plugin in its own folder": its shell lines run in a folder outside the checkout, the checkout linked
// as node_modules/osprey (what `npm install /path/to/osprey` makes; installing the packed tarball here would
// fetch and build every dependency, minutes of a test), and the server started from there as its last line says.

const readme = Fs.readFileSync(Path.join(root, 'README.md'), 'utf8');
const section = readme.slice(readme.indexOf('\n### A plugin in its own folder\n'), readme.indexOf('\n### Data access: the models\n'));
const script = /```sh\n([\s\S]*?)```/.exec(section)![1]!;

// A second plugin exporting `plugin`, and a third in TypeScript against Osprey's types, exporting `default`.
const named = `exports.plugin = {
    name: 'osprey-named',
    dependencies: ['osprey'],
    register: (server) => server.route({ method: 'GET', path: '/maximo/named', options: { auth: false, handler: () => ({ named: true }) } })
};
`;

const typed = `import { homeRoutes, maximoError, userOf, type UserProfile } from 'osprey';

const greeting = (user: UserProfile): string => \`Hello \${user.displayname ?? user.userid}\`;

export default {
    name: 'osprey-greet',
    dependencies: ['osprey'],
    register: (server: { route: (routes: ReturnType<typeof homeRoutes>) => void }) => server.route(homeRoutes('maximo', [{
        method: 'GET',
        path: '/greet/{who}',
        handler: (request) => {

            if (request.params.who !== 'me') {
                throw maximoError('notFound', \`Only me is greeted, not \${request.params.who}\`);
            }

            return { greeting: greeting(userOf(request)) };
        }
    }]))
};
`;

experiment('the package', () => {

    test('npm pack puts the built surface, the first-party plugins, the structures and the launcher in the tarball, and nothing else', () => {

        const packed = ChildProcess.spawnSync('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], { cwd: root, encoding: 'utf8' });
        expect(packed.status, packed.stderr).to.equal(0);
        const [{ name, files }] = JSON.parse(packed.stdout) as { name: string; files: { path: string }[] }[];
        expect(name).to.equal('osprey');
        const paths = files.map((file) => file.path);
        expect(paths).to.include(['package.json', 'README.md', 'dist/src/index.js', 'dist/src/index.d.ts', 'dist/src/main.js', 'dist/plugins/info/index.js', 'structures/mxapiwodetail.yaml', 'scripts/start.js']);
        const top = new Set(paths.map((path) => (path.startsWith('dist/') ? path.split('/').slice(0, 2).join('/') : path.split('/')[0])));
        expect([...top].sort()).to.equal(['README.md', 'dist/plugins', 'dist/src', 'package.json', 'scripts', 'structures']);
        expect(paths.filter((path) => path.endsWith('.ts') && !path.endsWith('.d.ts'))).to.equal([]);
    });
});

for (const database of testDatabases) {
    experiment(`a plugin in its own folder (${database.name})`, { timeout: 120_000 }, () => {

        test('depends on the package, is loaded by the server run from there, and each export style answers', async () => {

            const parent = Fs.mkdtempSync(Path.join(Os.tmpdir(), 'osprey-plugin-folder-'));
            const created = await database.create();
            try {
                // The README's lines but the last, which starts the server: run as written but for the checkout's path.
                const lines = script.trimEnd().split('\n');
                const start = lines.pop()!;
                const setup = ChildProcess.spawnSync('bash', ['-eo', 'pipefail', '-c', lines.join('\n').replaceAll('/path/to/osprey', root)], { cwd: parent, encoding: 'utf8' });
                expect(setup.status, setup.stderr).to.equal(0);
                const folder = Path.join(parent, 'osprey-hello');
                Fs.writeFileSync(Path.join(folder, 'named.js'), named);
                Fs.writeFileSync(Path.join(folder, 'greet.ts'), typed);

                // Compiled against the package's types (strict: an untyped `osprey` would be an error here).
                const tsc = ChildProcess.spawnSync(process.execPath, [require.resolve('typescript/bin/tsc'), '--strict', '--module', 'commonjs', '--target', 'es2022', '--skipLibCheck', '--types', 'node', '--typeRoots', Path.join(root, 'node_modules', '@types'), 'greet.ts'], { cwd: folder, encoding: 'utf8' });
                expect(tsc.status, tsc.stdout).to.equal(0);
                expect(Fs.readFileSync(Path.join(folder, 'greet.js'), 'utf8')).to.contain('exports.default = {');

                // The last line: its settings, and node on the package's main.js from the plugin's folder.
                const settings = Object.fromEntries([...start.matchAll(/(\w+)=(\S+)/g)].map(([, key, value]) => [key!, value!]));
                expect(settings).to.equal({ OSPREY_PLUGINS: './hello.js', OSPREY_STRUCTURES: 'node_modules/osprey/structures' });
                expect(start.endsWith(' node node_modules/osprey/dist/src/main.js')).to.be.true();
                const running = await startProcess({ ...settings, OSPREY_PLUGINS: './hello.js,./named.js,./greet.js', DATABASE_URL: created.url, OSPREY_DATA: dataDir() }, [process.execPath, 'node_modules/osprey/dist/src/main.js'], folder);
                try {
                    const home = `http://127.0.0.1:${running.port}/maximo`;
                    const wilson = { maxauth: Buffer.from('wilson:wilson').toString('base64') };
                    const hello = await fetch(`${home}/oslc/hello`, { headers: wilson });
                    expect(await hello.json()).to.equal({ hello: 'WILSON' });
                    expect((await fetch(`${home}/api/hello`)).status).to.equal(401);
                    const namedAnswer = await fetch(`${home}/named`);
                    expect(await namedAnswer.json()).to.equal({ named: true });
                    const greet = await fetch(`${home}/api/greet/me`, { headers: wilson });
                    expect((await greet.json() as { greeting: string }).greeting).to.match(/^Hello /);
                    const refused = await fetch(`${home}/api/greet/you`, { headers: wilson });
                    expect(refused.status).to.equal(404);
                    expect(await refused.text()).to.contain('Only me is greeted, not you');
                }
                finally {
                    expect(await running.stop()).to.equal(0);
                }

                // A module with none of the three exports stops the start, naming the file.
                Fs.writeFileSync(Path.join(folder, 'nothing.js'), 'exports.routes = [];\n');
                const refusal = ChildProcess.spawnSync(process.execPath, ['node_modules/osprey/dist/src/main.js'], { cwd: folder, encoding: 'utf8', env: { PATH: process.env.PATH, ...settings, OSPREY_PLUGINS: './nothing.js', DATABASE_URL: created.url, OSPREY_DATA: dataDir(), PORT: '0' } });
                expect(refusal.status).to.equal(1);
                expect(refusal.stderr).to.contain(`Plugin ./nothing.js: ${Fs.realpathSync(folder)}/nothing.js exports no hapi plugin`);
            }
            finally {
                await created.drop();
                Fs.rmSync(parent, { recursive: true, force: true });
            }
        });
    });
}
