import * as Fs from 'node:fs';
import * as Path from 'node:path';

import { yamlReference } from './structures/docs';


// `npm run docs`: writes the YAML reference generated from the schema (docs/yaml-reference.md).
export const referenceFile = 'docs/yaml-reference.md';

export const writeReference = (root: string): void => Fs.writeFileSync(Path.join(root, referenceFile), yamlReference());

if (require.main === module) {
    writeReference(process.cwd());
}
