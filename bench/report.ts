import * as Fs from 'node:fs';
import * as Path from 'node:path';

import type { Measurement } from './load';
import type { machineFacts } from './machine';
import { root } from './options';
import type { ProfileSummary } from './profile';
import { responsivenessTable, type ResponsivenessResult } from './responsiveness';


export type TargetName = 'osprey' | 'bare' | 'hapi';

export const targetTitles: Record<TargetName, string> = { osprey: 'Osprey', bare: '(a) bare node:http', hapi: '(b) hapi + driver' };

export interface ScenarioResult {
    name: string;
    title: string;
    connections: number;
    status: 'measured' | 'failed';
    reason?: string;
    measurements: Partial<Record<TargetName, Measurement>>;
    // Osprey at one connection, for the scenarios with a latency goal.
    singleConnection?: Measurement;
}

export interface Goal {
    goal: string;
    value: string;
    met: boolean | null;
}

export interface BenchResults {
    kind: 'benchmark' | 'profile';
    started: string;
    finished: string;
    quick: boolean;
    database: { kind: string; version: string; url: string };
    dataset: { assets: number; workorders: number; rows: Record<string, number>; generatedSeconds: number; reused: boolean };
    machine: ReturnType<typeof machineFacts>;
    settings: { duration: number; requests?: number; rounds?: number; warmup: number; connections: number; bulkRequests: number; serverLog: string; sqliteSynchronous: string };
    authentication: { kind: string; note: string };
    scenarios: ScenarioResult[];
    /** Health-check latency while one long request runs (responsiveness.ts). */
    responsiveness?: ResponsivenessResult[];
    goals: Goal[];
    profiles?: Record<string, ProfileSummary>;
}

const fixed = (value: number | undefined, digits: number) => (value === undefined || !Number.isFinite(value) ? '–' : value.toFixed(digits));
const ratio = (a: number | undefined, b: number | undefined) => (a === undefined || !b ? undefined : a / b);

// Osprey's figure divided by the baseline's: below 1 for req/s means slower, above 1 for latency, memory and CPU
// per request means slower, larger or costlier.
export const ratios = (result: ScenarioResult, baseline: TargetName) => {

    const osprey = result.measurements.osprey;
    const other = result.measurements[baseline];
    return { rps: ratio(osprey?.rps, other?.rps), p50: ratio(osprey?.p50, other?.p50), p99: ratio(osprey?.p99, other?.p99), peakRssMb: ratio(osprey?.peakRssMb, other?.peakRssMb), cpuUs: ratio(osprey?.cpuUs, other?.cpuUs) };
};

const pad = (cells: string[], widths: number[]) => cells.map((cell, i) => (i ? cell.padStart(widths[i]!) : cell.padEnd(widths[i]!))).join('  ');

export const scenarioTable = (result: ScenarioResult, duration: string): string => {

    const head = `${result.name} — ${result.title}  [${result.connections} connections, ${duration}]`;
    const widths = [23, 10, 9, 9, 7, 12, 12];
    const lines = [head, pad(['', 'req/s', 'p50 ms', 'p99 ms', 'errors', 'peak RSS MB', 'CPU µs/req'], widths)];
    if (result.status !== 'measured') {
        lines.push(`  Osprey: ${result.status}${result.reason ? ` (${result.reason})` : ''}`);
    }

    for (const target of ['osprey', 'bare', 'hapi'] as const) {
        const m = result.measurements[target];
        if (m) {
            lines.push(pad([`  ${targetTitles[target]}`, fixed(m.rps, m.rps < 100 ? 2 : 0), fixed(m.p50, 2), fixed(m.p99, 2), String(m.errors), fixed(m.peakRssMb, 0), fixed(m.cpuUs, 1)], widths));
        }
    }

    if (result.singleConnection) {
        const m = result.singleConnection;
        lines.push(pad(['  Osprey, 1 connection', fixed(m.rps, m.rps < 100 ? 2 : 0), fixed(m.p50, 2), fixed(m.p99, 2), String(m.errors), '', ''], widths));
    }

    if (result.measurements.osprey) {
        for (const target of ['bare', 'hapi'] as const) {
            const r = ratios(result, target);
            lines.push(pad([`  Osprey ÷ ${target === 'bare' ? '(a)' : '(b)'}`, fixed(r.rps, 2), fixed(r.p50, 2), fixed(r.p99, 2), '', fixed(r.peakRssMb, 2), fixed(r.cpuUs, 2)], widths));
        }
    }

    return lines.join('\n');
};

