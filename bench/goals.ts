import { ratios, type Goal, type ScenarioResult } from './report';


// The issue's targets, checked against one run. A scenario that was not measured leaves its goal open (n/a).
export const evaluateGoals = (results: ScenarioResult[], workorders: number): Goal[] => {

    const find = (name: string) => results.find((result) => result.name === name);
    const open = (name: string) => {

        const found = find(name);
        return { value: found ? `${found.status}${found.reason ? ` (${found.reason})` : ''}` : 'not run', met: null };
    };

    const rows = workorders === 200_000 ? '' : ` (this run: ${workorders.toLocaleString('en-US')} work orders)`;

    const ratioGoal = (name: string, label: string, least = 0.8): Goal => {

        const found = find(name);
        const value = found && ratios(found, 'hapi').rps;
        return { goal: `${label}: req/s ≥ ${least} × baseline (b)`, ...(value === undefined ? open(name) : { value: `${value.toFixed(2)} × (b)`, met: value >= least }) };
    };

    const latencyGoal = (name: string, label: string): Goal => {

        const single = find(name)?.singleConnection?.p50;
        const loaded = find(name)?.measurements.osprey?.p50;
        return { goal: `${label} on 200,000 work orders: p50 < 50 ms at one connection${rows}`, ...(single === undefined ? open(name) : { value: `p50 ${single.toFixed(1)} ms (${loaded!.toFixed(1)} ms at the run's connections)`, met: single < 50 }) };
    };

    const memoryGoal = (name: string, label: string): Goal => {

        const peak = find(name)?.measurements.osprey?.peakRssMb;
        return { goal: `${label}: server RSS < 300 MB`, ...(peak === undefined ? open(name) : { value: `peak ${peak} MB`, met: peak < 300 }) };
    };

    // Issue 35: an action costs at most 1.2 × the PATCH it amounts to, both measured in this run. The two
    // scenarios run minutes apart, the second on a database the first has grown (a full run on a quiet machine:
    // (b)'s own identical route answered 3,247 req/s in status-patch and 2,292 in status-action), so each is taken
    // against the (b) measured in alternation with it — one route for both (bench/baseline-routes.ts) — and the
    // cost is the ratio of those ratios. The raw req/s stay in the value.
    const actionGoal = (): Goal => {

        const goal = 'wsmethod:changeStatus: cost ≤ 1.2 × the PATCH of status\'s, each against its (b) (this run)';
        const action = find('status-action');
        const patch = find('status-patch');
        const actionRatio = action && ratios(action, 'hapi').rps;
        const patchRatio = patch && ratios(patch, 'hapi').rps;
        if (actionRatio === undefined || patchRatio === undefined) {
            return { goal, ...open(actionRatio === undefined ? 'status-action' : 'status-patch') };
        }

        const cost = patchRatio / actionRatio;
        const raw = `${action!.measurements.osprey!.rps} vs ${patch!.measurements.osprey!.rps} req/s, (b) ${action!.measurements.hapi!.rps} vs ${patch!.measurements.hapi!.rps}`;
        return { goal, value: `${cost.toFixed(2)} × the PATCH's cost (${actionRatio.toFixed(2)} vs ${patchRatio.toFixed(2)} × (b); ${raw})`, met: cost <= 1.2 };
    };

    return [
        // Issue 19: every scenario at 0.8 × (b) or better.
        ratioGoal('member', 'member GET'),
        ratioGoal('query', 'query page'),
        ratioGoal('query-count', 'query page with collectioncount'),
        ratioGoal('count', 'count=1'),
        ratioGoal('children', 'page with children and a relation'),
        ratioGoal('lookup', 'lookup page'),
        ratioGoal('report', 'CSV report'),
        ratioGoal('create', 'create'),
        ratioGoal('update', 'update'),
        ratioGoal('status-patch', 'status change by PATCH'),
        ratioGoal('status-action', 'status change by wsmethod:changeStatus'),
        actionGoal(),
        ratioGoal('bulk', 'bulk of 1,000 creates'),
        // Issue 36 sets no ratio. Osprey hashes every byte twice (each chunk's SHA-256 and the document's, about
        // 2.2 ms per MB each on the 2-core machine of docs/performance.md) and writes or reads it in the database,
        // where (b) only streams it: the goal is a quarter of (b), not 0.8.
        ratioGoal('attach-download', 'download of a 1 MB attachment', 0.25),
        ratioGoal('attach-upload', 'upload of a 1 MB attachment', 0.25),
        latencyGoal('count', 'count=1'),
        latencyGoal('query-count', 'collectioncount=1'),
        memoryGoal('report', '10,000-row CSV report'),
        memoryGoal('bulk', 'bulk of 1,000 creates')
    ];
};
