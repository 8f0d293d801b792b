import * as Fs from 'node:fs';
import * as Path from 'node:path';

import type Joi from 'joi';
import * as Yaml from 'yaml';

import type { DomainDef, StructureDef } from './definition';
import { linkStructures, type StructureCheck } from './link';
import { positionOf } from './positions';
import { StructureError, type Problem } from './problems';
import { buildStructure, Registry, type Structure } from './registry';
import { domainFileSchema, structureSchema } from './schema';
import { keysAt } from './schema-keys';
import { didYouMean } from './suggest';


// What a file holds once parsed: its document and lines (to place problems), and, when it failed, the structure
// it was meant to declare (its file name's), so that other files' references to it are left unchecked.
interface FileState {
    readonly parsed?: { readonly document: Yaml.Document; readonly lines: Yaml.LineCounter };
    readonly failed?: string;
}

const joiOptions: Joi.ValidationOptions = { abortEarly: false, errors: { label: 'key' } };

// Joi's messages name the key (the path is given once, beside the file and line); a key that is not allowed
// gets the nearest allowed key of its place.
const joiProblems = (file: string, schema: Joi.Schema, error: Joi.ValidationError): Problem[] => {

    return error.details.map((detail) => {

        const path = detail.path.join('.');
        const last = detail.path[detail.path.length - 1];
        if (detail.type !== 'object.unknown') {
            // An item of a list is named with its list: "groups[0]", not "[0]".
            const message = typeof last === 'number' && detail.path.length > 1 ? detail.message.replace(`"[${last}]"`, `"${String(detail.path[detail.path.length - 2])}[${last}]"`) : detail.message;
            return { file, path, message };
        }

        const key = String(last);
        return { file, path, message: `${detail.message}${didYouMean(key, keysAt(schema, detail.path.slice(0, -1)))}`, onKey: true };
    });
};

// The parser's message without its position (given as file:line:column) and its excerpt apart.
const prototypeNames = new Set(['__proto__', 'constructor', 'prototype', 'hasownproperty', 'isprototypeof', 'propertyisenumerable', 'tolocalestring', 'tostring', 'valueof', '__definegetter__', '__definesetter__', '__lookupgetter__', '__lookupsetter__']);

const syntaxProblem = (file: string, error: Yaml.YAMLError): Problem => {

    const [first, ...rest] = error.message.split('\n');
    const message = first!.replace(/ at line \d+, column \d+:?$/, '');
    // The parser places every error it reports when given a line counter.
    const [position] = error.linePos!;
    return { file, path: '', message, line: position.line, column: position.col, excerpt: rest.join('\n').replace(/^\n+/, '') };
};

