import * as Fs from 'node:fs';
import * as Path from 'node:path';

import Joi from 'joi';
import * as Yaml from 'yaml';

import { didYouMean } from './structures/suggest';


// A time zone Intl knows (IANA: Europe/London, Asia/Tokyo, UTC).
export const timeZone = Joi.string().custom((value: string, helpers) => {

    try {
        new Intl.DateTimeFormat('en', { timeZone: value });
        return value;
    }
    catch {
        return helpers.message({ custom: `{{#label}} is ${JSON.stringify(value)}, which is not a time zone (an IANA name such as Europe/London, Asia/Tokyo or UTC)` });
    }
});

export interface LicenseEntry {
    component: string;
    license: string;
    key?: string;
}

export interface OspreyOptions {
    port: number;
    host: string;
    databaseUrl: string;
    contextRoot: string;
    structures: string;
    /** Module paths of user plugins, resolved from the working directory (src/user-plugins.ts). */
    plugins: string[];
    demo: boolean;
    secret?: string;
    dataDir: string;
    maxPageSize: number;
    maxBody: number;
    /** Attachments (src/attachments): the largest document, the folder store (none: the database), and the
     * media types a download may show in the browser (any other is a download to save). */
    maxAttachment: number;
    attachmentsDir?: string;
    uploadIdleSeconds: number;
    attachmentInlineTypes: string[];
    /** The cost limits of a read (src/read/plan/cost.ts, README "Limits"). */
    maxSelectDepth: number;
    maxRelationHops: number;
    maxSelectCollections: number;
    maxWhereTerms: number;
    maxWhereJoins: number;
    maxAnswerRows: number;
    maxBulkItems: number;
    /** The time zone reports print datetimes in, unless a report's YAML names its own. */
    reportTimezone: string;
    /** PostgreSQL: the longest a read's statement may run (0: no limit). */
    statementTimeoutMs: number;
    sqliteDriver: 'better-sqlite3' | 'sqlite3';
    sqliteSynchronous: 'OFF' | 'NORMAL' | 'FULL' | 'EXTRA';
    adminUser?: string;
    adminPassword?: string;
    sessionMinutes: number;
    passwordMinLength: number;
    transactionRetentionHours: number;
    heartbeatSeconds: number;
    logLevel: 'silent' | 'error' | 'warn' | 'info' | 'debug';
    /** Pretty (coloured lines for a person) or JSON lines; unset: pretty on a terminal, JSON otherwise. */
    logFormat?: 'pretty' | 'json';
    externalApiKeys: boolean;
    loginAttempts: number;
    loginLockMinutes: number;
    trustProxy: number;
    publicOrigins: string[];
    /** The origins whose web pages may call the API (CORS, src/http/cors.ts); `['*']`: any page, without credentials. */
    corsOrigins: string[];
    uiBase?: string;
    licenses: LicenseEntry[];
}

// Size settings accept bytes or a number with kb/mb/gb.
export const byteSize = Joi.alternatives(
    Joi.number().integer().min(1024),
    Joi.string().trim().lowercase().pattern(/^\d+(\.\d+)?\s*(b|kb|mb|gb)?$/).custom((value: string) => {

        const [, amount, unit] = /^(\d+(?:\.\d+)?)\s*(b|kb|mb|gb)?$/.exec(value)!;
        const factor = { b: 1, kb: 1024, mb: 1024 ** 2, gb: 1024 ** 3 }[(unit ?? 'b') as 'b'];
        return Math.round(Number(amount) * factor);
    })
);

