import * as ChildProcess from 'node:child_process';
import * as Fs from 'node:fs';
import * as Path from 'node:path';
import { promisify } from 'node:util';

import { root } from './server';


// IBM's Java REST client (com.ibm.maximo.oslc), unchanged, and the steps of test/java/ that drive it. The jar is
// kept in test/java/lib/ (a byte-for-byte copy of ../shared/clients/ibm-maximo-java/, so a clone anywhere runs
// it); the JSON and Base64 libraries it needs are the Debian packages libjsonp-java and libcommons-codec-java,
// which .ci/run installs.

const execFile = promisify(ChildProcess.execFile);

export const clientJar = Path.join(root, 'test', 'java', 'lib', 'maximo-restclient.jar');
/** The jar as handed to the team, when this checkout sits beside it. */
export const sharedJar = Path.join(root, '..', 'shared', 'clients', 'ibm-maximo-java', 'maximo-restclient.jar');
const libraries = ['/usr/share/java/javax.json-api.jar', '/usr/share/java/javax.json.jar', '/usr/share/java/commons-codec.jar'];
const sources = Path.join(root, 'test', 'java');

export interface StepResult {
    readonly database: string;
    readonly step: string;
    readonly ok: boolean;
    readonly detail: string;
    readonly ms: number;
}

const found = async (command: string) => {

    try {
        await execFile(command, ['-version']);
        return true;
    }
    catch {
        return false;
    }
};

// Everything the run needs, named when missing: a run without Java fails, it is never skipped.
export const missingToolchain = async (): Promise<string[]> => {

    const missing = [clientJar, ...libraries].filter((file) => !Fs.existsSync(file));
    for (const command of ['java', 'javac']) {
        if (!await found(command)) {
            missing.push(`${command} (a JDK, 17 or later)`);
        }
    }

    return missing;
};

const classpath = (...extra: string[]) => [...extra, clientJar, ...libraries].join(Path.delimiter);

// One javac for every step class, into a directory the caller removes.
// The README's Java example, as written there (its block says file=WorkOrders.java), is compiled with them.
export const compileSteps = async (into: string): Promise<void> => {

    const files = Fs.readdirSync(sources).filter((name) => name.endsWith('.java')).map((name) => Path.join(sources, name));
    const readme = Fs.readFileSync(Path.join(root, 'README.md'), 'utf8');
    const example = /^```java file=WorkOrders\.java\n([\s\S]*?)^```$/m.exec(readme);
    if (!example) {
        throw new Error('The README has no ```java file=WorkOrders.java block (section "Using Osprey from code"), which ReadmeSteps runs.');
    }

    const written = Path.join(into, 'readme-source');
    Fs.mkdirSync(written, { recursive: true });
    Fs.writeFileSync(Path.join(written, 'WorkOrders.java'), example[1]!);
    await execFile('javac', ['-Xlint:all', '-Werror', '-d', into, '-cp', classpath(), ...files, Path.join(written, 'WorkOrders.java')]);
};

// One JVM runs every step against every server (`label=port`), and prints one JSON line per step.
export const runSteps = async (classes: string, servers: Readonly<Record<string, number>>): Promise<{ results: StepResult[]; stderr: string }> => {

    const targets = Object.entries(servers).map(([label, port]) => `${label}=${port}`);
    const { stdout, stderr } = await execFile('java', ['-cp', classpath(classes), 'ClientSteps', ...targets], { maxBuffer: 16 * 1024 * 1024, timeout: 120_000 });
    const results = stdout.split('\n').filter((line) => line.startsWith('{')).map((line) => JSON.parse(line) as StepResult);
    return { results, stderr };
};
