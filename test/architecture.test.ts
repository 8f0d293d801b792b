import * as Fs from 'node:fs';
import * as Path from 'node:path';

import * as Code from '@hapi/code';
import * as Lab from '@hapi/lab';
import * as Ts from 'typescript';


const { experiment, test } = exports.lab = Lab.script();
const { expect } = Code;

// Guards the layering of issue 17 so that it does not come back: loading the YAML (src/structures) does not
// depend on the query parser or the reports, and the modules of src/records import each other one way only.

const src = Path.join(__dirname, '..', 'src');

type Graph = ReadonlyMap<string, readonly string[]>;

const sourceFiles = (dir: string): string[] => {

    return Fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {

        const path = Path.join(dir, entry.name);
        if (entry.isDirectory()) {
            return sourceFiles(path);
        }

        return entry.name.endsWith('.ts') ? [path] : [];
    });
};

// Every relative import, type-only ones included (a type import still ties one module to another), as
// paths relative to src without `.ts`: records/apply imports records/find.
const importGraph = (): Graph => {

    const graph = new Map<string, string[]>();
    for (const file of sourceFiles(src)) {
        const from = Path.relative(src, file).replace(/\.ts$/, '');
        const imported = Ts.preProcessFile(Fs.readFileSync(file, 'utf8'), true, true).importedFiles
            .map((reference) => reference.fileName)
            .filter((name) => name.startsWith('.'))
            .map((name) => Path.relative(src, Path.resolve(Path.dirname(file), name)).replace(/\.js$/, ''));

        graph.set(from, imported);
    }

    return graph;
};

// The first cycle among the modules `within` accepts, as the path that closes it, or undefined.
const findCycle = (graph: Graph, within: (module: string) => boolean): string[] | undefined => {

    const done = new Set<string>();
    const visit = (module: string, path: readonly string[]): string[] | undefined => {

        const seen = path.indexOf(module);
        if (seen !== -1) {
            return [...path.slice(seen), module];
        }

        if (done.has(module)) {
            return undefined;
        }

        for (const next of (graph.get(module) ?? []).filter(within)) {
            const cycle = visit(next, [...path, module]);
            if (cycle) {
                return cycle;
            }
        }

        done.add(module);
        return undefined;
    };

    for (const module of [...graph.keys()].filter(within)) {
        const cycle = visit(module, []);
        if (cycle) {
            return cycle;
        }
    }

    return undefined;
};

experiment('architecture', () => {

    const graph = importGraph();
    const inFolder = (folder: string) => {

        return (module: string) => module.startsWith(`${folder}/`);
    };

    test('the import graph is read from src', () => {

        expect(graph.get('records/apply')).to.include(['records/find', 'structures/registry']);
        expect(graph.get('app')).to.include('load-registry');
    });

    test('src/structures imports nothing from src/query or src/reports', () => {

        const wrong = [...graph].filter(([module]) => inFolder('structures')(module))
            .flatMap(([module, imported]) => imported.filter((name) => inFolder('query')(name) || inFolder('reports')(name)).map((name) => `${module} -> ${name}`));

        expect(wrong).to.equal([]);
    });

    test('the modules of src/records import each other without a cycle', () => {

        expect(findCycle(graph, inFolder('records'))).to.not.exist();
    });

    test('a cycle is found, and only within the modules asked about', () => {

        const cyclic = new Map([['records/a', ['records/b']], ['records/b', ['records/c', 'query/x']], ['records/c', ['records/a']], ['query/x', ['records/a']]]);
        expect(findCycle(cyclic, inFolder('records'))).to.equal(['records/a', 'records/b', 'records/c', 'records/a']);
        expect(findCycle(new Map([['records/a', ['query/x']], ['query/x', ['records/a']]]), inFolder('records'))).to.not.exist();
        expect(findCycle(new Map([['records/a', ['records/b']], ['records/c', ['records/b']], ['records/b', []]]), inFolder('records'))).to.not.exist();
    });
});
