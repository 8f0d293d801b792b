import * as Code from '@hapi/code';
import * as Lab from '@hapi/lab';

import { cpuMsOfStat, processCpuMs } from '../bench/cpu';


const { experiment, test } = exports.lab = Lab.script();
const { expect } = Code;

experiment('bench: a server\'s CPU time from /proc', () => {

    test('reads utime and stime after the command name, whatever the name holds', () => {

        // pid (comm) state ppid pgrp session tty tpgid flags minflt cminflt majflt cmajflt utime stime …
        const rest = 'S 1 1 1 0 -1 4194560 100 0 0 0 250 37 0 0 20 0 11 0';
        expect(cpuMsOfStat(`4242 (node) ${rest}`)).to.equal(2870);
        expect(cpuMsOfStat(`4242 (a) b (c)) ${rest}`)).to.equal(2870);
        expect(cpuMsOfStat('4242 (node) S 1 1')).to.be.undefined();
        expect(cpuMsOfStat(`4242 (node) ${rest.replace(' 250 ', ' x ')}`)).to.be.undefined();
    });

    test('counts this process\'s own work, and nothing for a process that is not there', () => {

        const before = processCpuMs(process.pid);
        expect(before).to.be.a.number();
        const until = performance.now() + 120;
        let spun = 0;
        while (performance.now() < until) {
            spun += Math.sqrt(spun + 1);
        }

        expect(spun).to.be.above(0);
        expect(processCpuMs(process.pid)! - before!).to.be.at.least(60);
        expect(processCpuMs(2 ** 22 + 7)).to.be.undefined();
    });
});
