import { setImmediate as nextTurn } from 'node:timers/promises';


// Long work (a bulk of thousands of items, a report of thousands of rows) runs in slices: between two steps it
// gives the event loop a turn once it has held it for `sliceMs`, so that other requests — a health check, a GET —
// are served meanwhile instead of waiting for the whole of it (issue 18: /health under a 50,000-item bulk
// and a 50,000-row report). A turn costs a few microseconds, and only once per slice.
export const sliceMs = 10;

export type Pause = () => Promise<void> | undefined;

// A pause to await between steps: nothing (no promise) until the slice is used up, then one turn of the loop.
export const slicer = (ms = sliceMs): Pause => {

    let since = performance.now();
    return () => {

        if (performance.now() - since < ms) {
            return undefined;
        }

        return nextTurn().then(() => {

            since = performance.now();
        });
    };
};

// Array.map in slices.
export const mapInSlices = async <T, R>(items: readonly T[], each: (item: T, index: number) => R, pause: Pause = slicer()): Promise<R[]> => {

    const results: R[] = [];
    for (const [index, item] of items.entries()) {
        await pause();
        results.push(each(item, index));
    }

    return results;
};
