// Compiled SQL is kept in bounded maps: a shape follows what a client sends (the attributes a body names), so
// an endless variety must not grow memory; starting afresh costs a few compilations.
export const remember = <K, V>(map: Map<K, V>, key: K, value: V, max = 2000): V => {

    if (map.size >= max) {
        map.clear();
    }

    map.set(key, value);
    return value;
};

// A value worked out once per object for as long as the object lives (a structure's object, a plan, a domain),
// for values that only depend on it. Held weakly: a plan made for one request goes with it. `forget` drops one
// (what it depends on changed: a plugin added a computed attribute to the object while the server was composed).
export const oncePer = <K extends object, V>(make: (key: K) => V): ((key: K) => V) & { forget: (key: K) => void } => {

    const made = new WeakMap<K, V>();
    const get = (key: K): V => {

        let value = made.get(key);
        if (value === undefined) {
            value = make(key);
            made.set(key, value);
        }

        return value;
    };

    return Object.assign(get, { forget: (key: K) => void made.delete(key) });
};