export const goalsTable = (goals: Goal[]) => goals.map((goal) => `  ${goal.met === null ? '  n/a' : goal.met ? '  met' : 'unmet'}  ${goal.goal}: ${goal.value}`).join('\n');

export const markdownTables = (results: BenchResults): string => {

    const { machine, dataset, database, settings } = results;
    const rows = results.scenarios.map((result) => {

        const o = result.measurements.osprey;
        const a = result.measurements.bare;
        const b = result.measurements.hapi;
        const osprey = o ? [fixed(o.rps, o.rps < 100 ? 2 : 0), fixed(o.p50, 1), fixed(o.p99, 1), String(o.errors), fixed(o.peakRssMb, 0), fixed(o.cpuUs, 0)] : [result.status, '', '', '', '', ''];
        return `| ${result.name} | ${osprey.join(' | ')} | ${fixed(a?.rps, 0)} | ${fixed(ratios(result, 'bare').rps, 3)} | ${fixed(b?.rps, b && b.rps < 100 ? 2 : 0)} | ${fixed(b?.p50, 1)} | ${fixed(b?.cpuUs, 0)} | ${fixed(ratios(result, 'hapi').rps, 2)} | ${fixed(ratios(result, 'hapi').cpuUs, 2)} |`;
    });
    return [
        `${database.kind} ${database.version}, ${dataset.assets.toLocaleString('en-US')} assets and ${dataset.workorders.toLocaleString('en-US')} work orders; ${machine.cores} cores (${machine.cpu}), Node ${machine.node}; ` +
        `commit ${machine.commit.slice(0, 10)}${machine.uncommittedChanges ? ' with uncommitted changes' : ''}, ${results.started.slice(0, 10)}; ${settings.connections} connections, ${settings.requests === undefined ? `${settings.duration} s` : `${settings.requests} requests`} per target${settings.rounds && settings.rounds > 1 ? ` in ${settings.rounds} rounds alternating Osprey and (b)` : ''}; authentication: ${results.authentication.kind}.`,
        '',
        '| scenario | Osprey req/s | p50 ms | p99 ms | errors | peak RSS MB | CPU µs/req | (a) req/s | ÷ (a) | (b) req/s | (b) p50 ms | (b) CPU µs/req | ÷ (b) | CPU ÷ (b) |',
        '|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|',
        ...rows,
        '',
        ...results.responsiveness?.length ? [responsivenessTable(results.responsiveness), ''] : [],
        ...results.goals.map((goal) => `- ${goal.met === null ? 'n/a' : goal.met ? 'met' : '**not met**'}: ${goal.goal} — ${goal.value}`)
    ].join('\n');
};

// Replaces the block between the database's markers in docs/performance.md (the README is for users).
export const updateReadme = (results: BenchResults): boolean => {

    const file = Path.join(root, 'docs', 'performance.md');
    const begin = `<!-- bench:${results.database.kind}:begin -->`;
    const end = `<!-- bench:${results.database.kind}:end -->`;
    const text = Fs.readFileSync(file, 'utf8');
    const from = text.indexOf(begin);
    const to = text.indexOf(end);
    if (from < 0 || to < from) {
        return false;
    }

    Fs.writeFileSync(file, `${text.slice(0, from + begin.length)}\n${markdownTables(results)}\n${text.slice(to)}`);
    return true;
};
