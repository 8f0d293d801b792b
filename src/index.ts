// The package root (`main` in package.json): what a plugin author or an embedder may use. Everything else under
// src/ and plugins/ is internal and may change without notice.

// Composes a ready (not yet started) Osprey server; `plugins` adds hapi plugins after the built-in features.
export { createServer, type ServerSetup } from './server';
// The application as a hapi plugin, and the options it is registered with, for composing your own hapi server.
export { app, type AppOptions } from './app';
// Every setting of the server (src/config.ts), and the check that fills in the defaults of a partial set.
export { validateOptions, type OspreyOptions } from './config';
// What a plugin reads from `server.app.osprey` and `request.auth.credentials` (importing them also types both).
export type { Osprey, Credentials } from './context';
// The object-structure registry (`server.app.osprey.registry`) and the shapes it answers with.
export type { Registry, Structure, BusinessObject, Child, Attribute } from './structures/registry';
// The Objection model of each business object (children and YAML relations as relations): raw data access, no rules.
export { modelsOf, relationName, type ObjectModel } from './db/models';
// Throws an error the server answers in Maximo's JSON error shape, with the status and code of a reason.
export { maximoError, type MaximoErrorData } from './errors/maximo-error';
// The reasons maximoError accepts, with the Maximo code, HTTP status and default message of each.
export { reasonCodes, type ReasonName } from './errors/codes';

// The write pipeline
// The request value the record routes become, and the write engine's entry points that take it (no hapi request).
export type { ResourceRequest, RenderFlags } from './request';
export type { WriteOptions } from './write/request';
export { createRecord, updateRecord, syncRecord, removeRecord, type WriteOutcome } from './write/records';
export { bulkWrite, type BulkResult } from './write/bulk';
// After-commit hooks: what each committed write transaction of a server wrote, where events attach.
export { onCommit, type Commit, type CommittedWrite, type CommitSubscriber } from './write/after-commit';
export type { WriteKind } from './write/rights';
