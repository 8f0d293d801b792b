import * as Path from 'node:path';

import * as Code from '@hapi/code';
import * as Lab from '@hapi/lab';

import { loadRegistry } from '../../src/load-registry';
import { StructureError, type Problem } from '../../src/structures/problems';
import { fixtureCopies } from '../helpers/fixtures';
import { demoStructures, fixtures } from '../helpers/server';


const lab = exports.lab = Lab.script();
const { experiment, test } = lab;
const { expect } = Code;

const problemsOf = (dir: string): Problem[] => {

    try {
        loadRegistry(dir);
    }
    catch (err) {
        expect(err).to.be.an.instanceof(StructureError);
        return [...(err as StructureError).problems];
    }

    throw new Error('expected the structures to be rejected');
};

const minimal = (extra = '', attributes = '') => `\
name: MXONE
object: ONE
uniqueColumn: oneid
primaryKey: [onenum]
attributes:
  oneid: { type: bigint, generated: true }
  onenum: { type: upper, length: 10, required: true }
  status: { type: upper, length: 10, domain: TSTATUS }
${attributes}${extra}`;

experiment('structure loading', () => {

    const copyFixture = fixtureCopies(lab);
    // The files in a fresh folder; the valid fixture's domains come along unless replaced.
    const folder = (files: Record<string, string>) => copyFixture({ only: ['domains.yaml'], add: files });

    test('the demo structures and the valid fixture load', () => {

        const demo = loadRegistry(demoStructures);
        expect(demo.list().map((structure) => structure.name)).to.equal(['MXAPIAPIKEY', 'MXAPIASSET', 'MXAPILOCATION', 'MXAPIMAXGROUP', 'MXAPIMAXUSER', 'MXAPIPERSON', 'MXAPIWFASSIGNMENT', 'MXAPIWODETAIL']);
        expect(demo.domain('WOSTATUS')!.values.length).to.equal(8);
        const registry = loadRegistry(Path.join(fixtures, 'valid'));
        const pump = registry.get('mxTestPump')!;
        expect(pump.name).to.equal('MXTESTPUMP');
        expect(pump.root.table).to.equal('pump');
        expect(pump.root.attributes.get('status')!.default).to.equal('NEW');
        expect(pump.root.children.get('seal')!.object.table).to.equal('pumpseal');
        expect(pump.root.attachments).to.be.true();
        expect(registry.get('nothing')).to.not.exist();
        expect(registry.byObject('JOB')!.name).to.equal('MXTESTJOB');
        expect(registry.objects().map((object) => object.table)).to.equal(['job', 'pump', 'pumpseal']);
    });

    test('a file with three mistakes reports all three, each with file and path', () => {

        const problems = problemsOf(Path.join(fixtures, 'three-mistakes'));
        const file = Path.join(fixtures, 'three-mistakes', 'mxbroken.yaml');
        expect(problems.map((problem) => [problem.file, problem.path])).to.equal([
            [file, 'attributes.brokennum.type'],
            [file, 'attributes.description.length'],
            [file, 'attributes.status.colour']
        ]);
        expect(problems[0]!.message).to.contain('must be one of');
    });

    const invalid: { name: string; files: Record<string, string>; expected: [string, string, RegExp][] }[] = [
        { name: 'YAML syntax', files: { 'mxone.yaml': 'name: [unclosed' }, expected: [['mxone.yaml', '', /flow sequence|unexpected|missing/i]] },
        { name: 'not a mapping', files: { 'mxone.yaml': '- a\n- b\n' }, expected: [['mxone.yaml', '', /must hold a mapping/]] },
        { name: 'missing required keys', files: { 'mxone.yaml': 'name: MXONE\n' }, expected: [['mxone.yaml', 'object', /required/], ['mxone.yaml', 'uniqueColumn', /required/], ['mxone.yaml', 'primaryKey', /required/], ['mxone.yaml', 'attributes', /required/]] },
        { name: 'lower-case name', files: { 'mxone.yaml': minimal().replace('name: MXONE', 'name: mxone') }, expected: [['mxone.yaml', 'name', /pattern/]] },
        { name: 'file named after another structure', files: { 'other.yaml': minimal() }, expected: [['other.yaml', 'name', /must be in a file named mxone.yaml/]] },
        { name: 'unknown key attribute', files: { 'mxone.yaml': minimal().replace('primaryKey: [onenum]', 'primaryKey: [onenum, siteid]') }, expected: [['mxone.yaml', 'primaryKey.1', /"siteid" is not an attribute/]] },
        { name: 'non-persistent key', files: { 'mxone.yaml': minimal('', '  memo: { type: aln, persistent: false }\n').replace('primaryKey: [onenum]', 'primaryKey: [memo]') }, expected: [['mxone.yaml', 'primaryKey.0', /not persistent/]] },
        { name: 'index over an unknown attribute', files: { 'mxone.yaml': minimal().replace('primaryKey: [onenum]', 'primaryKey: [onenum]\nindexes: [[onenum, nothere]]') }, expected: [['mxone.yaml', 'indexes.0.1', /"nothere" is not a persistent attribute/]] },
        { name: 'unique column missing', files: { 'mxone.yaml': minimal().replace('uniqueColumn: oneid', 'uniqueColumn: nothere') }, expected: [['mxone.yaml', 'uniqueColumn', /"nothere" is not an attribute/]] },
        { name: 'unique column not numeric', files: { 'mxone.yaml': minimal().replace('uniqueColumn: oneid', 'uniqueColumn: onenum') }, expected: [['mxone.yaml', 'attributes.onenum.type', /must be bigint or integer/]] },
        { name: 'unknown domain', files: { 'mxone.yaml': minimal().replace('domain: TSTATUS', 'domain: NODOMAIN') }, expected: [['mxone.yaml', 'attributes.status.domain', /domain "NODOMAIN" does not exist/]] },
        { name: 'reserved attribute name', files: { 'mxone.yaml': minimal('', '  rowstamp: { type: bigint }\n') }, expected: [['mxone.yaml', 'attributes.rowstamp', /not allowed/]] },
        { name: 'relation to a missing structure', files: { 'mxone.yaml': minimal('relations:\n  other: { structure: MXNONE, join: { onenum: x } }\n') }, expected: [['mxone.yaml', 'relations.other.structure', /"MXNONE" does not exist/]] },
        { name: 'relation joins unknown attributes', files: { 'mxone.yaml': minimal('relations:\n  self: { structure: mxone, join: { nope: zip } }\n') }, expected: [['mxone.yaml', 'relations.self.join.nope', /"nope" is not an attribute of MXONE/], ['mxone.yaml', 'relations.self.join.nope', /"zip" is not an attribute of MXONE/]] },
        { name: 'child join unknown attributes', files: { 'mxone.yaml': minimal('children:\n  kid:\n    object: KID\n    uniqueColumn: kidid\n    primaryKey: [kidid]\n    join: { nope: zip }\n    attributes:\n      kidid: { type: bigint, generated: true }\n') }, expected: [['mxone.yaml', 'children.kid.join.nope', /"nope" is not an attribute of ONE/], ['mxone.yaml', 'children.kid.join.nope', /"zip" is not an attribute of KID/], ['mxone.yaml', 'children.kid.join', /must include every key of ONE \(onenum\) or its unique column oneid/]] },
        { name: 'child join that leaves out a key of its parent', files: { 'mxone.yaml': minimal('children:\n  kid:\n    object: KID\n    uniqueColumn: kidid\n    primaryKey: [kidid]\n    join: { status: status }\n    attributes:\n      kidid: { type: bigint, generated: true }\n      status: { type: upper, length: 10 }\n') }, expected: [['mxone.yaml', 'children.kid.join', /must include every key of ONE \(onenum\)/]] },
        { name: 'child with a wrong key', files: { 'mxone.yaml': minimal('children:\n  kid:\n    object: KID\n    uniqueColumn: kidid\n    primaryKey: [kidnum]\n    join: { onenum: onenum }\n    attributes:\n      kidid: { type: bigint, generated: true }\n      onenum: { type: upper }\n') }, expected: [['mxone.yaml', 'children.kid.primaryKey.0', /"kidnum" is not an attribute/]] },
        { name: 'lookup not declared', files: { 'mxone.yaml': minimal('', '  other: { type: upper, lookup: nolookup }\n') }, expected: [['mxone.yaml', 'attributes.other.lookup', /lookup "nolookup" is not declared/]] },
        { name: 'lookup of missing things', files: { 'mxone.yaml': minimal('lookups:\n  a: { structure: MXNONE, value: x }\n  b: { domain: NODOMAIN }\n  c: { structure: MXONE, value: nothere }\n') }, expected: [['mxone.yaml', 'lookups.a.structure', /does not exist/], ['mxone.yaml', 'lookups.b.domain', /does not exist/], ['mxone.yaml', 'lookups.c.value', /"nothere" is not an attribute/]] },
        { name: 'statuses outside the domain', files: { 'mxone.yaml': minimal('statuses:\n  NEW: [GONE]\nstatusHistory: nokid\n') }, expected: [['mxone.yaml', 'statuses.NEW', /"GONE" is not a value of domain TSTATUS/], ['mxone.yaml', 'statusHistory', /not a child/]] },
        { name: 'statuses without a status attribute', files: { 'mxone.yaml': minimal('statuses:\n  A: [B]\nstatusAttribute: state\n') }, expected: [['mxone.yaml', 'statusAttribute', /"state" is not an attribute/]] },
        {
            name: 'reports that cannot be rendered',
            files: { 'mxone.yaml': minimal('relations:\n  many: { structure: MXONE, cardinality: many, join: { onenum: onenum } }\nreports:\n  - { name: a.rptdesign, title: A, columns: [onenum, nothere] }\n  - { name: a.rptdesign, title: B, handler: custom, where: \"onenum=\" }\n  - { name: c.rptdesign, title: C, columns: [many.onenum, "onenum{x}"], where: "onenum=" }\n') },
            expected: [
                ['mxone.yaml', 'reports.0.columns', /nothere/],
                ['mxone.yaml', 'reports.1.name', /declared twice/],
                // A renderer's name is checked when the server starts (test/read/plugin-reports.test.ts); its where at load.
                ['mxone.yaml', 'reports.1.where', /expected a value/],
                ['mxone.yaml', 'reports.2.columns.0', /not one value/],
                ['mxone.yaml', 'reports.2.columns.1', /not one value/],
                ['mxone.yaml', 'reports.2.where', /expected a value/],
                ['mxone.yaml', 'reports.2.columns', /.+/]
            ]
        },
        {
            name: 'report keys of a wrong kind: a bad zone or pattern, a column without its name, a bom not true or false',
            files: { 'mxone.yaml': minimal('reports:\n  - { name: f.rptdesign, title: F, columns: [onenum], timezone: Mars/Olympus, dateFormat: "day", datetimeFormat: YYYY }\n  - { name: g.rptdesign, title: G, columns: [{ title: no name }], bom: maybe }\n') },
            expected: [
                ['mxone.yaml', 'reports.0.timezone', /"Mars\/Olympus", which is not a time zone/],
                ['mxone.yaml', 'reports.0.dateFormat', /is a date pattern of YYYY, MM, DD, HH, mm and ss \(YYYY-MM-DD HH:mm\), not day/],
                ['mxone.yaml', 'reports.1.columns.0.name', /required/],
                ['mxone.yaml', 'reports.1.bom', /must be a boolean/]
            ]
        },
        {
            name: 'report layouts that cannot be: a format on a text, groupBy and totals beside the columns',
            files: { 'mxone.yaml': minimal('relations:\n  same: { structure: MXONE, join: { onenum: onenum } }\nreports:\n  - name: e.rptdesign\n    title: E\n    columns: [{ name: onenum, format: YYYY }, status, { name: made, format: DD.MM.YYYY, title: Made, width: 90 }, same.status, qty, { name: day, format: DD.MM }]\n    groupBy: same.status\n    totals: [status, qty, nothere]\n  - { name: h.rptdesign, title: H, columns: [qty], groupBy: made }\n', '  made: { type: datetime }\n  qty: { type: decimal, scale: 3 }\n  day: { type: date }\n') },
            expected: [
                ['mxone.yaml', 'reports.0.columns.0.format', /onenum is not a date or datetime/],
                ['mxone.yaml', 'reports.0.groupBy', /same.status is not one of the report's columns that is an attribute of MXONE \(onenum, status, made, same.status, qty, day\)/],
                ['mxone.yaml', 'reports.0.totals.0', /status is not one of the report's numeric columns/],
                ['mxone.yaml', 'reports.0.totals.2', /nothere is not one of the report's numeric columns/],
                ['mxone.yaml', 'reports.1.groupBy', /made is not one of the report's columns/]
            ]
        },
        { name: 'a report without columns', files: { 'mxone.yaml': minimal('reports:\n  - { name: d.rptdesign, title: D }\n') }, expected: [['mxone.yaml', 'reports.0', /must contain at least one of \[columns, handler\]/]] },
        { name: 'duplicate structure', files: { 'mxone.yaml': minimal(), 'mxone.yml': minimal() }, expected: [['mxone.yml', 'name', /declared twice/]] },
        { name: 'duplicate table', files: { 'mxone.yaml': minimal(), 'mxtwo.yaml': minimal().replace('name: MXONE', 'name: MXTWO') }, expected: [['mxtwo.yaml', 'table', /already used by MXONE/]] },
        // One object in two tables would share its documents, owners and lookups between unrelated records.
        { name: 'one object, two tables', files: { 'mxone.yaml': minimal(), 'mxtwo.yaml': minimal('table: two\n').replace('name: MXONE', 'name: MXTWO') }, expected: [['mxtwo.yaml', 'object', /the object ONE is already served by MXONE \(table "one"\); its records' documents and owners are that structure's/]] },
        { name: 'duplicate domain and bad domain file', files: { 'more.yaml': 'domains:\n  TSTATUS:\n    values: [{ value: X }]\n', 'bad.yaml': 'domains:\n  lower: { values: [] }\n', 'mxone.yaml': minimal() }, expected: [['bad.yaml', 'domains.lower', /not allowed/], ['more.yaml', 'domains.TSTATUS', /declared twice/]] }
    ];

    for (const item of invalid) {
        test(`rejects: ${item.name}`, () => {

            const dir = folder(item.files);
            const problems = problemsOf(dir);
            expect(problems.map((problem) => [Path.basename(problem.file), problem.path])).to.equal(item.expected.map(([file, path]) => [file, path]));
            problems.forEach((problem, i) => expect(problem.message).to.match(item.expected[i]![2]));
        });
    }

    test('a name that reaches a prototype, an alias bomb and an alias before its anchor are problems with their place, not a crash', () => {

        const bomb = ['a: &a [x, x, x, x, x, x, x, x, x]', ...'bcdefgh'.split('').map((name, i) => `${name}: &${name} [${Array(9).fill(`*${'abcdefg'[i]}`).join(', ')}]`), `name: [${Array(9).fill('*h').join(', ')}]`].join('\n');
        const problems = problemsOf(folder({
            'mxone.yaml': minimal('', '  __proto__: { type: aln }\n'),
            'mxtwo.yaml': minimal('', '  constructor: { type: aln }\n').replace('MXONE', 'MXTWO').replace('ONE', 'TWO'),
            'mxbomb.yaml': bomb,
            'mxalias.yaml': 'name: MXALIAS\nextra: { <<: *x }\nx: &x { a: 1 }\n'
        }));
        const shown = problems.map((problem) => [Path.basename(problem.file), problem.line, problem.column, problem.message]);
        expect(shown).to.equal([
            ['mxalias.yaml', 1, 1, 'the YAML cannot be read: Unresolved alias (the anchor must be set before the alias): x'],
            ['mxbomb.yaml', 1, 1, 'the YAML cannot be read: Excessive alias count indicates a resource exhaustion attack'],
            ['mxone.yaml', 9, 3, '"__proto__" cannot be a name here: it is the name of a JavaScript object\'s own machinery; choose another'],
            ['mxtwo.yaml', 9, 3, '"constructor" cannot be a name here: it is the name of a JavaScript object\'s own machinery; choose another']
        ]);
    });

    test('a where (or value) on a lookup of a domain, which would be ignored, is refused where it is', () => {

        const [problem] = problemsOf(folder({ 'mxone.yaml': minimal('lookups:\n  status: { domain: TSTATUS, where: \'value="A"\' }\n') }));
        expect([problem!.path, problem!.line, problem!.message]).to.equal(['lookups.status', 10, 'a lookup of a domain offers all its values: where is for a lookup of a structure, and would be ignored here']);
    });

    test('a missing or empty folder is reported', () => {

        expect(problemsOf('/nonexistent/structures')[0]!.message).to.contain('does not exist');
        const empty = copyFixture({ only: [] });
        expect(problemsOf(empty)[0]!.message).to.contain('holds no object structure');
    });

    test('the error message lists every problem', () => {

        try {
            loadRegistry(Path.join(fixtures, 'three-mistakes'));
        }
        catch (err) {
            expect((err as Error).message).to.startWith('Object structures are not valid (3 problems):\n- ');
            expect((err as Error).message.split('\n')).to.have.length(4);
        }
    });
});
