// A small seeded generator (mulberry32), so the demo data is the same on every fresh start.
export const seededRandom = (seed: number) => {

    let state = seed >>> 0;
    const next = () => {

        state = (state + 0x6D2B79F5) >>> 0;
        let t = state;
        t = Math.imul(t ^ (t >>> 15), t | 1);
        t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
        return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
    };

    return {
        next,
        int: (min: number, max: number) => min + Math.floor(next() * (max - min + 1)),
        pick: <T>(items: readonly T[]): T => items[Math.floor(next() * items.length)]!
    };
};
