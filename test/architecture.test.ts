import * as Fs from 'node:fs';
import * as Path from 'node:path';

import * as Code from '@hapi/code';
import * as Lab from '@hapi/lab';
import * as Ts from 'typescript';


const { experiment, test } = exports.lab = Lab.script();
const { expect } = Code;

// Guards the layering of issue 17 so that it does not come back: loading the YAML (src/structures) depends on
// neither the read nor the write pipeline nor the reports; each stage of a pipeline imports only the stages
// before it (src/read: parse → plan → compile → execute → serialize; src/write: plan → apply), reads import
// nothing of writes, and the modules of the pipelines and of src/structures import each other without a cycle.

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
// paths relative to src without `.ts`: write/apply/apply imports read/execute/find.
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

// The stages of each pipeline, in order.
const stages = ['read/parse', 'read/plan', 'read/compile', 'read/execute', 'read/serialize', 'write/plan', 'write/apply'];
const stageOf = (module: string) => stages.findIndex((stage) => module.startsWith(`${stage}/`));

// The one read that needs the write pipeline: a lookup for a record not yet saved (newmbo) builds it from setupdata
// as a create would, defaults and all, so that the lookup's where sees the values the create will write.
const readsOfWrites = new Set(['read/lookups -> write/plan/input']);

// Imports from an earlier or the same stage are the pipeline's direction; a later stage, or a read stage
// importing a write module, is against it.
const againstPipeline = (graph: Graph): string[] => {

    return [...graph].flatMap(([module, imported]) => {

        const stage = stageOf(module);
        return imported.filter((name) => (stage !== -1 && stageOf(name) > stage) || (module.startsWith('read/') && name.startsWith('write/') && !readsOfWrites.has(`${module} -> ${name}`))).map((name) => `${module} -> ${name}`);
    });
};

experiment('architecture', () => {

    const graph = importGraph();
    const inFolder = (folder: string) => {

        return (module: string) => module.startsWith(`${folder}/`);
    };

    test('the import graph is read from src', () => {

        expect(graph.get('write/apply/apply')).to.include(['read/execute/find', 'structures/registry']);
        expect(graph.get('app')).to.include('load-registry');
    });

    test('src/structures imports nothing from the pipelines or the reports', () => {

        const wrong = [...graph].filter(([module]) => inFolder('structures')(module))
            .flatMap(([module, imported]) => imported.filter((name) => ['read', 'write', 'reports'].some((folder) => inFolder(folder)(name))).map((name) => `${module} -> ${name}`));

        expect(wrong).to.equal([]);
    });

    test('each stage imports only the stages before it', () => {

        expect(againstPipeline(graph)).to.equal([]);
    });

    test('an import against the pipeline is found', () => {

        const wrong = new Map([['read/parse/a', ['read/plan/b']], ['read/plan/b', ['read/parse/a', 'structures/x']], ['read/execute/c', ['write/apply/d']], ['write/apply/d', ['read/execute/c', 'write/plan/e']]]);
        expect(againstPipeline(wrong)).to.equal(['read/parse/a -> read/plan/b', 'read/execute/c -> write/apply/d']);
    });

    test('the write engine, the structures and the API-key rules know nothing of hapi or of the plugins', () => {

        // Every import, relative or a package, of the files under these folders (and the API-key modules).
        const engine = sourceFiles(src).filter((file) => /[/\\](write|structures)[/\\]|[/\\]auth[/\\]api-key/.test(file));
        const wrong = engine.flatMap((file) => Ts.preProcessFile(Fs.readFileSync(file, 'utf8'), true, true).importedFiles
            .map((reference) => reference.fileName)
            .filter((name) => name.startsWith('@hapi/') || Path.resolve(Path.dirname(file), name).startsWith(Path.join(src, '..', 'plugins')))
            .map((name) => `${Path.relative(src, file)} -> ${name}`));

        expect(engine.length).to.be.above(20);
        expect(wrong).to.equal([]);
    });

    test('the read pipeline and the reports resolve attribute names only through src/read/plan/attribute-names.ts', () => {

        // Where a secret attribute is refused (issue 34): a module that looked a name up on an object itself could
        // name a secret that no check sees.
        const resolver = Path.join(src, 'read', 'plan', 'attribute-names.ts');
        const files = sourceFiles(src).filter((file) => /[/\\](read|reports)[/\\]/.test(file) && file !== resolver);
        const wrong = files.flatMap((file) => Fs.readFileSync(file, 'utf8').split('\n').flatMap((line, i) => (/\battributes\.(get|has)\(/.test(line) ? [`${Path.relative(src, file)}:${i + 1}`] : [])));

        expect(files.length).to.be.above(40);
        expect(wrong).to.equal([]);
    });

    test('the modules of the pipelines and of src/structures import each other without a cycle', () => {

        expect(findCycle(graph, (module) => ['read', 'write', 'structures'].some((folder) => inFolder(folder)(module)))).to.not.exist();
    });

    test('a cycle is found, and only within the modules asked about', () => {

        const cyclic = new Map([['records/a', ['records/b']], ['records/b', ['records/c', 'query/x']], ['records/c', ['records/a']], ['query/x', ['records/a']]]);
        expect(findCycle(cyclic, inFolder('records'))).to.equal(['records/a', 'records/b', 'records/c', 'records/a']);
        expect(findCycle(new Map([['records/a', ['query/x']], ['query/x', ['records/a']]]), inFolder('records'))).to.not.exist();
        expect(findCycle(new Map([['records/a', ['records/b']], ['records/c', ['records/b']], ['records/b', []]]), inFolder('records'))).to.not.exist();
    });
});
