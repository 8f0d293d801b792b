import * as Fs from 'node:fs';
import * as Path from 'node:path';

import { root } from './options';


interface ProfileNode {
    id: number;
    callFrame: { functionName: string; url: string; lineNumber: number };
}

interface CpuProfile {
    nodes: ProfileNode[];
    startTime: number;
    samples: number[];
    timeDeltas: number[];
}

export interface ProfileEntry {
    name: string;
    selfMs: number;
    percent: number;
}

export interface ProfileSummary {
    file: string;
    window: 'measurement' | 'whole process';
    busyMs: number;
    idleMs: number;
    functions: ProfileEntry[];
    modules: ProfileEntry[];
}

const where = (url: string) => url.replace(/^file:\/\//, '').replace(`${root}/`, '').replace(/^dist\//, '');

// Who owns a function: a package, a folder of Osprey, or node itself.
const owner = (node: ProfileNode) => {

    const url = where(node.callFrame.url);
    const pkg = /node_modules\/((@[^/]+\/)?[^/]+)/.exec(url);
    if (pkg) {
        return pkg[1]!;
    }

    if (url.startsWith('node:')) {
        return 'node internals';
    }

    return url ? url.split('/').slice(0, -1).join('/') || url : node.callFrame.functionName;
};

const top = (times: Map<string, number>, busy: number, count: number): ProfileEntry[] => {

    return [...times].sort((a, b) => b[1] - a[1]).slice(0, count).map(([name, us]) => ({ name, selfMs: Math.round(us / 1000), percent: Math.round(us / busy * 1000) / 10 }));
};

// The monotonic clock in microseconds: V8 stamps profile samples with the same clock, so the harness can
// tell which samples fall into a measurement.
export const monotonicUs = () => Number(process.hrtime.bigint() / 1000n);

const sampleTimes = (profile: CpuProfile, window?: readonly [number, number]) => {

    const selfTime = new Map<number, number>();
    let time = profile.startTime;
    for (let i = 0; i < profile.samples.length; ++i) {
        time += profile.timeDeltas[i] ?? 0;
        if (!window || (time >= window[0] && time <= window[1])) {
            const id = profile.samples[i]!;
            selfTime.set(id, (selfTime.get(id) ?? 0) + (profile.timeDeltas[i + 1] ?? 0));
        }
    }

    return selfTime;
};

// Self time (the samples whose top frame is the function) of a --cpu-prof profile, idle time left out of the
// percentages: what the server spends its CPU on, per function and per owner. With a window, only the samples
// taken during the measurement count (not the start-up); should none fall into it, the whole profile does.
export const summarizeProfile = (file: string, window?: readonly [number, number], count = 20): ProfileSummary => {

    const profile = JSON.parse(Fs.readFileSync(file, 'utf8')) as CpuProfile;
    const nodes = new Map(profile.nodes.map((node) => [node.id, node]));
    const windowed = window ? sampleTimes(profile, window) : new Map<number, number>();
    const selfTime = windowed.size ? windowed : sampleTimes(profile);

    const functions = new Map<string, number>();
    const modules = new Map<string, number>();
    let idle = 0;
    let busy = 0;
    for (const [id, us] of selfTime) {
        const node = nodes.get(id)!;
        if (node.callFrame.functionName === '(idle)') {
            idle += us;
            continue;
        }

        busy += us;
        const url = where(node.callFrame.url);
        const name = `${node.callFrame.functionName || '(anonymous)'}${url ? ` ${url}:${node.callFrame.lineNumber + 1}` : ''}`;
        functions.set(name, (functions.get(name) ?? 0) + us);
        modules.set(owner(node), (modules.get(owner(node)) ?? 0) + us);
    }

    return { file: Path.relative(root, file), window: windowed.size ? 'measurement' : 'whole process', busyMs: Math.round(busy / 1000), idleMs: Math.round(idle / 1000), functions: top(functions, busy, count), modules: top(modules, busy, 12) };
};
