import * as ChildProcess from 'node:child_process';
import * as Fs from 'node:fs';
import * as Os from 'node:os';
import * as Path from 'node:path';

import * as Code from '@hapi/code';
import * as Lab from '@hapi/lab';
import { ApiHome } from '@maximomize/maximo-api-client';

import { testDatabases } from '../helpers/databases';
import { clientBuilder } from '../helpers/npm-client';
import { dataDir, startProcess } from '../helpers/process';
import { root } from '../helpers/server';


const { experiment, test } = exports.lab = Lab.script();
const { expect } = Code;

// README's "Writing a plugin", followed literally: its files (the blocks whose info string says file=NAME) are
// written into a new folder outside the repository, the checkout is linked as its node_modules/osprey, the server
// process starts with OSPREY_PLUGINS naming plugin.js, and the chapter's curl and npm client calls run as written.
const chapter = (): string => {

    const readme = Fs.readFileSync(Path.join(root, 'README.md'), 'utf8');
    const start = readme.indexOf('\n### Writing a plugin\n');
    expect(start).to.be.above(0);
    return readme.slice(start, readme.indexOf('\n### ', start + 5));
};

const blocks = (text: string) => [...text.matchAll(/^```(\w+)( file=(\S+))?\n([\s\S]*?)^```$/gm)].map(([, lang, , file, body]) => ({ lang: lang!, file, body: body! }));

for (const database of testDatabases) {
    experiment(`the README chapter "Writing a plugin" (${database.name})`, { timeout: 60_000 }, () => {

        test('its plugin, linked to the checkout and named by OSPREY_PLUGINS, answers the chapter\'s curl and npm client calls', async () => {

            const parts = blocks(chapter());
            const files = parts.filter((part) => part.file);
            expect(files.map((part) => part.file)).to.equal(['package.json', 'plugin.js']);
            const folder = Fs.mkdtempSync(Path.join(Os.tmpdir(), 'osprey-notes-'));
            const created = await database.create();
            try {
                // The chapter's shell: a folder and the link (the checkout stands for /path/to/osprey).
                const setup = parts.find((part) => part.lang === 'sh' && part.body.includes('ln -s'))!.body.replace('/path/to/osprey', root).replace(/^mkdir osprey-notes && cd osprey-notes$/m, `cd ${folder}`);
                ChildProcess.execSync(setup, { shell: '/bin/bash' });
                for (const { file, body } of files) {
                    Fs.writeFileSync(Path.join(folder, file!), body);
                }

                const start = parts.find((part) => part.lang === 'sh' && part.body.includes('OSPREY_PLUGINS='))!.body;
                const plugins = /OSPREY_PLUGINS=(\S+)/.exec(start)![1]!.replace('/path/to/osprey-notes', folder);
                const running = await startProcess({ DATABASE_URL: created.url, OSPREY_DATA: dataDir(), OSPREY_PLUGINS: plugins });
                try {
                    const home = `http://127.0.0.1:${running.port}/maximo/oslc`;
                    const headers = { maxauth: Buffer.from('wilson:wilson').toString('base64') };
                    const read = async () => {

                        const res = await fetch(`${home}/os/mxapiwodetail?oslc.where=wonum="1001"&oslc.select=wonum,description&lean=1`, { headers });
                        const [record] = (await res.json() as { member: { href: string; description: string }[] }).member;
                        return { id: record!.href.split('/').pop()!, description: record!.description };
                    };

                    const before = await read();

                    // curl, as the chapter has it (its port the process's).
                    const curl = parts.find((part) => part.lang === 'sh' && part.body.includes('curl'))!.body.replace('localhost:8080', `127.0.0.1:${running.port}`);
                    const answer = JSON.parse(ChildProcess.execSync(curl, { shell: '/bin/bash', encoding: 'utf8' }));
                    expect(answer).to.equal({ description: `${before.description} [checked by curl]`.trim() });

                    // The npm client, as the chapter has it.
                    const client = clientBuilder(running.port).withCredentials('wilson', 'wilson').apiHome(ApiHome.OSLC).build();
                    const npm = parts.find((part) => part.lang === 'ts' && part.body.includes('webMethod'))!.body;
                    await new Function('client', 'id', `return (async () => {\n${npm}\n})();`)(client, before.id);
                    const after = await read();
                    expect(after.description).to.equal(`${before.description} [checked by curl] [checked by npm]`.trim());

                    // Its schema refuses a bad payload by name, and nothing changes.
                    const bad = await fetch(`${home}/os/mxapiwodetail/${before.id}?action=wsmethod:addNote`, { method: 'POST', headers: { ...headers, 'content-type': 'application/json' }, body: '{"note":""}' });
                    expect(bad.status).to.equal(400);
                    expect(await bad.text()).to.contain('note');
                    expect((await read()).description).to.equal(after.description);

                    // allowedactions lists it, with its description and the JSON schema of its payload.
                    const allowed = await fetch(`${home}/os/mxapiwodetail/${before.id}?oslc.select=allowedactions&lean=1`, { headers });
                    const addNote = (await allowed.json() as { allowedactions: Record<string, any> }).allowedactions.addNote;
                    expect(addNote).to.include({ httpmethod: 'POST', type: 'wsmethod', description: 'Add a note to the description' });
                    expect(addNote.schema.properties.note).to.include({ type: 'string' });
                }
                finally {
                    await running.stop();
                }
            }
            finally {
                Fs.rmSync(folder, { recursive: true, force: true });
                await created.drop();
            }
        });
    });
}
