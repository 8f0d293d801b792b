import * as Fs from 'node:fs';
import * as Os from 'node:os';
import * as Path from 'node:path';

import { createKnex, databaseKind, databaseVersion } from '../src/db/knex';
import { authenticate, type Authentication } from './auth';
import { prepareDataset, resetDataset, sqliteUrl, structuresDir } from './dataset';
import { evaluateGoals } from './goals';
import { combine, cpuPerRequest, measure, probe, type LoadSettings, type Measurement, type Target } from './load';
import { machineFacts } from './machine';
import { parseOptions, type BenchOptions } from './options';
import { startServer, type ServerProcess } from './processes';
import { monotonicUs, summarizeProfile, type ProfileSummary } from './profile';
import { goalsTable, markdownTables, scenarioTable, updateReadme, type BenchResults, type ScenarioResult } from './report';
import { processCpuMs } from './cpu';
import { watchRss } from './rss';
import { answered, longWork, measureResponsiveness, responsivenessGoals, responsivenessTable, type ResponsivenessResult } from './responsiveness';
import { expectations, scenarioData, scenarios, type Scenario, type ScenarioData } from './scenarios';


const log = (line: string) => process.stdout.write(`${line}\n`);

const maskUrl = (url: string) => url.replace(/\/\/([^:@/]+):[^@/]*@/, '//$1:***@');

// Osprey as an operator would start it, with per-request logging off: a log line per request measures the
// log pipe, not the server.
const ospreyEnv = (databaseUrl: string, dataDir: string, synchronous: string) => ({
    DATABASE_URL: databaseUrl,
    OSPREY_SQLITE_SYNCHRONOUS: synchronous,
    OSPREY_DEMO: '1',
    OSPREY_LOG: 'error',
    OSPREY_SECRET: 'osprey-benchmark-secret-0123456789abcdef',
    OSPREY_DATA: dataDir,
    OSPREY_STRUCTURES: structuresDir
});

const startOsprey = (options: BenchOptions, databaseUrl: string, dataDir: string, nodeArgs: string[] = []) => startServer('Osprey', 'dist/src/main.js', ospreyEnv(databaseUrl, dataDir, options.sqliteSynchronous), nodeArgs, 'is listening on');

interface Session {
    server: ServerProcess;
    auth: Authentication;
    data: ScenarioData;
}

// Logs in (the one authentication function) and finds what the scenarios draw on: assets a work order may name.
const openSession = async (server: ServerProcess, workorders: number, kind: Authentication['kind']): Promise<Session> => {

    const auth = await authenticate(server.url, 'MAXADMIN', 'maxadmin', kind);
    const where = encodeURIComponent('siteid="BEDFORD" and status!="DECOMMISSIONED"');
    const res = await fetch(`${server.url}/maximo/oslc/os/mxapiasset?oslc.where=${where}&oslc.select=assetnum&oslc.pageSize=100`, { headers: auth.headers });
    if (!res.ok) {
        throw new Error(`Osprey does not answer with ${auth.kind} authentication: ${res.status} ${await res.text()}`);
    }

    const assets = ((await res.json()) as { member: { assetnum: string }[] }).member.map((member) => member.assetnum);
    return { server, auth, data: scenarioData(workorders, assets) };
};

const describe = (seen: { status: number; type: string; body: string }) => {

    let message = '';
    try {
        message = (JSON.parse(seen.body) as { Error?: { message?: string } }).Error?.message ?? '';
    }
    catch {
        // Not JSON: the status and type say enough.
    }

    return `answered ${seen.status}${seen.type ? ` ${seen.type.split(';')[0]}` : ''}${message ? `: ${message.slice(0, 140)}` : ''}`;
};

// Why an answer is not what the scenario asks for; undefined when it is.
const judge = (scenario: Scenario, seen: { status: number; type: string; body: string }) => {

    const expected = expectations[scenario.name]!;
    if (seen.status !== expected.status || (expected.type && !expected.type.test(seen.type))) {
        return describe(seen);
    }

    const problem = expected.check?.(seen.body);
    return problem ? `${describe(seen)}; ${problem}` : undefined;
};

const loadSettings = (options: BenchOptions, scenario: Scenario): LoadSettings => ({
    seconds: options.duration,
    amount: scenario.amount?.(options.bulkRequests) ?? options.requests,
    connections: scenario.connections ?? options.connections,
    timeoutSeconds: scenario.timeoutSeconds ?? 10
});

