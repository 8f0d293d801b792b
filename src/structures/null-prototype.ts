// A value from parsed text (YAML, JSON) with every mapping in it turned into an object without a prototype:
// indexed by a name a client sent ("constructor", "__proto__", "toString"), it answers undefined, never one of
// Object.prototype's functions or the prototype itself. Arrays stay arrays (their items are turned); other
// objects (a Date, a RegExp) are kept as they are.
export const withoutPrototypes = <T>(value: T): T => {

    if (Array.isArray(value)) {
        return value.map(withoutPrototypes) as T;
    }

    if (value === null || typeof value !== 'object') {
        return value;
    }

    const prototype = Object.getPrototypeOf(value) as unknown;
    if (prototype !== Object.prototype && prototype !== null) {
        return value;
    }

    const bare = Object.create(null) as Record<string, unknown>;
    for (const [key, entry] of Object.entries(value)) {
        bare[key] = withoutPrototypes(entry);
    }

    return bare as T;
};
