import * as Crypto from 'node:crypto';
import * as Fs from 'node:fs';
import * as Os from 'node:os';
import * as Path from 'node:path';

import Knex from 'knex';


export interface TestDatabase {
    readonly name: 'sqlite' | 'postgresql';
    create(): Promise<{ url: string; drop: () => Promise<void> }>;
}

const sqlite: TestDatabase = {
    name: 'sqlite',
    create: () => {

        const dir = Fs.mkdtempSync(Path.join(Os.tmpdir(), 'osprey-test-'));
        return Promise.resolve({ url: `sqlite:${Path.join(dir, 'test.sqlite')}`, drop: () => Promise.resolve(Fs.rmSync(dir, { recursive: true, force: true })) });
    }
};

// Each test server gets its own PostgreSQL database, created here and dropped afterwards.
const postgres = (adminUrl: string): TestDatabase => ({
    name: 'postgresql',
    create: async () => {

        const name = `osprey_t_${process.pid}_${Crypto.randomBytes(4).toString('hex')}`;
        const admin = Knex({ client: 'pg', connection: adminUrl, pool: { min: 0, max: 1 } });
        await admin.raw('create database ??', [name]);
        await admin.destroy();
        const url = new URL(adminUrl);
        url.pathname = `/${name}`;
        return {
            url: url.toString(),
            drop: async () => {

                const again = Knex({ client: 'pg', connection: adminUrl, pool: { min: 0, max: 1 } });
                await again.raw('drop database if exists ?? with (force)', [name]);
                await again.destroy();
            }
        };
    }
});

// SQLite always; PostgreSQL too when TEST_DATABASE_URL is set (.ci/run sets it).
export const testDatabases: TestDatabase[] = [sqlite, ...(process.env.TEST_DATABASE_URL ? [postgres(process.env.TEST_DATABASE_URL)] : [])];