// Warm-up (unmeasured) of a target before its first round.
const warmUp = async (target: Target, scenario: Scenario, data: ScenarioData, options: BenchOptions, first: number): Promise<void> => {

    const settings = loadSettings(options, scenario);
    if (options.warmup > 0 && !settings.amount) {
        await measure(target, scenario, data, { ...settings, seconds: options.warmup }, first + 500_000);
    }
};

// One round of a target's measurement: its share of the duration (or of the requests), with the server's peak RSS.
const measureRound = async (server: ServerProcess, target: Target, scenario: Scenario, data: ScenarioData, options: BenchOptions, first: number, rounds: number, latencies: number[]): Promise<Measurement> => {

    const settings = loadSettings(options, scenario);
    const share = { ...settings, seconds: settings.seconds / rounds, amount: settings.amount && Math.max(settings.connections, Math.round(settings.amount / rounds)) };
    const watch = watchRss(server.pid);
    let peak = 0;
    let cpuAfter: number | undefined;
    const said = server.output().length;
    const cpuBefore = processCpuMs(server.pid);
    const measured = await measure(target, scenario, data, share, first, latencies).finally(() => {

        cpuAfter = processCpuMs(server.pid);
        peak = watch.stop();
    });
    measured.peakRssMb = peak;
    if (cpuBefore !== undefined && cpuAfter !== undefined) {
        measured.cpuMs = cpuAfter - cpuBefore;
        Object.assign(measured, cpuPerRequest(measured.cpuMs, measured.requests));
    }

    if (measured.errors) {
        // What the server said during the measurement is the first thing to read about its errors.
        log(`  ${server.name} during ${scenario.name}: ${measured.errors} errors\n${server.output().slice(said).slice(0, 3000)}`);
    }

    return measured;
};

interface Measured {
    readonly server: ServerProcess;
    readonly target: Target;
    readonly first: number;
    readonly rounds: Measurement[];
    readonly latencies: number[];
}

// Osprey and baseline (b) are measured in rounds that alternate (Osprey first in the odd rounds, (b) in the
// even ones), each warmed up once before: a machine whose speed drifts over a scenario's half minute (other
// tenants of a virtual machine, the CPU's clock) then slows both alike, where one measurement after the other
// gave the ratio of whichever ran in the slower moment.
const measureInRounds = async (targets: readonly Measured[], scenario: Scenario, data: ScenarioData, options: BenchOptions): Promise<Measurement[]> => {

    const rounds = Math.max(1, Math.min(scenario.rounds ?? options.rounds, options.rounds));
    for (const each of targets) {
        await warmUp(each.target, scenario, data, options, each.first);
    }

    for (let i = 0; i < rounds; ++i) {
        for (const each of i % 2 ? [...targets].reverse() : targets) {
            each.rounds.push(await measureRound(each.server, each.target, scenario, data, options, each.first + i * 19_000, rounds, each.latencies));
        }
    }

    return targets.map((each) => combine(each.rounds, each.latencies));
};

const toMeasure = (server: ServerProcess, target: Target, first: number): Measured => ({ server, target, first, rounds: [], latencies: [] });

const line = (scenario: Scenario, target: string, m: Measurement) => log(`  ${scenario.name.padEnd(12)} ${target.padEnd(8)} ${String(m.rps).padStart(8)} req/s  p50 ${m.p50} ms  p99 ${m.p99} ms  errors ${m.errors}${m.cpuUs === undefined ? '' : `  CPU ${m.cpuUs} µs/req`}${m.peakRssMb === undefined ? '' : `  peak RSS ${m.peakRssMb} MB`}${m.rounds && m.rounds.length > 1 ? `  rounds ${m.rounds.join(' ')}` : ''}`);

