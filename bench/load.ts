import Autocannon from 'autocannon';

import type { Scenario, ScenarioData, ScenarioRequest } from './scenarios';


export interface LoadSettings {
    seconds: number;
    amount?: number;
    connections: number;
    timeoutSeconds: number;
}

export interface Measurement {
    requests: number;
    seconds: number;
    rps: number;
    p50: number;
    p99: number;
    errors: number;
    peakRssMb?: number;
    /** The server's CPU time (every thread) over the measurement, in ms (cpu.ts; Linux only). */
    cpuMs?: number;
    /** That CPU time per answered request, in µs. */
    cpuUs?: number;
    /** req/s of each round, where the measurement was taken in rounds alternating with the baseline's. */
    rounds?: number[];
}

export interface Target {
    url: string;
    // Baselines serve every scenario under its own prefix; Osprey serves the real paths.
    prefix: string;
    headers: Record<string, string>;
}

const percentile = (sorted: number[], p: number) => (sorted.length ? sorted[Math.min(sorted.length - 1, Math.ceil(p / 100 * sorted.length) - 1)]! : 0);

const round = (value: number, digits: number) => Math.round(value * 10 ** digits) / 10 ** digits;

const build = (target: Target, request: ScenarioRequest) => ({ method: request.method, path: target.prefix + request.path, headers: { ...target.headers, ...request.headers }, body: request.body });

// One request outside the load, to see what the target answers (status, type, body) before measuring it.
export const probe = async (target: Target, scenario: Scenario, data: ScenarioData, i = 0) => {

    const request = build(target, scenario.request(data, i));
    const res = await fetch(target.url + request.path, { method: request.method, headers: request.headers, body: request.body, signal: AbortSignal.timeout((scenario.timeoutSeconds ?? 10) * 1000) });
    const body = await res.text();
    return { status: res.status, type: res.headers.get('content-type') ?? '', location: res.headers.get('location') ?? undefined, body };
};

// Closed-loop load: each connection sends its next request when the answer came. autocannon's own latency
// histogram counts whole milliseconds; the percentiles here come from every response's exact time instead.
// `sink`: where every response's time is also kept, for the percentiles of a measurement taken in rounds.
export const measure = (target: Target, scenario: Scenario, data: ScenarioData, settings: LoadSettings, first = 1, sink?: number[]): Promise<Measurement> => {

    let counter = first;
    const latencies: number[] = [];
    const started = performance.now();
    let last = started;
    return new Promise((resolve, reject) => {

        const instance = Autocannon({
            url: target.url,
            connections: settings.connections,
            duration: settings.seconds,
            amount: settings.amount,
            // A run of a number of requests ends at autocannon's next sample: every second by default, which made
            // a run of 40 requests last a second.
            ...settings.amount ? { sampleInt: 50 } : {},
            timeout: settings.timeoutSeconds,
            requests: [{ setupRequest: (request) => ({ ...request, ...build(target, scenario.request(data, counter++)) }) }]
        }, (err, result) => {

            if (err) {
                return reject(err);
            }

            latencies.sort((a, b) => a - b);
            if (sink) {
                for (const latency of latencies) {
                    sink.push(latency);
                }
            }

            // A run of a given number of requests lasts until the last answer; autocannon rounds it up to its
            // one-second ticks.
            const seconds = settings.amount ? (last - started) / 1000 : result.duration;
            const requests = result['2xx'];
            resolve({
                requests,
                seconds: round(seconds, 2),
                rps: round(requests / seconds, requests / seconds < 100 ? 2 : 0),
                p50: round(percentile(latencies, 50), 2),
                p99: round(percentile(latencies, 99), 2),
                errors: result.non2xx + result.errors
            });
        });

        instance.on('response', (_client: unknown, status: number, _bytes: number, time: number) => {

            last = performance.now();
            if (status >= 200 && status < 300) {
                latencies.push(time);
            }
        });
    });
};

// The CPU per answered request, in µs (none when nothing was answered).
export const cpuPerRequest = (cpuMs: number, requests: number): { cpuUs?: number } => (requests > 0 ? { cpuUs: round(cpuMs * 1000 / requests, 1) } : {});

// One measurement of a target taken in rounds (run.ts): its requests over its seconds, the percentiles of every
// response of every round (`latencies`), the largest peak.
export const combine = (rounds: readonly Measurement[], latencies: number[]): Measurement => {

    const requests = rounds.reduce((sum, each) => sum + each.requests, 0);
    const seconds = rounds.reduce((sum, each) => sum + each.seconds, 0);
    const peaks = rounds.map((each) => each.peakRssMb).filter((peak): peak is number => peak !== undefined);
    const cpuMs = rounds.every((each) => each.cpuMs !== undefined) ? rounds.reduce((sum, each) => sum + each.cpuMs!, 0) : undefined;
    latencies.sort((a, b) => a - b);
    return {
        requests,
        seconds: round(seconds, 2),
        rps: round(requests / seconds, requests / seconds < 100 ? 2 : 0),
        p50: round(percentile(latencies, 50), 2),
        p99: round(percentile(latencies, 99), 2),
        errors: rounds.reduce((sum, each) => sum + each.errors, 0),
        ...(peaks.length ? { peakRssMb: Math.max(...peaks) } : {}),
        ...(cpuMs !== undefined ? { cpuMs, ...cpuPerRequest(cpuMs, requests) } : {}),
        rounds: rounds.map((each) => each.rps)
    };
};