// A file holds either one object structure (`name:` at the top) or domains (`domains:` at the top).
const readFile = (dir: string, fileName: string, structures: Structure[], domains: Map<string, DomainDef>, problems: Problem[]): FileState => {

    const file = Path.join(dir, fileName);
    const meant = fileName.replace(/\.ya?ml$/i, '').toUpperCase();
    let text: string;
    try {
        text = Fs.readFileSync(file, 'utf8');
    }
    catch (error) {
        // A folder named *.yaml, a link to nothing, a file this user may not read.
        problems.push({ file, path: '', message: `the file cannot be read (${(error as NodeJS.ErrnoException).code}); make it a YAML file this user can read, or move it out of the folder` });
        return { failed: meant };
    }

    const lines = new Yaml.LineCounter();
    const document = Yaml.parseDocument(text, { prettyErrors: true, lineCounter: lines });
    const state: FileState = { parsed: { document, lines } };
    if (document.errors.length) {
        problems.push(...document.errors.map((error) => syntaxProblem(file, error)));
        return { ...state, failed: meant };
    }

    // Names a client sends index Maps, never plain objects; a key of the file that would reach a prototype
    // (`__proto__` vanished into the object's prototype, `constructor` shadowed it) is refused where it is.
    let prototypeKey: Problem | undefined;
    Yaml.visit(document, {
        Pair: (_, pair) => {

            const key = Yaml.isScalar(pair.key) ? String(pair.key.value) : undefined;
            if (!prototypeKey && key !== undefined && prototypeNames.has(key.toLowerCase()) && Yaml.isScalar(pair.key) && pair.key.range) {
                const at = lines.linePos(pair.key.range[0]);
                prototypeKey = { file, path: '', message: `"${key}" cannot be a name here: it is the name of a JavaScript object's own machinery; choose another`, line: at.line, column: at.col };
                return Yaml.visit.BREAK;
            }

            return undefined;
        }
    });
    if (prototypeKey) {
        problems.push(prototypeKey);
        return { ...state, failed: meant };
    }

    let content: unknown;
    try {
        // A few aliases are YAML; thousands (a "billion laughs" file) are an attack on whoever loads it.
        content = document.toJS({ maxAliasCount: 1000 }) as unknown;
    }
    catch (error) {
        problems.push({ file, path: '', message: `the YAML cannot be read: ${(error as Error).message}` });
        return { ...state, failed: meant };
    }

    if (!content || typeof content !== 'object' || Array.isArray(content)) {
        problems.push({ file, path: '', message: 'the file must hold a mapping with `name:` (an object structure) or `domains:`' });
        return { ...state, failed: meant };
    }

    if ('domains' in content && !('name' in content)) {
        const { value, error } = domainFileSchema.validate(content, joiOptions);
        if (error) {
            problems.push(...joiProblems(file, domainFileSchema, error));
            return state;
        }

        for (const [name, domain] of Object.entries(value.domains as Record<string, DomainDef>)) {
            if (domains.has(name)) {
                problems.push({ file, path: `domains.${name}`, message: `domain ${name} is declared twice` });
            }

            domains.set(name, domain);
        }

        return state;
    }

    const { value, error } = structureSchema.validate(content, joiOptions);
    let def = value as StructureDef;
    if (error) {
        problems.push(...joiProblems(file, structureSchema, error));
        // Keys that are not allowed alone (typos) leave a structure that can be linked: its other mistakes are
        // reported in the same run, not after the typos are mended.
        const lenient = structureSchema.validate(content, { ...joiOptions, allowUnknown: true });
        if (lenient.error) {
            const name = (content as { name?: unknown }).name;
            return { ...state, failed: typeof name === 'string' ? name.toUpperCase() : meant };
        }

        def = lenient.value as StructureDef;
    }

    const expected = `${def.name.toLowerCase()}.yaml`;
    if (fileName.toLowerCase() !== expected && fileName.toLowerCase() !== `${def.name.toLowerCase()}.yml`) {
        problems.push({ file, path: 'name', message: `the structure ${def.name} must be in a file named ${expected}` });
        return state;
    }

    if (structures.some((structure) => structure.name === def.name)) {
        problems.push({ file, path: 'name', message: `structure ${def.name} is declared twice` });
        return state;
    }

    structures.push(buildStructure(def, file));
    return state;
};

// Each problem placed at its line and column, from the document of its file.
const placed = (problem: Problem, files: ReadonlyMap<string, FileState>): Problem => {

    const state = files.get(problem.file);
    if (problem.line !== undefined || !state?.parsed) {
        return problem;
    }

    const position = positionOf(state.parsed.document, state.parsed.lines, problem.path ? problem.path.split('.') : [], problem.onKey, problem.within);
    return position ? { ...problem, ...position } : problem;
};

// Reads every YAML file of a folder; throws a StructureError that lists every problem in every file. The
// checks of other layers come in as `checks`; load-registry.ts passes them all.
export const loadStructures = (dir: string, checks: readonly StructureCheck[]): Registry => {

    if (!Fs.existsSync(dir) || !Fs.statSync(dir).isDirectory()) {
        throw new StructureError([{ file: dir, path: '', message: `the structures folder ${Fs.existsSync(dir) ? 'is a file' : 'does not exist'}; set OSPREY_STRUCTURES to the folder of the YAML files` }]);
    }

    const structures: Structure[] = [];
    const domains = new Map<string, DomainDef>();
    const problems: Problem[] = [];
    const files = Fs.readdirSync(dir).filter((name) => /\.ya?ml$/i.test(name)).sort();
    const states = new Map<string, FileState>();
    for (const fileName of files) {
        states.set(Path.join(dir, fileName), readFile(dir, fileName, structures, domains, problems));
    }

    const failed = new Map([...states].flatMap(([file, state]) => (state.failed ? [[state.failed, file] as const] : [])));

    if (!structures.length && !problems.length) {
        problems.push({ file: dir, path: '', message: 'the folder holds no object structure (*.yaml with `name:`)' });
    }

    problems.push(...linkStructures(structures, domains, checks, failed));
    if (problems.length) {
        throw new StructureError(problems.map((problem) => placed(problem, states)));
    }

    return new Registry(structures, domains);
};