const runScenario = async (session: Session, baselines: { hapi: ServerProcess; bare: ServerProcess }, scenario: Scenario, options: BenchOptions, index: number, databaseUrl: string): Promise<ScenarioResult> => {

    const result: ScenarioResult = { name: scenario.name, title: scenario.title, connections: loadSettings(options, scenario).connections, status: 'measured', measurements: {} };
    const osprey: Target = { url: session.server.url, prefix: '', headers: session.auth.headers };
    await scenario.prepare?.(databaseUrl, osprey);
    const first = index * 1_000_000;
    const seen = await probe(osprey, scenario, session.data, first);
    const problem = judge(scenario, seen);
    if (problem) {
        result.status = 'failed';
        result.reason = problem;
        log(`  ${scenario.name.padEnd(12)} Osprey   ${result.status}: ${result.reason}`);
    }

    const hapi: Target = { url: baselines.hapi.url, prefix: `/b/${scenario.name}`, headers: session.auth.headers };
    const seenHapi = await probe(hapi, scenario, session.data, first + 100_000);
    const hapiProblem = judge(scenario, seenHapi);
    if (hapiProblem) {
        log(`  ${scenario.name.padEnd(12)} (b)      failed: ${hapiProblem}\n${baselines.hapi.output().slice(-2000)}`);
        result.status = 'failed';
        result.reason = result.reason ?? `baseline (b) ${hapiProblem}`;
    }

    // Each target that answers as the scenario asks is measured; the two in alternating rounds.
    const targets = [...problem ? [] : [toMeasure(session.server, osprey, first + 1)], ...hapiProblem ? [] : [toMeasure(baselines.hapi, hapi, first + 100_001)]];
    const measurements = await measureInRounds(targets, scenario, session.data, options);
    targets.forEach((each, i) => {

        const name = each.target === osprey ? 'osprey' : 'hapi';
        result.measurements[name] = measurements[i]!;
        line(scenario, name === 'osprey' ? 'Osprey' : '(b)', measurements[i]!);
    });

    if (result.measurements.osprey && scenario.latencyGoal) {
        result.singleConnection = await measure(osprey, scenario, session.data, { ...loadSettings(options, scenario), connections: 1, seconds: Math.min(options.duration, 5) }, first + 300_000);
        line(scenario, '1 conn.', result.singleConnection);
    }

    // The constant answer of (a) is Osprey's, or (b)'s where Osprey has none yet. (a) only shows what the
    // machine gives plain node:http; it is measured after the two, in one round.
    const answer = result.measurements.osprey ? seen : result.measurements.hapi ? seenHapi : undefined;
    if (answer) {
        await fetch(`${baselines.bare.url}/_answer/${scenario.name}`, { method: 'PUT', body: JSON.stringify(answer) });
        const bare: Target = { url: baselines.bare.url, prefix: `/b/${scenario.name}`, headers: session.auth.headers };
        const constant = scenario.constantRequest;
        const [measurement] = await measureInRounds([toMeasure(baselines.bare, bare, first + 200_001)], { ...scenario, rounds: 1, ...constant ? { request: (data: ScenarioData) => constant(data) } : {} }, session.data, options);
        result.measurements.bare = measurement!;
        line(scenario, '(a)', measurement!);
    }

    return result;
};

// Long requests last, one at a time, each with health checks beside it (responsiveness.ts).
const runLongWork = async (session: Session, options: BenchOptions, names: readonly string[]) => {

    const results: ResponsivenessResult[] = [];
    for (const long of longWork(Math.min(50_000, options.workorders)).filter((candidate) => names.includes(candidate.name))) {
        const result = await measureResponsiveness(session.server.url, session.auth.headers, long, session.server.pid);
        const rss = result.rss ? `; RSS ${result.rss.before} MB before, peak ${result.rss.peak}, ${result.rss.after} after` : '';
        const transfer = result.transfer ? ` (${result.transfer.mbPerSecond} MB/s)` : '';
        log(`  ${long.name.padEnd(13)} ${result.check ?? 'health'} p50 ${result.health.p50} ms  p99 ${result.health.p99} ms  max ${result.health.max} ms  (${result.health.requests} checks, errors ${result.health.errors}); the long request answered ${result.work.status} in ${result.work.seconds} s${transfer}${rss}`);
        results.push(result);
    }

    return results;
};

const runBenchmark = async (options: BenchOptions, databaseUrl: string, dataDir: string, selected: Scenario[], names: readonly string[]) => {

    const server = await startOsprey(options, databaseUrl, dataDir);
    const stops: (() => Promise<void>)[] = [server.stop];
    try {
        const session = await openSession(server, options.workorders, options.auth);
        log(`Authentication: ${session.auth.note}`);
        const hapi = await startServer('baseline (b)', 'dist/bench/baseline-hapi.js', { DATABASE_URL: databaseUrl, OSPREY_SQLITE_SYNCHRONOUS: options.sqliteSynchronous });
        stops.push(hapi.stop);
        const bare = await startServer('baseline (a)', 'dist/bench/baseline-http.js', {});
        stops.push(bare.stop);
        const results: ScenarioResult[] = [];
        for (const [index, scenario] of selected.entries()) {
            results.push(await runScenario(session, { hapi, bare }, scenario, options, index, databaseUrl));
        }

        return { results, auth: session.auth, responsiveness: await runLongWork(session, options, names) };
    }
    finally {
        await Promise.all(stops.map((stop) => stop()));
    }
};

