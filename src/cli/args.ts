// The osprey command's words (issue 37): `user add NAME --group G`, `group add NAME --admin`, … Every option is
// declared per command, and anything else is refused by name: a misspelt option must not make a user who lacks
// the group the script meant to give them.

export class UsageError extends Error { }

export interface OptionSpec {
    /** Takes a value (`--group G` or `--group=G`); a flag otherwise. */
    readonly value: boolean;
    /** May be given more than once (the values are collected). */
    readonly repeat?: boolean;
}

export interface Parsed {
    readonly positional: readonly string[];
    readonly options: ReadonlyMap<string, readonly string[]>;
}

// Splits the words after the command into positional arguments and declared options.
export const parseArgs = (words: readonly string[], specs: Readonly<Record<string, OptionSpec>>, command: string): Parsed => {

    const positional: string[] = [];
    const options = new Map<string, string[]>();
    for (let i = 0; i < words.length; ++i) {
        const word = words[i]!;
        if (!word.startsWith('--')) {
            positional.push(word);
            continue;
        }

        const [name, inline] = word.slice(2).split(/=(.*)/s, 2) as [string, string | undefined];
        const spec = Object.hasOwn(specs, name) ? specs[name]! : undefined;
        if (!spec) {
            const known = Object.keys(specs).map((option) => `--${option}`).join(', ');
            throw new UsageError(`${command} has no option --${name}${known ? ` (it takes ${known})` : ''}.`);
        }

        const value = spec.value ? inline ?? words[++i] : inline;
        if (spec.value && value === undefined) {
            throw new UsageError(`--${name} needs a value.`);
        }

        if (!spec.value && value !== undefined) {
            throw new UsageError(`--${name} takes no value.`);
        }

        if (options.has(name) && !spec.repeat) {
            throw new UsageError(`--${name} is given twice.`);
        }

        options.set(name, [...options.get(name) ?? [], value ?? '']);
    }

    return { positional, options };
};