// A comma-separated list (or a YAML list) of origins, each kept as its URL's origin (https://eam.example.com); with
// `star`, a lone `*` too (any origin).
const originList = (name: string, star = false) => {

    return Joi.alternatives(Joi.array().items(Joi.string()), Joi.string().allow('')).custom((value: string | string[], helpers) => {

        const entries = (Array.isArray(value) ? value : value.split(',')).map((entry) => entry.trim()).filter(Boolean);
        if (star && entries.includes('*')) {
            return entries.length === 1 ? entries : helpers.message({ custom: `"${name}" holds * beside other origins; * (any origin) stands alone` });
        }

        const origins = entries.map((entry) => (/^https?:\/\/[^/\s]+\/?$/i.test(entry) && URL.canParse(entry) ? new URL(entry).origin : undefined));
        const bad = entries.find((_, i) => origins[i] === undefined);
        return bad === undefined ? origins : helpers.message({ custom: `"${name}" holds ${JSON.stringify(bad)}, which is not an origin such as https://eam.example.com` });
    });
};

// One schema for every setting, whether it came from the environment or from the config file.
export const optionsSchema = Joi.object<OspreyOptions>({
    port: Joi.number().integer().min(0).max(65535).default(8080).description('PORT: the TCP port to listen on'),
    host: Joi.string().hostname().default('127.0.0.1').description('HOST: the address to listen on'),
    // Without one, the SQLite file is in the data folder (OSPREY_DATA), beside the generated secret.
    databaseUrl: Joi.string().pattern(/^(sqlite:|postgres(ql)?:\/\/)/).default((parent: { dataDir?: unknown }) => `sqlite:${String(parent.dataDir ?? './data').replace(/\/+$/, '')}/osprey.sqlite`)
        .messages({ 'string.pattern.base': '"databaseUrl" must start with sqlite: or postgres://' })
        .description('DATABASE_URL: sqlite:PATH (embedded, default: OSPREY_DATA/osprey.sqlite) or postgres://user@host:port/db'),
    contextRoot: Joi.string().pattern(/^[A-Za-z0-9_-]+$/).default('maximo').description('OSPREY_CONTEXT_ROOT: the first path segment of every route'),
    structures: Joi.string().default('./structures').description('OSPREY_STRUCTURES: the folder of object-structure YAML files'),
    plugins: Joi.alternatives(
        Joi.array().items(Joi.string().trim().min(1)),
        Joi.string().allow('').custom((value: string) => value.split(',').map((path) => path.trim()).filter(Boolean))
    ).default([]).description('OSPREY_PLUGINS: comma-separated module paths of user plugins (from the working directory), registered after the built-in features'),
    demo: Joi.boolean().truthy('1', 'yes', 'on').falsy('0', 'no', 'off').default(true).description('OSPREY_DEMO: 1 seeds the demo users and data into an empty database'),
    secret: Joi.string().min(32).description('OSPREY_SECRET: key material (≥ 32 characters) for secrets at rest; generated into the data folder when absent'),
    dataDir: Joi.string().default('./data').description('OSPREY_DATA: folder for the generated secret and the default SQLite file'),
    maxPageSize: Joi.number().integer().min(1).max(100000).default(1000).description('OSPREY_MAX_PAGE_SIZE: the largest oslc.pageSize a client may ask for'),
    maxBody: byteSize.default(10 * 1024 * 1024).description('OSPREY_MAX_BODY: the largest JSON body accepted (bytes, or e.g. 10mb)'),
    maxAttachment: byteSize.default(100 * 1024 * 1024).description('OSPREY_MAX_ATTACHMENT: the largest attached document (bytes, or e.g. 100mb); a structure\'s `doclinks: { attachments: true, maxSize }` may lower it'),
    attachmentsDir: Joi.string().trim().min(1).description('OSPREY_ATTACHMENTS_DIR: keep attached documents\' bytes in files under this folder instead of the database (every node must see the same folder)'),
    uploadIdleSeconds: Joi.number().min(0.1).max(3600).default(60).description('OSPREY_UPLOAD_IDLE_SECONDS: an upload whose client sends no byte for this long is ended (408) and nothing of it is kept'),
    attachmentInlineTypes: Joi.alternatives(Joi.array().items(Joi.string()), Joi.string().allow('')).custom((value: string | string[], helpers) => {

        const types = (Array.isArray(value) ? value : value.split(',')).map((entry) => entry.trim().toLowerCase()).filter(Boolean);
        const bad = types.find((type) => !/^[a-z0-9][a-z0-9!#$&^_.+-]*\/[a-z0-9][a-z0-9!#$&^_.+-]*$/.test(type));
        return bad === undefined ? types : helpers.message({ custom: `"attachmentInlineTypes" holds ${JSON.stringify(bad)}, which is not a media type such as image/png` });
    }).default(['image/png', 'image/jpeg', 'image/gif', 'image/webp', 'application/pdf']).description('OSPREY_ATTACHMENT_INLINE_TYPES: media types (comma-separated) a download answers inline; any other is answered Content-Disposition: attachment'),
    maxSelectDepth: Joi.number().integer().min(1).max(32).default(3).description('OSPREY_MAX_SELECT_DEPTH: levels of nested child collections and related records one oslc.select may name'),
    maxRelationHops: Joi.number().integer().min(1).max(32).default(8).description('OSPREY_MAX_RELATION_HOPS: relationships one path of oslc.select follows, and relationships and child objects one term of oslc.where follows'),
    maxSelectCollections: Joi.number().integer().min(1).default(20).description('OSPREY_MAX_SELECT_COLLECTIONS: child collections, related records and aggregates one oslc.select loads, at all levels'),
    maxWhereTerms: Joi.number().integer().min(1).default(100).description('OSPREY_MAX_WHERE_TERMS: conditions in one oslc.where'),
    maxWhereJoins: Joi.number().integer().min(1).default(32).description('OSPREY_MAX_WHERE_JOINS: relationships and child objects (EXISTS subqueries) one oslc.where follows in all'),
    maxBulkItems: Joi.number().integer().min(1).default(50000).description('OSPREY_MAX_BULK_ITEMS: items one BULK request may carry (more: a 400 before any is written)'),
    maxAnswerRows: Joi.number().integer().min(1).default(10000).description('OSPREY_MAX_ANSWER_ROWS: rows one answer renders, its records and their child and related rows'),
    reportTimezone: timeZone.default('UTC').description('OSPREY_REPORT_TIMEZONE: the time zone (IANA: Europe/London, Asia/Tokyo) reports print datetimes in, unless a report\'s YAML names its `timezone`'),
    statementTimeoutMs: Joi.number().integer().min(0).default(30000).description('OSPREY_STATEMENT_TIMEOUT_MS: a read statement that runs longer is cancelled (0: never); on SQLite where its cost grows past a scan (relation terms, case-insensitive matching)'),
    sqliteDriver: Joi.string().valid('better-sqlite3', 'sqlite3').default('better-sqlite3').description('OSPREY_SQLITE_DRIVER: better-sqlite3 (fast, default) or sqlite3'),
    sqliteSynchronous: Joi.string().uppercase().valid('OFF', 'NORMAL', 'FULL', 'EXTRA').default('NORMAL').description('OSPREY_SQLITE_SYNCHRONOUS: SQLite durability; NORMAL survives a process crash, FULL also a power loss'),
    adminUser: Joi.string().pattern(/^[A-Za-z0-9_.@-]+$/).max(30).description('OSPREY_ADMIN_USER: an administrator created at start when missing'),
    adminPassword: Joi.string().min(8).description('OSPREY_ADMIN_PASSWORD: that administrator\'s password (≥ 8 characters)'),
    passwordMinLength: Joi.number().integer().min(1).max(200).default(8).description('OSPREY_PASSWORD_MIN_LENGTH: the fewest characters a password set through MXAPIMAXUSER or the osprey command may have'),
    sessionMinutes: Joi.number().integer().min(1).default(30).description('OSPREY_SESSION_MINUTES: idle time after which a login session ends'),
    transactionRetentionHours: Joi.number().min(0).default(24).description('OSPREY_TRANSACTION_RETENTION_HOURS: how long a transactionid is remembered'),
    heartbeatSeconds: Joi.number().min(0.05).default(5).description('OSPREY_HEARTBEAT_SECONDS: how often a node reports itself in members'),
    logLevel: Joi.string().valid('silent', 'error', 'warn', 'info', 'debug').default('info').description('OSPREY_LOG: silent, error, warn (lockouts, a node leaving), info (one line per request, and the server\'s events) or debug (each request\'s statements, the parameter gate, cache hits)'),
    logFormat: Joi.string().valid('pretty', 'json').description('OSPREY_LOG_FORMAT: pretty (one coloured line per event) or json (one JSON object per line); unset: pretty when standard output is a terminal, else json'),
    externalApiKeys: Joi.boolean().truthy('1', 'yes', 'on').falsy('0', 'no', 'off').default(false).description('OSPREY_EXTERNAL_APIKEYS: 1 lets administrators supply a key value (≥ 32 characters) when creating an API key'),
    loginAttempts: Joi.number().integer().min(1).default(10).description('OSPREY_LOGIN_ATTEMPTS: failed logins of one user (or 5× as many from one address) before 429'),
    loginLockMinutes: Joi.number().min(0.01).default(15).description('OSPREY_LOGIN_LOCK_MINUTES: how long failures count, and how long a 429 lasts'),
    trustProxy: Joi.number().integer().min(0).max(10).default(0).description('OSPREY_TRUST_PROXY: how many proxies in front of Osprey append to X-Forwarded-For; the client address (login limits) is the one the outermost of them saw, and hrefs follow the X-Forwarded-Proto and X-Forwarded-Host it set. 0: the connection\'s address and scheme, the headers ignored'),
    publicOrigins: originList('publicOrigins').default([]).description('OSPREY_PUBLIC_ORIGINS: the origins (comma-separated) clients reach Osprey by, e.g. https://eam.example.com; hrefs follow a Host, X-Forwarded-Host or x-public-uri only among them. None: any well-formed Host, and x-public-uri only when it names the request\'s own origin'),
    corsOrigins: originList('corsOrigins', true).default([]).description('OSPREY_CORS_ORIGINS: the origins (comma-separated) of the web pages that may call the API from a browser (CORS), e.g. https://app.example.com, with credentials; * alone: any page, without credentials. None: no CORS, and OPTIONS is a 405'),
    uiBase: Joi.string().uri({ scheme: ['http', 'https'] }).replace(/\/+$/, '').description('OSPREY_UI_BASE: the origin of the Maximo UI that records link to (_weblink), e.g. https://maximo.example.com'),
    licenses: Joi.array().items(Joi.object({
        component: Joi.string().required(),
        license: Joi.string().required(),
        key: Joi.string()
    })).default([{ component: 'Osprey', license: 'Apache-2.0' }]).description('licenses (config file only): the components listed by /license')
}).and('adminUser', 'adminPassword');

const envNames: Record<string, keyof OspreyOptions> = {
    PORT: 'port',
    HOST: 'host',
    DATABASE_URL: 'databaseUrl',
    OSPREY_CONTEXT_ROOT: 'contextRoot',
    OSPREY_STRUCTURES: 'structures',
    OSPREY_PLUGINS: 'plugins',
    OSPREY_DEMO: 'demo',
    OSPREY_SECRET: 'secret',
    OSPREY_DATA: 'dataDir',
    OSPREY_MAX_PAGE_SIZE: 'maxPageSize',
    OSPREY_MAX_BODY: 'maxBody',
    OSPREY_MAX_ATTACHMENT: 'maxAttachment',
    OSPREY_ATTACHMENTS_DIR: 'attachmentsDir',
    OSPREY_UPLOAD_IDLE_SECONDS: 'uploadIdleSeconds',
    OSPREY_ATTACHMENT_INLINE_TYPES: 'attachmentInlineTypes',
    OSPREY_MAX_SELECT_DEPTH: 'maxSelectDepth',
    OSPREY_MAX_RELATION_HOPS: 'maxRelationHops',
    OSPREY_MAX_SELECT_COLLECTIONS: 'maxSelectCollections',
    OSPREY_MAX_WHERE_TERMS: 'maxWhereTerms',
    OSPREY_MAX_WHERE_JOINS: 'maxWhereJoins',
    OSPREY_MAX_ANSWER_ROWS: 'maxAnswerRows',
    OSPREY_MAX_BULK_ITEMS: 'maxBulkItems',
    OSPREY_REPORT_TIMEZONE: 'reportTimezone',
    OSPREY_STATEMENT_TIMEOUT_MS: 'statementTimeoutMs',
    OSPREY_SQLITE_DRIVER: 'sqliteDriver',
    OSPREY_SQLITE_SYNCHRONOUS: 'sqliteSynchronous',
    OSPREY_ADMIN_USER: 'adminUser',
    OSPREY_ADMIN_PASSWORD: 'adminPassword',
    OSPREY_PASSWORD_MIN_LENGTH: 'passwordMinLength',
    OSPREY_SESSION_MINUTES: 'sessionMinutes',
    OSPREY_TRANSACTION_RETENTION_HOURS: 'transactionRetentionHours',
    OSPREY_HEARTBEAT_SECONDS: 'heartbeatSeconds',
    OSPREY_LOG: 'logLevel',
    OSPREY_LOG_FORMAT: 'logFormat',
    OSPREY_EXTERNAL_APIKEYS: 'externalApiKeys',
    OSPREY_LOGIN_ATTEMPTS: 'loginAttempts',
    OSPREY_LOGIN_LOCK_MINUTES: 'loginLockMinutes',
    OSPREY_TRUST_PROXY: 'trustProxy',
    OSPREY_PUBLIC_ORIGINS: 'publicOrigins',
    OSPREY_CORS_ORIGINS: 'corsOrigins',
    OSPREY_UI_BASE: 'uiBase'
};

export const settingNames = envNames;

export class ConfigError extends Error { }

// Validates raw settings; every problem is reported at once, by the name the user wrote.
export const validateOptions = (raw: Record<string, unknown>, source: (key: string) => string = (key) => key): OspreyOptions => {

    const { value, error } = optionsSchema.validate(raw, { abortEarly: false, convert: true });
    if (error) {
        const lines = error.details.map((detail) => {

            const keys = detail.path.length ? [String(detail.path[0])] : [...(detail.context?.present ?? []), ...(detail.context?.missing ?? [])] as string[];
            const suggestion = detail.type === 'object.unknown' ? didYouMean(keys[0]!, Object.keys(optionsSchema.describe().keys!)) : '';
            return `- ${keys.map(source).join(', ')}: ${detail.message}${suggestion}`;
        });
        throw new ConfigError(`Invalid configuration:\n${lines.join('\n')}`);
    }

    return value;
};

// Environment first, then the config file on top of it (the file is the more specific choice).
export const loadOptions = (env: NodeJS.ProcessEnv, configFile?: string): OspreyOptions => {

    const raw: Record<string, unknown> = {};
    const origin: Record<string, string> = {};
    for (const [name, key] of Object.entries(envNames)) {
        const value = env[name];
        if (value !== undefined && value !== '') {
            raw[key] = value;
            origin[key] = name;
        }
    }

    if (configFile) {
        let parsed: unknown;
        try {
            parsed = Yaml.parse(Fs.readFileSync(configFile, 'utf8'));
        }
        catch (err) {
            throw new ConfigError(`Cannot read config file ${configFile}: ${(err as Error).message}`);
        }

        if (parsed !== null && (typeof parsed !== 'object' || Array.isArray(parsed))) {
            throw new ConfigError(`Config file ${configFile} must hold a mapping of settings`);
        }

        for (const [key, value] of Object.entries(parsed ?? {})) {
            raw[key] = value;
            origin[key] = `${Path.basename(configFile)}: ${key}`;
        }
    }

    const envName = (key: string) => Object.entries(envNames).find(([, option]) => option === key)?.[0] ?? key;
    return validateOptions(raw, (key) => origin[key] ?? envName(key));
};
