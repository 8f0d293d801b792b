import * as Code from '@hapi/code';
import * as Lab from '@hapi/lab';

import { evaluateGoals } from '../bench/goals';
import type { ScenarioResult } from '../bench/report';


const { experiment, test } = exports.lab = Lab.script();
const { expect } = Code;

const measured = (rps: number) => ({ requests: rps * 10, seconds: 10, rps, p50: 1, p99: 2, errors: 0 });

const statusScenario = (name: string, osprey: number, hapi?: number): ScenarioResult => ({
    name, title: name, connections: 10, status: 'measured',
    measurements: { osprey: measured(osprey), ...hapi === undefined ? {} : { hapi: measured(hapi) } }
});

const actionGoal = (results: ScenarioResult[]) => evaluateGoals(results, 200_000).find((goal) => goal.goal.startsWith('wsmethod:changeStatus: cost'))!;

// The action's cost beside the PATCH's is judged against the (b) each was measured in alternation with (the same
// route for both), so that the database's drift between the two scenarios is not taken for the action's cost.
experiment('bench goals: the action\'s cost beside the PATCH\'s', () => {

    test('a drop (b) shows as well is drift, not cost: the figures of a full quiet SQLite run meet it', () => {

        const goal = actionGoal([statusScenario('status-patch', 3050, 3247), statusScenario('status-action', 1852, 2292)]);
        expect(goal.met).to.equal(true);
        expect(goal.value).to.startWith('1.16 × the PATCH\'s cost (0.81 vs 0.94 × (b); 1852 vs 3050 req/s, (b) 2292 vs 3247)');
    });

    test('an action slower where (b) is not is its cost, and fails the goal', () => {

        const goal = actionGoal([statusScenario('status-patch', 3000, 3000), statusScenario('status-action', 2000, 3000)]);
        expect(goal.met).to.equal(false);
        expect(goal.value).to.startWith('1.50 × ');
    });

    test('without (b) (a --profile run) the goal stays open', () => {

        const goal = actionGoal([statusScenario('status-patch', 3000), statusScenario('status-action', 2000)]);
        expect(goal.met).to.equal(null);
    });
});
