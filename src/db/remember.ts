// Compiled SQL is kept in bounded maps: a shape follows what a client sends (the attributes a body names), so
// an endless variety must not grow memory; starting afresh costs a few compilations.
export const remember = <K, V>(map: Map<K, V>, key: K, value: V, max = 2000): V => {

    if (map.size >= max) {
        map.clear();
    }

    map.set(key, value);
    return value;
};
