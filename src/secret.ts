import * as Crypto from 'node:crypto';
import * as Fs from 'node:fs';
import * as Path from 'node:path';


// The key material for secrets at rest: OSPREY_SECRET when given, otherwise a random secret generated once
// into the data folder (readable by the owner only). Nodes sharing a PostgreSQL database must share it.
export const loadSecret = (configured: string | undefined, dataDir: string): Buffer => {

    if (configured) {
        return Crypto.createHash('sha256').update(configured).digest();
    }

    const file = Path.join(dataDir, 'secret');
    if (!Fs.existsSync(file)) {
        Fs.mkdirSync(dataDir, { recursive: true });
        Fs.writeFileSync(file, Crypto.randomBytes(32).toString('base64'), { mode: 0o600, flag: 'wx' });
    }

    return Crypto.createHash('sha256').update(Fs.readFileSync(file, 'utf8').trim()).digest();
};
