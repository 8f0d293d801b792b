import * as Fs from 'node:fs';


// Peak resident memory of a server process during one measurement. Linux keeps the peak (VmHWM) and lets
// its owner reset it (clear_refs 5); sampling VmRSS as well covers kernels that refuse the reset.
export const statusKb = (pid: number, field: 'VmRSS' | 'VmHWM'): number => {

    try {
        const match = new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(Fs.readFileSync(`/proc/${pid}/status`, 'utf8'));
        return match ? Number(match[1]) : 0;
    }
    catch {
        return 0;
    }
};

export interface RssWatch {
    stop: () => number;
}

export const watchRss = (pid: number, everyMs = 50): RssWatch => {

    let reset = false;
    try {
        Fs.writeFileSync(`/proc/${pid}/clear_refs`, '5');
        reset = true;
    }
    catch {
        // Not Linux, or a kernel without the reset: the samples alone give the peak.
    }

    let peak = statusKb(pid, 'VmRSS');
    const timer = setInterval(() => (peak = Math.max(peak, statusKb(pid, 'VmRSS'))), everyMs);

    return {
        // The peak in MB.
        stop: () => {

            clearInterval(timer);
            peak = Math.max(peak, statusKb(pid, 'VmRSS'), reset ? statusKb(pid, 'VmHWM') : 0);
            return Math.round(peak / 1024);
        }
    };
};

export interface RssSpan {
    /** MB: when the watch started, the highest sample or the kernel's peak, when it stopped. */
    stop: () => { before: number; peak: number; after: number };
}

// A server's resident memory before, at its peak during, and after one piece of work (VmRSS every `everyMs`).
export const watchRssSpan = (pid: number, everyMs = 20): RssSpan => {

    const before = statusKb(pid, 'VmRSS');
    const watch = watchRss(pid, everyMs);
    return {
        stop: () => {

            const peak = watch.stop();
            return { before: Math.round(before / 1024), peak, after: Math.round(statusKb(pid, 'VmRSS') / 1024) };
        }
    };
};