// One server process per scenario under node --cpu-prof, so each profile holds one kind of request.
const runProfiles = async (options: BenchOptions, databaseUrl: string, dataDir: string, selected: Scenario[], stamp: string) => {

    const results: ScenarioResult[] = [];
    const profiles: Record<string, ProfileSummary> = {};
    const windows: Record<string, [number, number]> = {};
    let auth: Authentication | undefined;
    for (const [index, scenario] of selected.entries()) {
        const dir = Path.join(options.outDir, `profile-${stamp}`, scenario.name);
        const server = await startOsprey(options, databaseUrl, dataDir, ['--cpu-prof', `--cpu-prof-dir=${dir}`]);
        const result: ScenarioResult = { name: scenario.name, title: scenario.title, connections: loadSettings(options, scenario).connections, status: 'measured', measurements: {} };
        try {
            const session = await openSession(server, options.workorders, options.auth);
            auth = session.auth;
            const target: Target = { url: server.url, prefix: '', headers: session.auth.headers };
            await scenario.prepare?.(databaseUrl, target);
            const problem = judge(scenario, await probe(target, scenario, session.data, index * 1_000_000));
            if (problem) {
                Object.assign(result, { status: 'failed', reason: problem });
            }
            else {
                if (options.warmup > 0) {
                    await measure(target, scenario, session.data, { ...loadSettings(options, scenario), seconds: options.warmup }, index * 1_000_000 + 500_000);
                }

                const from = monotonicUs();
                [result.measurements.osprey] = await measureInRounds([toMeasure(server, target, index * 1_000_000 + 1)], { ...scenario, rounds: 1 }, session.data, { ...options, warmup: 0 });
                windows[scenario.name] = [from, monotonicUs()];
                line(scenario, 'Osprey', result.measurements.osprey);
            }
        }
        finally {
            await server.stop();
        }

        results.push(result);
        const file = Fs.readdirSync(dir).find((name) => name.endsWith('.cpuprofile'));
        if (file) {
            profiles[scenario.name] = summarizeProfile(Path.join(dir, file), windows[scenario.name]);
        }
    }

    return { results, profiles, auth: auth! };
};

const printProfile = (name: string, summary: ProfileSummary) => {

    log(`\nCPU profile of ${name} (${summary.file}, ${summary.window}): ${summary.busyMs} ms busy, ${summary.idleMs} ms idle; self time`);
    summary.functions.forEach((entry) => log(`  ${String(entry.percent).padStart(5)} %  ${String(entry.selfMs).padStart(6)} ms  ${entry.name}`));
    log('  by owner:');
    summary.modules.forEach((entry) => log(`  ${String(entry.percent).padStart(5)} %  ${String(entry.selfMs).padStart(6)} ms  ${entry.name}`));
};

