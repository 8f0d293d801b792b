import * as Fs from 'node:fs';
import * as Os from 'node:os';
import * as Path from 'node:path';

import type * as Lab from '@hapi/lab';

import { fixtures } from './server';


// A structure under access.owner: users who are not administrators see, change and create only the notes whose
// author they are (added to a fixture copy as mxtestnote.yaml).
export const ownedNotes = `name: MXTESTNOTE
object: NOTE
uniqueColumn: noteid
primaryKey: [noteid]
attributes:
  noteid: { type: bigint, generated: true }
  author: { type: upper, length: 30 }
  body: { type: aln, length: 100 }
access:
  read: [EVERYONE]
  insert: [EVERYONE]
  update: [EVERYONE]
  delete: [EVERYONE]
  owner: author
`;

export interface FixtureCopy {
    readonly from?: string;                                 // the folder under test/fixtures/structures; valid unless named
    readonly only?: readonly string[];                      // the files of it copied; all unless named
    readonly edit?: (text: string, file: string) => string; // each file's text as written into the copy
    readonly add?: Record<string, string>;                  // files written besides those copied
}

// A fresh folder with the files of a fixture folder, changed and added to as asked. The caller removes it (removeCopy).
export const copyFixture = (copy: FixtureCopy = {}): string => {

    const from = Path.join(fixtures, copy.from ?? 'valid');
    const dir = Fs.mkdtempSync(Path.join(Os.tmpdir(), 'osprey-fixture-'));
    for (const file of copy.only ?? Fs.readdirSync(from)) {
        const text = Fs.readFileSync(Path.join(from, file), 'utf8');
        Fs.writeFileSync(Path.join(dir, file), copy.edit ? copy.edit(text, file) : text);
    }

    for (const [file, text] of Object.entries(copy.add ?? {})) {
        Fs.writeFileSync(Path.join(dir, file), text);
    }

    return dir;
};

export const removeCopy = (dir: string) => Fs.rmSync(dir, { recursive: true, force: true });

// Called where an experiment is declared: answers copyFixture for its tests, and removes every copy made after the experiment.
export const fixtureCopies = (lab: Lab.script.Script) => {

    const made: string[] = [];
    lab.after(() => made.splice(0).forEach(removeCopy));
    return (copy: FixtureCopy = {}) => {

        const dir = copyFixture(copy);
        made.push(dir);
        return dir;
    };
};
