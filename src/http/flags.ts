// One reading of a flag's value, for the parameter gate and the handlers alike, so that a value the gate lets
// through means the same to the handler: 1 or true turn it on, 0 or false off (in any case), a bare name
// (`?collectioncount`) on. Anything else is no flag: undefined, which the gate refuses by name.
export const flagOf = (value: unknown): boolean | undefined => {

    const last = Array.isArray(value) ? value[value.length - 1] : value;
    if (last === true || last === 1) {
        return true;
    }

    if (last === false || last === 0) {
        return false;
    }

    if (typeof last !== 'string') {
        return undefined;
    }

    switch (last.toLowerCase()) {
        case '':
        case '1':
        case 'true': return true;
        case '0':
        case 'false': return false;
        default: return undefined;
    }
};

// Whether a flag is on; absent or not a flag is off (the gate has refused what is not a flag).
export const flag = (value: unknown): boolean => flagOf(value) === true;
