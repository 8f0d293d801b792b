import * as Crypto from 'node:crypto';
import * as Fs from 'node:fs';
import * as Path from 'node:path';


// The key material for secrets at rest: OSPREY_SECRET when given, otherwise a random secret generated once
// into the data folder (readable by the owner only). Nodes sharing a PostgreSQL database must share it.
export const loadSecret = (configured: string | undefined, dataDir: string): Buffer => {

    if (configured) {
        return Crypto.createHash('sha256').update(configured).digest();
    }

    // Written whole beside it, then linked into place: nodes started at the same moment on one folder each find
    // no secret, and only the first link wins (the others' fail, EEXIST, and they read the winner's); no node
    // can read a secret half written.
    const file = Path.join(dataDir, 'secret');
    if (!Fs.existsSync(file)) {
        Fs.mkdirSync(dataDir, { recursive: true });
        const written = `${file}.${process.pid}.${Crypto.randomUUID()}`;
        Fs.writeFileSync(written, Crypto.randomBytes(32).toString('base64'), { mode: 0o600, flag: 'wx' });
        try {
            Fs.linkSync(written, file);
        }
        catch {
            // EEXIST: another node's is in place. Any other failure shows as the read below fails.
        }
        finally {
            Fs.rmSync(written);
        }
    }

    return Crypto.createHash('sha256').update(Fs.readFileSync(file, 'utf8').trim()).digest();
};
