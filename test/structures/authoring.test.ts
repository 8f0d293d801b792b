import * as Child from 'node:child_process';
import * as Fs from 'node:fs';
import * as Os from 'node:os';
import * as Path from 'node:path';

import * as Code from '@hapi/code';
import * as Lab from '@hapi/lab';
import * as Yaml from 'yaml';

import { ConfigError, loadOptions } from '../../src/config';
import { loadRegistry } from '../../src/load-registry';
import { positionOf } from '../../src/structures/positions';
import { StructureError } from '../../src/structures/problems';
import { editDistance, nearest } from '../../src/structures/suggest';
import { fixtureCopies } from '../helpers/fixtures';
import { dataDir } from '../helpers/process';
import { demoStructures, root } from '../helpers/server';


const lab = exports.lab = Lab.script();
const { experiment, test } = lab;
const { expect } = Code;

// The message of the error a folder's structures are refused with.
const refusal = (dir: string): string => {

    try {
        loadRegistry(dir);
    }
    catch (err) {
        expect(err).to.be.an.instanceof(StructureError);
        return (err as Error).message;
    }

    throw new Error('expected the structures to be rejected');
};

// `file:line:column` of the first `needle` in a file (of the `nth` character of it), as a problem names it.
const at = (file: string, needle: string, nth = 0): string => {

    const text = Fs.readFileSync(file, 'utf8');
    const offset = text.indexOf(needle);
    expect(offset).to.be.at.least(0);
    const before = text.slice(0, offset + nth).split('\n');
    return `${file}:${before.length}:${before[before.length - 1]!.length + 1}`;
};

// A copy of the shipped structures, each file changed by `edit`.
const made: string[] = [];
lab.after(() => made.splice(0).forEach((dir) => Fs.rmSync(dir, { recursive: true, force: true })));
const demoCopy = (edit: (text: string, file: string) => string): string => {

    const dir = Fs.mkdtempSync(Path.join(Os.tmpdir(), 'osprey-authoring-'));
    made.push(dir);
    for (const file of Fs.readdirSync(demoStructures)) {
        Fs.writeFileSync(Path.join(dir, file), edit(Fs.readFileSync(Path.join(demoStructures, file), 'utf8'), file));
    }

    return dir;
};

const edit = (file: string, change: (text: string) => string) => Fs.writeFileSync(file, change(Fs.readFileSync(file, 'utf8')));

const run = (script: string, dir: string): Promise<{ code: number | null; stderr: string }> => new Promise((resolve) => {

    const file = Path.join(root, 'dist', 'src', script);
    Child.execFile(process.execPath, [file, ...script === 'validate.js' ? [dir] : []], { cwd: root, env: { PATH: process.env.PATH, OSPREY_LOG: 'error', OSPREY_DATA: dataDir(), PORT: '0', DATABASE_URL: 'sqlite::memory:', OSPREY_STRUCTURES: dir } }, (err, _stdout, stderr) => {

        resolve({ code: err ? (err as Child.ExecFileException).code as number : 0, stderr });
    });
});

