import * as ChildProcess from 'node:child_process';
import * as Os from 'node:os';

import { root } from './options';


const git = (args: string[]) => {

    try {
        return ChildProcess.execFileSync('git', args, { cwd: root, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
    }
    catch {
        return '';
    }
};

// What a figure depends on besides the code: written with every result.
export const machineFacts = () => ({
    cores: Os.cpus().length,
    cpu: Os.cpus()[0]?.model.trim() ?? 'unknown',
    memoryGb: Math.round(Os.totalmem() / 1024 ** 3 * 10) / 10,
    os: `${Os.type()} ${Os.release()} ${Os.arch()}`,
    node: process.version,
    commit: git(['rev-parse', 'HEAD']) || 'unknown',
    // The README, docs/ and earlier results change with every run; only code that differs from the commit matters.
    uncommittedChanges: git(['status', '--porcelain', '--untracked-files=no', '--', '.', ':!README.md', ':!docs', ':!bench/results']) !== '',
    loadAverage: Os.loadavg().map((value) => Math.round(value * 100) / 100)
});
