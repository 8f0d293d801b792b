import * as Fs from 'node:fs';
import * as Path from 'node:path';

import * as Ts from 'typescript';

import { root } from '../../helpers/server';
import { states, type State } from './ledger';


// The public methods of the npm client, read from its type declarations, and the README's list of them.

const dist = Path.join(root, 'node_modules', '@maximomize', 'maximo-api-client', 'dist');
const folders = ['core', Path.join('services', 'manage'), Path.join('services', 'tools')];

// The declaration files whose classes the list covers: the clients and every core and service class.
const declarationFiles = (): string[] => [
    ...['maximo-client.d.ts', 'MASApiClient.d.ts', 'MaximoToolsClient.d.ts'].map((file) => Path.join(dist, 'api', file)),
    ...folders.flatMap((folder) => Fs.readdirSync(Path.join(dist, folder)).filter((file) => file.endsWith('.d.ts')).map((file) => Path.join(dist, folder, file)))
];

// `Class.method` for every method that is neither private nor protected (static ones too), each once.
export const publicMethods = (): string[] => {

    const methods = new Set<string>();
    for (const file of declarationFiles()) {
        const source = Ts.createSourceFile(file, Fs.readFileSync(file, 'utf8'), Ts.ScriptTarget.Latest, true);
        for (const statement of source.statements) {
            if (!Ts.isClassDeclaration(statement) || !statement.name) {
                continue;
            }

            for (const member of statement.members) {
                const hidden = Ts.getCombinedModifierFlags(member) & (Ts.ModifierFlags.Private | Ts.ModifierFlags.Protected);
                if (Ts.isMethodDeclaration(member) && !hidden) {
                    methods.add(`${statement.name.text}.${member.name.getText(source)}`);
                }
            }
        }
    }

    return [...methods].sort();
};

export interface ReadmeList {
    readonly states: ReadonlyMap<string, State>;
    /** Methods named in more than one row. */
    readonly repeated: readonly string[];
    readonly rows: number;
    /** The numbers the section's text gives, by state. */
    readonly counts: Readonly<Record<State, number>> | undefined;
}

// The rows between the markers: | `Class` | `method`, `method` | state | why |.
export const readmeList = (): ReadmeList => {

    const readme = Fs.readFileSync(Path.join(root, 'README.md'), 'utf8');
    const begin = readme.indexOf('<!-- npm-methods:begin -->');
    const end = readme.indexOf('<!-- npm-methods:end -->');
    if (begin < 0 || end < begin) {
        throw new Error('README.md has no npm-methods markers');
    }

    const list = new Map<string, State>();
    const repeated: string[] = [];
    let rows = 0;
    for (const line of readme.slice(begin, end).split('\n')) {
        const cells = line.split('|').map((cell) => cell.trim());
        const className = /^`(\w+)`$/.exec(cells[1] ?? '')?.[1];
        if (!className) {
            continue;
        }

        const state = cells[3] as State;
        if (!states.includes(state)) {
            throw new Error(`README.md: the state ${cells[3]} of ${className} is not one of ${states.join(', ')}`);
        }

        ++rows;
        for (const method of cells[2]!.split(',').map((name) => name.trim().replace(/^`|`$/g, ''))) {
            const key = `${className}.${method}`;
            if (list.has(key)) {
                repeated.push(key);
            }

            list.set(key, state);
        }
    }

    const numbers = /(\d+) work,\s+(\d+) are answered 501,\s+(\d+) are refused[^,]*,\s+(\d+) send nothing[^,]*,\s+and (\d+) is a client bug/.exec(readme);
    const counts = numbers ? Object.fromEntries(states.map((state, i) => [state, Number(numbers[i + 1])])) as Record<State, number> : undefined;
    return { states: list, repeated, rows, counts };
};
