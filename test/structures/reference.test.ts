import * as Fs from 'node:fs';
import * as Os from 'node:os';
import * as Path from 'node:path';

import * as Code from '@hapi/code';
import * as Lab from '@hapi/lab';

import { referenceFile, writeReference } from '../../src/docs';
import { sections, yamlReference, type Description } from '../../src/structures/docs';
import { domainFileSchema, structureSchema } from '../../src/structures/schema';
import { root } from '../helpers/server';


const { experiment, test } = exports.lab = Lab.script();
const { expect } = Code;

experiment('the YAML reference', () => {

    test('is the one generated from the schema (run npm run docs after changing the schema)', () => {

        expect(Fs.readFileSync(Path.join(root, referenceFile), 'utf8')).to.equal(yamlReference());
        // What npm run docs writes.
        const dir = Fs.mkdtempSync(Path.join(Os.tmpdir(), 'osprey-docs-'));
        Fs.mkdirSync(Path.join(dir, 'docs'));
        writeReference(dir);
        const written = Fs.readFileSync(Path.join(dir, referenceFile), 'utf8');
        Fs.rmSync(dir, { recursive: true });
        expect(written).to.equal(yamlReference());
    });

    test('gives every key of every mapping a description and an example', () => {

        const all = [...sections(structureSchema.describe() as Description), ...sections(domainFileSchema.describe() as Description)];
        const missing = all.filter((section) => section.sameAs === undefined).flatMap((section) => Object.entries(section.description.keys!)
            .filter(([, item]) => !item.flags?.description || !item.examples?.length)
            .map(([name]) => `${section.path}.${name}`));
        expect(missing).to.equal([]);
        const reference = yamlReference();
        for (const path of ['attributes.NAME', '`children.NAME` with `attachments`', '`children.NAME` with `object`', 'relations.NAME', 'lookups.NAME', 'savedQueries.NAME.params.NAME', 'actions[]', 'reports[]', 'access', 'workflows.NAME.nodes.NAME.task', 'domains.NAME.values[]']) {
            expect(reference).to.contain(`### ${path.startsWith('`') ? path : `\`${path}\``}`);
        }

        expect(reference).to.contain('The same forms as [`children.NAME`](#childrenname-with-attachments).');
        expect(reference).to.contain('| `autokey` | boolean or mapping |');
    });

    test('is linked from the README', () => {

        expect(Fs.readFileSync(Path.join(root, 'README.md'), 'utf8')).to.contain('(docs/yaml-reference.md)');
    });
});
