import * as Code from '@hapi/code';
import * as Lab from '@hapi/lab';
import * as fc from 'fast-check';

import { onEachDatabase } from '../helpers/experiments';
import { adminSettings, commandArbitraries, Harness } from './model/commands';
import { emptyState } from './model/reference';
import { loadModelStructures, modelFixtures } from './model/schema';


const lab = exports.lab = Lab.script();
const { test, before } = lab;
const { expect } = Code;

// A model-based test of the whole write API (test/records/model/): random sequences of creates, updates, merges,
// syncs, deletes and bulks over three related structures (test/fixtures/model) go through the real server and
// through an in-memory model of what the API promises; after every request its status and every row of every
// table must be what the model says, and a refused request must leave every row (rowstamps included) as it
// was. 200 sequences of up to 10 requests per database by default; OSPREY_MODEL_RUNS sets how many,
// OSPREY_MODEL_SEED replays a run.
const runs = Number(process.env.OSPREY_MODEL_RUNS ?? 200);
const seed = process.env.OSPREY_MODEL_SEED === undefined ? undefined : Number(process.env.OSPREY_MODEL_SEED);
const structures = loadModelStructures();

onEachDatabase(lab, 'the write API against a model of every table', { settings: { ...adminSettings, structures: modelFixtures } }, (t, database) => {

    let harness: Harness;
    before(() => {

        harness = new Harness(t, structures);
    });

    test(`${runs} random sequences of writes leave every table as the model says`, { timeout: Math.max(300_000, runs * 1000) }, async () => {

        const { opening, step } = commandArbitraries(structures);
        await fc.assert(fc.asyncProperty(opening, fc.commands([step], { maxCommands: 12, size: 'max' }), async (first, then) => {

            await harness.reset();
            await fc.asyncModelRun(() => ({ model: { state: emptyState(structures) }, real: harness }), [...first, ...then]);
        }), { numRuns: runs, seed, includeErrorInReport: true });
        expect(harness.requests).to.be.above(runs);
        if (process.env.OSPREY_MODEL_STATS) {
            console.log(`\n${database.name}: ${harness.requests} requests in ${runs} sequences\n${[...harness.stats].sort().map(([key, n]) => `  ${key}: ${n}`).join('\n')}`);
        }
    });
});
