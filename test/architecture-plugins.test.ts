import * as Fs from 'node:fs';
import * as Path from 'node:path';

import * as Code from '@hapi/code';
import * as Lab from '@hapi/lab';
import { ESLint } from 'eslint';


const { experiment, test } = exports.lab = Lab.script();
const { expect } = Code;

// Issue 17: the first-party plugins use Osprey only through its public surface, src/index.ts, as a user plugin
// does. eslint.config.js holds them to it.

const root = Path.join(__dirname, '..');
const rule = 'no-restricted-imports';

const plugins = (dir = Path.join(root, 'plugins')): string[] => {

    return Fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {

        const path = Path.join(dir, entry.name);
        return entry.isDirectory() ? plugins(path) : entry.name.endsWith('.ts') ? [Path.relative(root, path)] : [];
    });
};

// The messages of the surface rule for a plugin file of that text.
const refusals = async (code: string, filePath: string): Promise<string[]> => {

    const [result] = await new ESLint({ cwd: root }).lintText(code, { filePath });
    return result!.messages.filter((message) => message.ruleId === rule).map((message) => message.message);
};

experiment('the plugins\' public surface', () => {

    test('the rule refuses a module under src in a plugin, and accepts the package root', async () => {

        const deep = await refusals('import { header } from \'../../src/http/headers\';\nexport const x = header;\n', 'plugins/x/index.ts');
        expect(deep).to.have.length(1);
        expect(deep[0]).to.contain('public surface, src/index.ts');
        expect(await refusals('export { maximoError } from \'../../src/errors/maximo-error\';\n', 'plugins/x/y.ts')).to.have.length(1);
        expect(await refusals('import type { Db } from \'../../../src/db/db\';\nexport type X = Db;\n', 'plugins/x/y/z.ts')).to.have.length(1);

        for (const path of ['../../src', '../../src/index', '../../src/index.js', '../other/module', '@hapi/hapi']) {
            expect(await refusals(`import * as M from '${path}';\nexport const x = M;\n`, 'plugins/x/index.ts')).to.equal([]);
        }

        // Outside plugins/ (src itself, the tests) the rule does not hold; in plugins/resources it does, as anywhere.
        expect(await refusals('import { header } from \'../src/http/headers\';\nexport const x = header;\n', 'test/x.ts')).to.equal([]);
        expect(await refusals('import { header } from \'../../src/http/headers\';\nexport const x = header;\n', 'plugins/resources/x.ts')).to.have.length(1);
    });

    test('no first-party plugin imports a module under src other than the root', async () => {

        const files = plugins();
        expect(files).to.include([Path.join('plugins', 'resources', 'request.ts'), Path.join('plugins', 'auth', 'form.ts')]);
        const deep = /from '(\.\.\/)+src\/[^']+'/;
        for (const file of files) {
            const text = Fs.readFileSync(Path.join(root, file), 'utf8');
            expect(text, file).to.not.match(deep);
            expect(await refusals(text, file), file).to.equal([]);
        }
    });
});
