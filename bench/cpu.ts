import * as Fs from 'node:fs';


// The CPU time a server process used (user and system, every thread: the event loop, SQLite's read and
// checkpoint workers, V8's helpers), in ms, from /proc/{pid}/stat; undefined off Linux. Req/s on a small machine
// move with whatever else runs on it (the load generator shares its cores); the CPU a server spends per answer
// moves much less, so a round reports both (run.ts). The counts are in the kernel's USER_HZ, 100 per second on
// every Linux /proc reports them in.
const ticksPerSecond = 100;

// utime + stime (fields 14 and 15) of a /proc/{pid}/stat line, in ms. The command name (field 2) is in
// parentheses and may itself hold spaces and parentheses: the fields are counted after its last ')'.
export const cpuMsOfStat = (stat: string): number | undefined => {

    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const [utime, stime] = [fields[11], fields[12]];
    if (!utime || !stime || !/^\d+$/.test(utime) || !/^\d+$/.test(stime)) {
        return undefined;
    }

    return (Number(utime) + Number(stime)) * 1000 / ticksPerSecond;
};

export const processCpuMs = (pid: number): number | undefined => {

    try {
        return cpuMsOfStat(Fs.readFileSync(`/proc/${pid}/stat`, 'utf8'));
    }
    catch {
        return undefined;
    }
};