const main = async () => {

    const options = parseOptions(process.argv.slice(2));
    const started = new Date();
    const stamp = started.toISOString().replace(/[:.]/g, '-').slice(0, 19);
    const databaseUrl = options.pg ?? sqliteUrl(options.dataDir, options.assets, options.workorders);
    const kind = databaseKind(databaseUrl);
    const known = [...scenarios.map((scenario) => scenario.name), ...longWork(0).map((long) => long.name)];
    const names = options.scenarios ?? (options.profile ? ['member', 'query'] : known);
    const unknown = names.filter((name) => !known.includes(name));
    if (unknown.length) {
        throw new Error(`Unknown scenario ${unknown.join(', ')}; the scenarios are ${known.join(', ')}`);
    }

    const selected = scenarios.filter((scenario) => names.includes(scenario.name));
    Fs.mkdirSync(options.dataDir, { recursive: true });
    Fs.mkdirSync(options.outDir, { recursive: true });

    log(`Data set: ${options.assets.toLocaleString('en-US')} assets, ${options.workorders.toLocaleString('en-US')} work orders on ${maskUrl(databaseUrl)}`);
    const generatedAt = performance.now();
    const generated = await prepareDataset(databaseUrl, options.assets, options.workorders);
    log(generated.reused ? '  reused (generated before)' : `  generated in ${((performance.now() - generatedAt) / 1000).toFixed(1)} s`);
    await resetDataset(databaseUrl);

    const dataDir = Fs.mkdtempSync(Path.join(Os.tmpdir(), 'osprey-bench-'));
    const knex = createKnex({ databaseUrl });
    const version = await databaseVersion(knex, kind).finally(() => knex.destroy());

    let run: { results: ScenarioResult[]; auth: Authentication; profiles?: Record<string, ProfileSummary>; responsiveness?: ResponsivenessResult[] };
    try {
        run = options.profile ? await runProfiles(options, databaseUrl, dataDir, selected, stamp) : await runBenchmark(options, databaseUrl, dataDir, selected, names);
    }
    finally {
        Fs.rmSync(dataDir, { recursive: true, force: true });
        await resetDataset(databaseUrl);
    }

    const results: BenchResults = {
        kind: options.profile ? 'profile' : 'benchmark',
        started: started.toISOString(),
        finished: new Date().toISOString(),
        quick: options.quick,
        database: { kind, version, url: maskUrl(databaseUrl) },
        dataset: { assets: generated.assets, workorders: generated.workorders, rows: generated.rows, generatedSeconds: generated.seconds, reused: generated.reused },
        machine: machineFacts(),
        settings: { duration: options.duration, ...options.requests === undefined ? {} : { requests: options.requests }, rounds: options.rounds, warmup: options.warmup, connections: options.connections, bulkRequests: options.bulkRequests, serverLog: 'error', sqliteSynchronous: options.sqliteSynchronous },
        authentication: { kind: run.auth.kind, note: run.auth.note },
        scenarios: run.results,
        responsiveness: run.responsiveness ?? [],
        goals: options.profile ? [] : [...evaluateGoals(run.results, options.workorders), ...responsivenessGoals(run.responsiveness ?? [])],
        profiles: run.profiles
    };

    const variant = `${options.quick ? '-quick' : ''}${options.profile ? '-profile' : ''}${kind === 'sqlite' && options.sqliteSynchronous !== 'NORMAL' ? `-${options.sqliteSynchronous.toLowerCase()}` : ''}`;
    const file = Path.join(options.outDir, `${stamp}-${kind}${variant}.json`);
    Fs.writeFileSync(file, JSON.stringify(results, null, 2) + '\n');

    log('');
    results.scenarios.forEach((result) => log(`${scenarioTable(result, result.name === 'bulk' ? `${options.bulkRequests} requests` : options.requests === undefined ? `${options.duration} s` : `${options.requests} requests`)}\n`));
    if (results.responsiveness?.length) {
        log(`${responsivenessTable(results.responsiveness)}\n`);
    }

    Object.entries(run.profiles ?? {}).forEach(([name, summary]) => printProfile(name, summary));
    if (results.goals.length) {
        log(`Goals (issue):\n${goalsTable(results.goals)}\n`);
    }

    if (options.readme && !options.profile) {
        log(updateReadme(results) ? 'docs/performance.md: tables updated' : 'docs/performance.md: no bench markers found; the table is:\n' + markdownTables(results));
    }

    log(`Results: ${Path.relative(process.cwd(), file) || file}`);
    // A missed goal fails the run (issue 19), except in a quick run: that checks the harness end to end on a tiny
    // data set, usually on a machine busy with the test suite, and its ratios judge nothing.
    const missed = results.goals.filter((goal) => goal.met === false);
    if (missed.length && !options.quick) {
        log(`${missed.length} goal${missed.length === 1 ? '' : 's'} not met: the run fails.`);
    }

    process.exitCode = results.scenarios.some((result) => result.status === 'failed') || results.responsiveness!.some((result) => !answered(result)) || (missed.length && !options.quick) ? 1 : 0;
};

main().catch((err: Error & { code?: string }) => {

    // Usage errors say what to do; anything else needs its stack.
    const advice = err.code === '3D000' ? `bench: ${err.message}: --pg needs an existing, empty database (createdb, or CREATE DATABASE)\n` : undefined;
    process.stderr.write(advice ?? (err.message.includes('npm run bench') ? `${err.message}\n` : `bench: ${err.stack}\n`));
    process.exitCode = 1;
});
