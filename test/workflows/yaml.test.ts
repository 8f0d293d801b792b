import * as Path from 'node:path';

import * as Code from '@hapi/code';
import * as Lab from '@hapi/lab';

import { loadRegistry } from '../../src/load-registry';
import { StructureError } from '../../src/structures/problems';
import { fixtureCopies } from '../helpers/fixtures';
import { demoStructures, fixtures } from '../helpers/server';


const lab = exports.lab = Lab.script();
const { experiment, test } = lab;
const { expect } = Code;

// The demo's structures with `workflows:` of the work orders replaced by `yaml` (indented under workflows:).
const withWorkflows = (yaml: string) => {

    return (text: string, file: string) => (file === 'mxapiwodetail.yaml' ? text.replace(/^workflows:\n(?: {2}.*\n)+/m, `workflows:\n${yaml}`) : text);
};

const problemsOf = (dir: string): string[] => {

    try {
        loadRegistry(dir);
    }
    catch (err) {
        expect(err).to.be.an.instanceof(StructureError);
        return (err as StructureError).problems.map((problem) => `${Path.basename(problem.file)} at ${problem.path}: ${problem.message}`);
    }

    throw new Error('expected the structures to be rejected');
};

experiment('workflows in YAML', () => {

    const copyFixture = fixtureCopies(lab);
    const demo = Path.relative(fixtures, demoStructures);

    test('the demo workflow loads', () => {

        const registry = loadRegistry(demoStructures);
        expect(Object.keys(registry.get('MXAPIWODETAIL')!.def.workflows)).to.equal(['WOAPPROVE']);
        expect(registry.get('MXAPIWFASSIGNMENT')!.def.access.owner).to.equal('assigncode');
    });

    test('a misspelt name in a condition is named with the name meant', () => {

        const dir = copyFixture({
            from: demo, edit: withWorkflows(`\
  WOTYPO:
    condition: 'statsu="WAPPR"'
    start: first
    nodes:
      first: { if: 'woactivty.taskid=1', then: second }
      second: { if: 'memo="x"', then: third }
      third: { if: 'woactivity.nohop.x=1', then: fourth }
      fourth: { status: APPR }
`)
        });
        const problems = problemsOf(dir);
        expect(problems).to.include([
            'mxapiwodetail.yaml at workflows.WOTYPO.condition: statsu is not a stored attribute of WORKORDER; did you mean "status"?',
            'mxapiwodetail.yaml at workflows.WOTYPO.nodes.first.if: woactivty is not a child object or relationship of WORKORDER; did you mean "woactivity"?',
            'mxapiwodetail.yaml at workflows.WOTYPO.nodes.second.if: memo is not a stored attribute of WORKORDER',
            'mxapiwodetail.yaml at workflows.WOTYPO.nodes.third.if: nohop is not a child object or relationship of WOACTIVITY'
        ]);
    });

    test('a route to an unknown node, an unknown status, a bad condition or assignee, a loop without a task: each named with its file and node', () => {

        const dir = copyFixture({
            from: demo, edit: withWorkflows(`\
  WOBAD:
    condition: 'status=='
    start: first
    nodes:
      first: { if: 'nosuch="X"', then: second, else: nowhere }
      second: { status: DONE, next: third }
      third: { set: { wonum: X, statusdate: '2020-01-01', frobs: 1 }, next: first }
      stray: { action: wsmethod:changeStatus, next: stray2 }
      stray2: { if: 'woactivity.nosuch=1', then: stray }
`)
        });
        const problems = problemsOf(dir);
        const expected = [
            'at workflows.WOBAD.condition: workflow condition: expected a value, found "=" at column 8',
            'at workflows.WOBAD.nodes.first.if: nosuch is not a stored attribute of WORKORDER',
            'at workflows.WOBAD.nodes.first.else: node first routes to nowhere, which is not a node of the workflow',
            'at workflows.WOBAD.nodes.second.status: node second changes the status to DONE, which is not a status of MXAPIWODETAIL',
            'at workflows.WOBAD.nodes.third.set.wonum: node third sets wonum',
            'at workflows.WOBAD.nodes.third.set.statusdate: node third sets statusdate',
            'at workflows.WOBAD.nodes.third.set.frobs: node third sets frobs, which is not an attribute of WORKORDER',
            'at workflows.WOBAD.nodes.first: the nodes first → second → third → first loop without a task to wait at',
            'at workflows.WOBAD.nodes.stray2.if: woactivity.nosuch is not a stored attribute of WOACTIVITY',
            'at workflows.WOBAD.nodes.stray: the nodes stray → stray2 → stray loop without a task to wait at',
            'at workflows.WOBAD.nodes.stray: node stray is never reached from the start node first',
            'at workflows.WOBAD.nodes.stray2: node stray2 is never reached from the start node first'
        ];
        for (const text of expected) {
            expect(problems.some((problem) => problem.startsWith(`mxapiwodetail.yaml ${text}`)), `${text}\n${problems.join('\n')}`).to.equal(true);
        }

        expect(problems).to.have.length(expected.length);
    });

    test('the shape of nodes: one kind each, tasks with both routes, assignees as names', () => {

        const problems = problemsOf(copyFixture({
            from: demo, edit: withWorkflows(`\
  WOBAD:
    start: task
    nodes:
      task:
        task: { description: Do it, groups: [EVERYONE, planners] }
        positive: { instruction: Yes }
      both: { status: APPR, set: { lead: X } }
      none: { next: task }
`)
        }));
        const at = (path: string) => problems.filter((problem) => problem.startsWith(`mxapiwodetail.yaml at workflows.WOBAD.nodes.${path}:`)).map((problem) => problem.split(': ').slice(1).join(': '));
        expect(at('task.task.groups.0')).to.equal(['"groups[0]" contains an invalid value']);
        expect(at('task.task.groups.1')[0]).to.contain('fails to match the required pattern');
        expect(at('task')).to.equal(['"task" missing required peer "negative"']);
        expect(at('both')).to.equal(['"both" contains a conflict between exclusive peers [if, status, set, action, task]']);
        expect(at('none')).to.equal(['"none" must contain at least one of [if, status, set, action, task]']);
    });

    test('an unreachable node, an unknown start, a task without the assignment structure, a workflow named twice', () => {

        const unreachable = problemsOf(copyFixture({ from: demo, edit: withWorkflows('  WOONE:\n    start: a\n    nodes:\n      a: { status: APPR }\n      b: { status: CAN }\n') }));
        expect(unreachable).to.equal(['mxapiwodetail.yaml at workflows.WOONE.nodes.b: node b is never reached from the start node a']);
        const start = problemsOf(copyFixture({ from: demo, edit: withWorkflows('  WOONE:\n    start: z\n    nodes:\n      a: { status: APPR }\n') }));
        expect(start).to.equal(['mxapiwodetail.yaml at workflows.WOONE.start: the workflow starts at z, which is not one of its nodes (a)']);
        const noInbox = problemsOf(copyFixture({ from: demo, only: ['domains.yaml', 'mxapiwodetail.yaml', 'mxapiasset.yaml', 'mxapilocation.yaml', 'mxapiperson.yaml'] }));
        expect(noInbox).to.equal(['mxapiwodetail.yaml at workflows.WOAPPROVE.nodes.review.task: node review is a task, but no structure MXAPIWFASSIGNMENT (wfassignmentid, assigncode, processname, nodeid, ownertable, ownerid, description, assignstatus, startdate, enddate, duedate, memo, accepted, positiveinstruction, negativeinstruction) holds assignments']);
        const twice = problemsOf(copyFixture({
            from: demo,
            edit: (text, file) => (file === 'mxapiasset.yaml' ? `${text}\nworkflows:\n  WOAPPROVE:\n    start: a\n    nodes:\n      a: { status: OPERATING }\n` : text)
        }));
        expect(twice).to.equal(['mxapiwodetail.yaml at workflows.WOAPPROVE: the workflow WOAPPROVE is also declared by MXAPIASSET; a workflow\'s name is unique among all structures']);
    });
});
