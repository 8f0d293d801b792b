import * as Fs from 'node:fs';
import * as Os from 'node:os';
import * as Path from 'node:path';

import Knex from 'knex';


// The value of `--name VALUE` in `args`, taken out of them (what is left are the tool's positional arguments).
export const takeOption = (args: string[], name: string): string | undefined => {

    const at = args.indexOf(name);
    return at >= 0 ? args.splice(at, 2)[1] : undefined;
};

// A database of the tool's own for one run, dropped after it: a SQLite file in a new temporary folder, or, given
// a PostgreSQL URL (`adminUrl`) whose user may create databases, a new database `{prefix}_{pid}` on that server.
export const scratchDatabase = async (prefix: string, adminUrl: string | undefined): Promise<{ url: string; drop: () => Promise<void> }> => {

    if (!adminUrl) {
        const dir = Fs.mkdtempSync(Path.join(Os.tmpdir(), `${prefix.replace(/_/g, '-')}-`));
        return { url: `sqlite:${Path.join(dir, 'bench.sqlite')}`, drop: () => Promise.resolve(Fs.rmSync(dir, { recursive: true, force: true })) };
    }

    const name = `${prefix}_${process.pid}`;
    const admin = Knex({ client: 'pg', connection: adminUrl, pool: { min: 0, max: 1 } });
    await admin.raw('create database ??', [name]);
    const url = new URL(adminUrl);
    url.pathname = `/${name}`;
    return {
        url: url.toString(),
        drop: async () => {

            await admin.raw('drop database if exists ?? with (force)', [name]);
            await admin.destroy();
        }
    };
};
