import * as ChildProcess from 'node:child_process';
import * as Fs from 'node:fs';
import * as Os from 'node:os';
import * as Path from 'node:path';

import * as Code from '@hapi/code';
import * as Lab from '@hapi/lab';

import type { BenchResults } from '../bench/report';
import { scenarios } from '../bench/scenarios';
import { root } from './helpers/server';


const { experiment, test } = exports.lab = Lab.script();
const { expect } = Code;

const npmRun = (args: string[]): Promise<{ code: number; output: string }> => new Promise((resolve) => {


    ChildProcess.execFile('npm', ['run', '--silent', ...args], { cwd: root, env: process.env, maxBuffer: 16 * 1024 * 1024 }, (err, stdout, stderr) => {

        resolve({ code: err ? Number((err as ChildProcess.ExecFileException).code ?? 1) : 0, output: stdout + stderr });
    });
});

// The benchmark is a tool, not a test; this only checks that its quick form runs end to end (SQLite, a tiny
// generated data set, 40 requests per scenario and target) and records every scenario.
experiment('npm run bench -- --quick', { timeout: 180_000 }, () => {

    test('measures every scenario on SQLite against both baselines and writes the results file', async () => {

        const dir = Fs.mkdtempSync(Path.join(Os.tmpdir(), 'osprey-bench-test-'));
        try {
            const out = Path.join(dir, 'out');
            const { code, output } = await npmRun(['bench', '--', '--quick', '--requests', '40', '--data', Path.join(dir, 'data'), '--out', out]);
            expect(code, output).to.equal(0);
            expect(output).to.contain('Authentication: ');

            const files = Fs.readdirSync(out).filter((name) => name.endsWith('-sqlite-quick.json'));
            expect(files, output).to.have.length(1);
            const results = JSON.parse(Fs.readFileSync(Path.join(out, files[0]!), 'utf8')) as BenchResults;
            expect(results.database.kind).to.equal('sqlite');
            expect(results.dataset).to.include({ assets: 200, workorders: 2000 });
            expect(results.machine.cores).to.be.above(0);
            expect(results.machine.node).to.equal(process.version);
            expect(results.scenarios.map((scenario) => scenario.name)).to.equal(scenarios.map((scenario) => scenario.name));
            // 14 ratio goals, the action's cost beside its PATCH, 2 latency and 2 memory goals, /health beside 10
            // long requests and a PATCH beside one, and the server's RSS during the 3 attachment transfers.
            expect(results.goals).to.have.length(33);
            expect(results.responsiveness!.map((result) => result.name)).to.equal(['health-bulk', 'health-report', 'health-like', 'health-child', 'health-search', 'health-group', 'health-reads', 'health-merge', 'health-upload', 'health-download', 'patch-upload']);
            const statuses: Record<string, number> = { 'health-merge': 204, 'health-upload': 201, 'patch-upload': 201 };
            for (const result of results.responsiveness!) {
                expect(result.work.status, result.name).to.equal(statuses[result.name] ?? 200);
                expect(result.health.requests, result.name).to.be.above(0);
                expect(result.health.errors, result.name).to.equal(0);
            }

            const cpuMs = { osprey: 0, hapi: 0, bare: 0 };
            for (const scenario of results.scenarios) {
                // Every scenario is answered as it asks, and measured on Osprey and both baselines without errors.
                expect(scenario.status, `${scenario.name}: ${scenario.reason}`).to.equal('measured');
                for (const target of ['osprey', 'hapi', 'bare'] as const) {
                    const measurement = scenario.measurements[target]!;
                    expect(measurement, `${scenario.name} ${target}`).to.exist();
                    expect(measurement.requests, `${scenario.name} ${target}`).to.be.above(0);
                    expect(measurement.errors, `${scenario.name} ${target}`).to.equal(0);
                    expect(measurement.peakRssMb!, `${scenario.name} ${target}`).to.be.above(0);
                    // The server's CPU over its rounds, and per request (bench/cpu.ts: Linux's /proc).
                    expect(measurement.cpuMs!, `${scenario.name} ${target}`).to.be.a.number().and.to.be.at.least(0);
                    expect(measurement.cpuUs, `${scenario.name} ${target}`).to.equal(Math.round(measurement.cpuMs! * 1000 / measurement.requests * 10) / 10);
                    cpuMs[target] += measurement.cpuMs!;
                }
            }

            // Each server's CPU is its own: 40 requests of a scenario may take less than one 10 ms tick, but 14
            // scenarios' worth do not.
            expect(cpuMs.osprey).to.be.above(0);
            expect(cpuMs.hapi).to.be.above(0);

            // The memory goals of the report and the bulk are judged, not left open; those of the transfers are
            // judged too (met or not: a quick run's machine is busy with the tests).
            const judged = results.goals.filter((goal) => /RSS/.test(goal.goal));
            expect(judged.slice(0, 2).map((goal) => goal.met)).to.equal([true, true]);
            expect(judged.slice(2).map((goal) => typeof goal.met)).to.equal(['boolean', 'boolean', 'boolean']);
        }
        finally {
            Fs.rmSync(dir, { recursive: true, force: true });
        }
    });
});
