import * as Fs from 'node:fs';
import * as Path from 'node:path';

import type Joi from 'joi';
import * as Yaml from 'yaml';

import type { DomainDef, StructureDef } from './definition';
import { linkStructures, type StructureCheck } from './link';
import { StructureError, type Problem } from './problems';
import { buildStructure, Registry, type Structure } from './registry';
import { domainFileSchema, structureSchema } from './schema';


const joiProblems = (file: string, error: Joi.ValidationError): Problem[] => {

    return error.details.map((detail) => ({ file, path: detail.path.join('.'), message: detail.message }));
};

// A file holds either one object structure (`name:` at the top) or domains (`domains:` at the top).
const readFile = (dir: string, fileName: string, structures: Structure[], domains: Map<string, DomainDef>, problems: Problem[]) => {

    const file = Path.join(dir, fileName);
    let text: string;
    try {
        text = Fs.readFileSync(file, 'utf8');
    }
    catch (error) {
        // A folder named *.yaml, a link to nothing, a file this user may not read.
        problems.push({ file, path: '', message: `the file cannot be read (${(error as NodeJS.ErrnoException).code}); make it a YAML file this user can read, or move it out of the folder` });
        return;
    }

    const document = Yaml.parseDocument(text, { prettyErrors: true });
    if (document.errors.length) {
        problems.push(...document.errors.map((error) => ({ file, path: '', message: error.message.split('\n')[0]! })));
        return;
    }

    const content = document.toJS() as unknown;
    if (!content || typeof content !== 'object' || Array.isArray(content)) {
        problems.push({ file, path: '', message: 'the file must hold a mapping with `name:` (an object structure) or `domains:`' });
        return;
    }

    if ('domains' in content && !('name' in content)) {
        const { value, error } = domainFileSchema.validate(content, { abortEarly: false });
        if (error) {
            problems.push(...joiProblems(file, error));
            return;
        }

        for (const [name, domain] of Object.entries(value.domains as Record<string, DomainDef>)) {
            if (domains.has(name)) {
                problems.push({ file, path: `domains.${name}`, message: `domain ${name} is declared twice` });
            }

            domains.set(name, domain);
        }

        return;
    }

    const { value, error } = structureSchema.validate(content, { abortEarly: false });
    if (error) {
        problems.push(...joiProblems(file, error));
        return;
    }

    const def = value as StructureDef;
    const expected = `${def.name.toLowerCase()}.yaml`;
    if (fileName.toLowerCase() !== expected && fileName.toLowerCase() !== `${def.name.toLowerCase()}.yml`) {
        problems.push({ file, path: 'name', message: `the structure ${def.name} must be in a file named ${expected}` });
        return;
    }

    if (structures.some((structure) => structure.name === def.name)) {
        problems.push({ file, path: 'name', message: `structure ${def.name} is declared twice` });
        return;
    }

    structures.push(buildStructure(def, file));
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
    for (const fileName of files) {
        readFile(dir, fileName, structures, domains, problems);
    }

    if (!structures.length && !problems.length) {
        problems.push({ file: dir, path: '', message: 'the folder holds no object structure (*.yaml with `name:`)' });
    }

    problems.push(...linkStructures(structures, domains, checks));
    if (problems.length) {
        throw new StructureError(problems);
    }

    return new Registry(structures, domains);
};
