import * as Fs from 'node:fs';
import * as Path from 'node:path';

import { yamlReference } from './structures/docs';


// `npm run docs`: writes the YAML reference generated from the schema (docs/yaml-reference.md).
export const referenceFile = 'docs/yaml-reference.md';

if (require.main === module) {
    Fs.writeFileSync(Path.join(process.cwd(), referenceFile), yamlReference());
}
