import type { Knex } from 'knex';

import { apiKeyObject } from '../auth/api-key-hooks';
import { stampCredentialChanges } from '../auth/credential-stamp';
import { Users } from '../auth/users';
import type { OspreyOptions } from '../config';
import { createKnex, databaseKind } from '../db/knex';
import { migrate } from '../db/migrate';
import { withMigrationLock } from '../db/migration-lock';
import { ensureGroups } from '../demo/users';
import { loadRegistry } from '../load-registry';


export interface Opened {
    readonly knex: Knex;
    readonly users: Users;
}

// The database of the settings, prepared as a server start prepares it (its tables migrated to the structures,
// the credential triggers in place, the groups every installation has), so that the first administrator can be
// made before the first start. One node at a time, as at a start (migration-lock.ts).
export const openDatabase = async (options: OspreyOptions): Promise<Opened> => {

    const registry = loadRegistry(options.structures);
    const kind = databaseKind(options.databaseUrl);
    const keyTable = registry.byObject(apiKeyObject)?.root.table;
    const knex = createKnex(options);
    const users = new Users(knex, keyTable);
    try {
        await withMigrationLock(options.databaseUrl, () => undefined, async () => {

            await migrate(knex, registry, kind);
            await stampCredentialChanges(knex, kind, keyTable);
            await ensureGroups(users);
        });
    }
    catch (error) {
        await knex.destroy();
        throw error;
    }

    return { knex, users };
};