experiment('writing structures', { timeout: 60_000 }, () => {

    const copyFixture = fixtureCopies(lab);

    test('the edit distance counts a swap of neighbours as one, and a name far from every other has no suggestion', () => {

        expect(editDistance('titel', 'title')).to.equal(1);
        expect(editDistance('requried', 'required')).to.equal(1);
        expect(editDistance('', 'abc')).to.equal(3);
        expect(editDistance('kitten', 'sitting')).to.equal(3);
        expect(nearest('MXAPIASET', ['MXAPIWODETAIL', 'MXAPIASSET'])).to.equal('MXAPIASSET');
        expect(nearest('Title', ['title'])).to.equal('title');
        expect(nearest('colour', ['type', 'length', 'title'])).to.not.exist();
    });

    test('a misspelt top-level key, attribute key and relation target are each named at file:line:column with the name meant, in one run', () => {

        const dir = demoCopy((text, file) => {

            switch (file) {
                case 'mxapiperson.yaml': return text.replace(/^title:/m, 'titel:');
                case 'mxapiasset.yaml': return text.replace('required: true', 'requried: true');
                case 'mxapiwodetail.yaml': return text.replace('structure: MXAPIASSET, cardinality', 'structure: MXAPIASET, cardinality');
                default: return text;
            }
        });
        const message = refusal(dir);
        expect(message).to.startWith('Object structures are not valid (3 problems):\n');
        expect(message).to.contain(`- ${at(Path.join(dir, 'mxapiperson.yaml'), 'titel:')} at titel: "titel" is not allowed; did you mean "title"?`);
        expect(message).to.match(new RegExp(`- ${at(Path.join(dir, 'mxapiasset.yaml'), 'requried:').replace(/[.]/g, '\\.')} at attributes\\.\\w+\\.requried: "requried" is not allowed; did you mean "required"\\?`));
        expect(message).to.contain(`- ${at(Path.join(dir, 'mxapiwodetail.yaml'), 'MXAPIASET')} at relations.asset.structure: structure "MXAPIASET" does not exist; did you mean "MXAPIASSET"?`);
    });

    test('a misspelt setting in a config file is named with the setting meant', () => {

        const dir = Fs.mkdtempSync(Path.join(Os.tmpdir(), 'osprey-authoring-'));
        made.push(dir);
        const file = Path.join(dir, 'osprey.yaml');
        Fs.writeFileSync(file, 'logLevl: debug\n');
        expect(() => loadOptions({}, file)).to.throw(ConfigError, 'Invalid configuration:\n- osprey.yaml: logLevl: "logLevl" is not allowed; did you mean "logLevel"?');
    });

    test('names a structure refers to are checked with the name meant: keys, unique column, owner, joins, lookups, domains, statuses', () => {

        const dir = copyFixture({
            edit: (text, file) => (file === 'mxtestpump.yaml' ? text
                .replace('primaryKey: [siteid, pumpnum]', 'primaryKey: [siteid, pumpnm]')
                .replace('uniqueColumn: pumpid', 'uniqueColumn: pumpdi')
                .replace('domain: TSTATUS', 'domain: TSTATSU')
                .replace('join: { pumpnum: pumpnum, siteid: siteid } }', 'join: { pumpnum: pumpnm, siteid: siteid } }')
                .replace('statuses:\n  NEW: [DONE]', 'statusHistory: sael\naccess: { owner: descripton }\nlookups:\n  kind: { domain: TSTATU }\n  job: { structure: MXTESTJOB, value: jobnm }') : text)
        });
        const message = refusal(dir);
        const pump = Path.join(dir, 'mxtestpump.yaml');
        expect(message).to.contain(`- ${at(pump, 'pumpnm]')} at primaryKey.1: "pumpnm" is not an attribute; did you mean "pumpnum"?`);
        expect(message).to.contain(`- ${at(pump, 'pumpdi')} at uniqueColumn: "pumpdi" is not an attribute; did you mean "pumpid"?`);
        expect(message).to.contain(`- ${at(pump, 'TSTATSU')} at attributes.status.domain: domain "TSTATSU" does not exist; did you mean "TSTATUS"?`);
        expect(message).to.contain(`at relations.jobs.join.pumpnum: "pumpnm" is not an attribute of MXTESTJOB; did you mean "pumpnum"?`);
        expect(message).to.contain(`- ${at(pump, 'sael')} at statusHistory: "sael" is not a child of MXTESTPUMP; did you mean "seal"?`);
        expect(message).to.contain(`- ${at(pump, 'descripton')} at access.owner: "descripton" is not a stored attribute of PUMP; did you mean "description"?`);
        expect(message).to.contain(`- ${at(pump, 'TSTATU }')} at lookups.kind.domain: domain "TSTATU" does not exist; did you mean "TSTATUS"?`);
        expect(message).to.contain(`- ${at(pump, 'jobnm')} at lookups.job.value: "jobnm" is not an attribute of MXTESTJOB; did you mean "jobnum"?`);

        // A name that is there but cannot be used so has no suggestion.
        const stored = copyFixture({ edit: (text, file) => (file === 'mxtestpump.yaml' ? `${text.replace('  ratedkw: { type: integer, index: true }', '  ratedkw: { type: integer, index: true }\n  memo: { type: aln, persistent: false }')}indexes: [[memo]]\naccess: { owner: memo }\n` : text) });
        const refused = refusal(stored);
        expect(refused).to.contain('at indexes.0.0: "memo" is not a persistent attribute and cannot be indexed\n');
        expect(refused).to.endWith('at access.owner: "memo" is not a stored attribute of PUMP');
    });

    test('a key that is not allowed in a list\'s item or a domains file gets the key meant; a file that cannot be read or is empty is named', () => {

        const dir = copyFixture({
            edit: (text, file) => (file === 'domains.yaml' ? text.replace('    values:', '    valuse:') : file === 'mxtestpump.yaml' ? `${text}reports:\n  - { name: a.rptdesign, title: A, titel: A, columns: [pumpnum] }\n` : text),
            add: { 'empty.yaml': '' }
        });
        // The keys of a child: of either of its forms (an object, or `attachments: true`).
        edit(Path.join(dir, 'mxtestpump.yaml'), (text) => text.replace('    object: PUMPSEAL', '    object: PUMPSEAL\n    tabel: seal').replace('      sealnum: { type: integer, required: true }', '      sealnum: { type: integer, requried: true }').replace('statuses:', 'lookups:\n  other: { structure: MXTESTJBO, value: x, where: "x=1" }\nstatuses:'));
        Fs.mkdirSync(Path.join(dir, 'folder.yaml'));
        const message = refusal(dir);
        expect(message).to.contain(`- ${at(Path.join(dir, 'domains.yaml'), 'valuse')} at domains.TSTATUS.valuse: "valuse" is not allowed; did you mean "values"?`);
        expect(message).to.contain(`- ${at(Path.join(dir, 'mxtestpump.yaml'), 'titel')} at reports.0.titel: "titel" is not allowed; did you mean "title"?`);
        expect(message).to.contain(`- ${Path.join(dir, 'empty.yaml')}: the file must hold a mapping`);
        expect(message).to.contain(`- ${Path.join(dir, 'folder.yaml')}: the file cannot be read (EISDIR)`);
        expect(message).to.contain(`- ${at(Path.join(dir, 'mxtestpump.yaml'), 'tabel')} at children.seal.tabel: "tabel" is not allowed; did you mean "table"?`);
        expect(message).to.contain(`- ${at(Path.join(dir, 'mxtestpump.yaml'), 'requried')} at children.seal.attributes.sealnum.requried: "requried" is not allowed; did you mean "required"?`);
        // A lookup of a structure that is not there: its where is parsed, not resolved.
        expect(message).to.contain('at lookups.other.structure: structure "MXTESTJBO" does not exist; did you mean "MXTESTJOB"?');
        expect(message).to.not.contain('lookups.other.where');
    });

    test('a problem\'s path that goes on past a value is placed at the value', () => {

        const lines = new Yaml.LineCounter();
        const document = Yaml.parseDocument('name: MXONE\nlist: [a, b]\n', { lineCounter: lines });
        expect(positionOf(document, lines, ['name', 'deeper'])).to.equal({ line: 1, column: 7 });
        expect(positionOf(document, lines, ['list', '1'])).to.equal({ line: 2, column: 11 });
        expect(positionOf(document, lines, ['list', '5'])).to.not.exist();
    });

    test('a syntax error shows the parser\'s excerpt under its file:line:column', () => {

        const dir = copyFixture({ only: ['domains.yaml'], add: { 'mxone.yaml': 'name: MXONE\nobject: ONE\nattributes: { a: [x }\n' } });
        const message = refusal(dir);
        const lines = message.split('\n');
        const first = lines.findIndex((line) => line.startsWith(`- ${Path.join(dir, 'mxone.yaml')}:3:`));
        expect(first).to.be.above(0);
        expect(lines[first + 1]).to.equal('    attributes: { a: [x }');
        expect(lines[first + 2]).to.match(/^ {4}\s*\^+$/);
    });

    test('every broken file is reported in one run, and a file that does not load is not reported missing by the files that name it', () => {

        const dir = copyFixture({
            edit: (text, file) => (file === 'mxtestjob.yaml' ? `${text}  broken: [\n` : text.replace('title: Pumps', 'title: Pumps\ncolour: red').replace('primaryKey: [siteid, pumpnum]', 'primaryKey: [siteid, pumpnumber]'))
        });
        const message = refusal(dir);
        const job = Path.join(dir, 'mxtestjob.yaml');
        const pump = Path.join(dir, 'mxtestpump.yaml');
        expect(message).to.contain(`- ${job}:14:1: `);
        expect(message).to.contain(`- ${at(pump, 'colour')} at colour: "colour" is not allowed`);
        // A file with only keys that are not allowed is still linked in the same run.
        expect(message).to.contain(`- ${at(pump, 'pumpnumber')} at primaryKey.1: "pumpnumber" is not an attribute; did you mean "pumpnum"?`);
        expect(message).to.not.contain('"MXTESTJOB" does not exist');
        expect(message).to.contain(`- ${job}:1:1: the structure in this file did not load, so these references to it are not checked: ${pump} at relations.jobs.structure`);
        expect(message.match(/did not load/g)).to.have.length(1);

        // A file whose schema fails is left out of the links likewise, by the name it declares, or else by its file's.
        const both = copyFixture({ edit: (text, file) => (file === 'mxtestjob.yaml' ? text.replace('uniqueColumn: jobid', 'uniqueColumn: 7') : text) });
        const second = refusal(both);
        expect(second).to.contain(`at uniqueColumn: "uniqueColumn" must be a string`);
        expect(second).to.contain(`the structure in this file did not load, so these references to it are not checked: ${Path.join(both, 'mxtestpump.yaml')} at relations.jobs.structure`);
        expect(second).to.not.contain('does not exist');
        const nameless = copyFixture({ edit: (text, file) => (file === 'mxtestjob.yaml' ? text.replace('name: MXTESTJOB\n', '') : text.replace('statuses:', 'lookups:\n  job: { structure: MXTESTJOB, value: jobnum }\nstatuses:')) });
        expect(refusal(nameless)).to.contain(`the structure in this file did not load, so these references to it are not checked: ${Path.join(nameless, 'mxtestpump.yaml')} at relations.jobs.structure; ${Path.join(nameless, 'mxtestpump.yaml')} at lookups.job.structure`);
    });

    experiment('a where with a typo', () => {

        // A lookup's (on the looked-up structure), a saved query's and a report's where, each with a misspelt attribute.
        const typos = (text: string, file: string) => {

            if (file === 'mxtestjob.yaml') {
                return text.replace('pump: { structure: MXTESTPUMP, value: pumpnum }', 'pump: { structure: MXTESTPUMP, value: pumpnum, where: \'siteid=:siteid and stauts="NEW"\' }');
            }

            return file === 'mxtestpump.yaml' ? `${text}savedQueries:\n  NEWPUMPS: { title: New pumps, where: "statsu=\\"NEW\\"" }\nreports:\n  - name: p.rptdesign\n    title: Pumps of a site\n    columns: [pumpnum]\n    where: sitied=:site\n` : text;
        };

        const expected = (dir: string) => [
            `- ${at(Path.join(dir, 'mxtestjob.yaml'), 'stauts')} at lookups.pump.where: stauts is not an attribute of PUMP; did you mean "status"?`,
            `- ${at(Path.join(dir, 'mxtestpump.yaml'), 'statsu')} at savedQueries.NEWPUMPS.where: statsu is not an attribute of PUMP; did you mean "status"?`,
            `- ${at(Path.join(dir, 'mxtestpump.yaml'), 'sitied')} at reports.0.where: sitied is not an attribute of PUMP; did you mean "siteid"?`
        ];

        test('stops the load at the file, line and column of the misspelt name', () => {

            const dir = copyFixture({ edit: typos });
            const message = refusal(dir);
            expect(message.split('\n').slice(1)).to.equal(expected(dir));
        });

        test('fails npm run validate and the start, with file:line:column', async () => {

            const dir = copyFixture({ edit: typos });
            const validate = await run('validate.js', dir);
            expect(validate.code).to.equal(1);
            expect(validate.stderr.trim().split('\n').slice(1)).to.equal(expected(dir));
            const start = await run('main.js', dir);
            expect(start.code).to.equal(1);
            expect(start.stderr.trim().split('\n').slice(1)).to.equal(expected(dir));
        });

        test('a parameter a where reads must be an attribute of the record (a lookup) or a declared parameter (a saved query)', () => {

            const dir = copyFixture({
                edit: (text, file) => (file === 'mxtestjob.yaml' ? text.replace('pump: { structure: MXTESTPUMP, value: pumpnum }', 'pump: { structure: MXTESTPUMP, value: pumpnum, where: "siteid=:sitied" }') : file === 'mxtestpump.yaml' ? `${text}savedQueries:\n  ATSITE: { title: At a site, where: "siteid=:sit", params: { site: { type: upper } } }\n  BROKEN: { title: Broken, where: "siteid=" }\n  FOLDED:\n    title: Folded\n    where: >-\n      siteid="A" and\n      nothere=1\n` : text)
            });
            const message = refusal(dir);
            const job = Path.join(dir, 'mxtestjob.yaml');
            const pump = Path.join(dir, 'mxtestpump.yaml');
            expect(message).to.contain(`- ${at(job, 'siteid=:sitied', 7)} at lookups.pump.where: :sitied is not an attribute of JOB, whose pumpnum the lookup checks; did you mean "siteid"?`);
            expect(message).to.contain(`- ${at(pump, 'siteid=:sit"', 7)} at savedQueries.ATSITE.where: :sit is not declared under savedQueries.ATSITE.params; did you mean "site"?`);
            expect(message).to.contain(`- ${at(pump, 'siteid="', 7)} at savedQueries.BROKEN.where: expected a value, found end of text`);
            // A where over several lines is placed at its start.
            expect(message).to.contain(`- ${at(pump, '>-')} at savedQueries.FOLDED.where: nothere is not an attribute of PUMP`);
        });

        test('through a relation to a structure that did not load is not compiled, and the relation\'s file says so', () => {

            const dir = copyFixture({
                edit: (text, file) => (file === 'mxtestjob.yaml' ? `${text}oops: [\n` : file === 'mxtestpump.yaml' ? `${text}savedQueries:\n  WITHJOBS: { title: With jobs, where: "jobs.jobnum=\\"1\\" and seal{sealnum=1} and not status=\\"X\\"" }\n` : text)
            });
            const message = refusal(dir);
            expect(message).to.not.contain('WITHJOBS');
            expect(message).to.contain('did not load');
        });

        test('names what a name through a child or a relation could have meant, and a value of the wrong type', () => {

            const dir = copyFixture({
                edit: (text, file) => (file === 'mxtestpump.yaml' ? `${text}savedQueries:\n  A: { title: A, where: "not status=\\"NEW\\" and seal{sealnm=1}" }\n  B: { title: B, where: "jobs.jobnm=\\"1\\"" }\n  C: { title: C, where: "nothere.x=1" }\n  D: { title: D, where: "flow=\\"fast\\"" }\n` : text)
            });
            const message = refusal(dir);
            expect(message).to.contain('at savedQueries.A.where: sealnm is not an attribute of PUMPSEAL; did you mean "sealnum"?');
            expect(message).to.contain('at savedQueries.B.where: jobnm is not an attribute of JOB; did you mean "jobnum"?');
            expect(message).to.contain('at savedQueries.C.where: nothere is not an attribute, child object or relationship of PUMP\n');
            expect(message).to.contain('at savedQueries.D.where: flow is a number; "fast" is not');
        });
    });

    test('the shipped structures and the fixtures validate', () => {

        expect(loadRegistry(demoStructures).list()).to.have.length(8);
        for (const name of ['valid', 'authz', 'secrets']) {
            expect(loadRegistry(Path.join(root, 'test', 'fixtures', 'structures', name)).list().length).to.be.above(0);
        }
    });
});
