import * as Fs from 'node:fs';
import * as Path from 'node:path';

import type { Knex } from 'knex';

import type { Actions } from './actions/registry';
import type { Attachments } from './attachments/attachments';
import type { ReportRenderers } from './reports/renderers';
import type { ApiKeys } from './auth/api-keys';
import type { Sessions } from './auth/sessions';
import type { UserProfile, Users } from './auth/users';
import type { Members } from './cluster/members';
import type { OspreyOptions } from './config';
import type { Db } from './db/db';
import type { DatabaseKind } from './db/knex';
import type { Logger } from './log/logger';
import type { ObjectModel } from './db/models';
import type { Registry } from './structures/registry';
import type { Properties } from './services/properties';
import type { Services } from './services/registry';
import type { AttributeWrites } from './write/attribute-writes';


// What every feature plugin reads from `server.app.osprey`: the one place the app's parts meet.
export interface Osprey {
    readonly options: OspreyOptions;
    /** 32 bytes of key material for secrets at rest (API keys) and signed tokens (stable paging). */
    readonly secret: Buffer;
    readonly registry: Registry;
    readonly knex: Knex;
    /** Reads outside a transaction (db.ts): made-once SQL straight to the driver, query builders through its knex.
     * On a SQLite file these are read-only connections beside the writer's (knex.ts createReaderKnex): never
     * write through it. */
    readonly db: Db;
    readonly kind: DatabaseKind;
    /** Reads test the statement timeout's deadline from inside their statements (SQLite through better-sqlite3:
     * src/db/sqlite-deadline.ts); PostgreSQL cancels them itself. */
    readonly deadlines: boolean;
    /** OR-ed case-insensitive LIKEs of one attribute fold it once per row: PostgreSQL's LIKE ANY, and on SQLite
     * through better-sqlite3 osprey_like_any (src/db/like-any.ts); the sqlite3 driver has no function of Osprey's. */
    readonly likeAny: boolean;
    readonly databaseVersion: string;
    /** An Objection model per business object, with its children and relations (src/db/models.ts): raw data access. */
    readonly models: ReadonlyMap<string, ObjectModel>;
    readonly users: Users;
    readonly apiKeys: ApiKeys;
    readonly sessions: Sessions;
    readonly members: Members;
    /** The actions records and collections run (`?action=`): built in, of the YAML's workflows, and plugins'. */
    readonly actions: Actions;
    /** The report renderers a YAML report's `handler` names: `server.registerReportRenderer(name, spec)` adds one. */
    readonly reportRenderers: ReportRenderers;
    /** The services of service endpoints ({home}/service/{name}): `server.registerService(name, spec)` adds one. */
    readonly services: Services;
    /** The declared system properties and their values in osprey_property: `server.declareProperty(name, spec)`. */
    readonly properties: Properties;
    /** Attachments: where documents' bytes are kept, and the sweeper of those deleted (src/attachments). */
    readonly attachments: Attachments;
    /** Plugins' handlers of non-persistent attributes a write sends: `server.onAttributeWrite(object, attributes, handler)`. */
    readonly attributeWrites: AttributeWrites;
    /** The server's log (src/log/logger.ts): events of its parts, beside the request lines. */
    readonly log: Logger;
    readonly started: Date;
    readonly version: string;
    readonly products: { name: string; version: string; description: string }[];
}

export interface Credentials {
    readonly user: UserProfile;
    readonly method: 'maxauth' | 'basic' | 'lid' | 'form' | 'session' | 'apikey';
    readonly sessionToken?: string;
    /** A session offered to a password login that brought no cookie (src/auth/sessions.ts). */
    readonly offeredSession?: string;
}

declare module '@hapi/hapi' {
    interface ServerApplicationState {
        osprey: Osprey;
    }

    // eslint-disable-next-line @typescript-eslint/no-empty-object-type
    interface UserCredentials extends UserProfile { }

    interface AuthCredentials {
        method?: Credentials['method'];
        sessionToken?: string;
        offeredSession?: string;
    }

    interface RequestApplicationState {
        requestId?: string;
        /** `x-method-override: MERGE` (a PATCH that keeps the children the body leaves out). */
        mergeOverride?: boolean;
        /** A form login's j_redirect: where its browser goes back to (src/http/login-page.ts). */
        loginReturn?: string;
        /** With OSPREY_LOG=debug: the statements the request ran and their time (src/log/statements.ts). */
        statements?: { count: number; ms: number };
    }
}

// The package root: src/ when run from source (tests), dist/src/ when compiled.
const packageFile = (): string => {

    let dir = __dirname;
    while (!Fs.existsSync(Path.join(dir, 'package.json'))) {
        dir = Path.dirname(dir);
    }

    return Path.join(dir, 'package.json');
};

export const version: string = (JSON.parse(Fs.readFileSync(packageFile(), 'utf8')) as { version: string }).version;
