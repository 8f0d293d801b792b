import type * as Hapi from '@hapi/hapi';

import { ActionRegistryError, type ActionSpec, type RegisteredAction } from './actions/registry';
import type { Db } from './db/db';
import { boundModels, type ObjectModel } from './db/models';
import { transaction } from './db/transaction';
import type { RegisteredRenderer, ReportRendererSpec } from './reports/renderers';
import type { DeclaredProperty, PropertySpec, PropertyValue } from './services/properties';
import type { RegisteredService, ServiceSpec } from './services/registry';
import { everythingPlan } from './read/plan/select-plan';
import { addComputed, ComputedError, type ComputedSpec } from './structures/computed';
import type { Registry } from './structures/registry';
import { onCommit, type CommitSubscriber } from './write/after-commit';
import type { AttributeWriteHandler } from './write/attribute-writes';


// The registries a plugin reads and the work it runs, as decorations of every server object (each plugin's
// included), named by what they give or do: `server.structures()`, `server.models()`, `server.inTransaction(work)`,
// `server.onCommit(subscriber)`, `server.onAttributeWrite(object, attributes, handler)`,
// `server.registerService(name, spec)`, `server.declareProperty(name, spec)`, `server.property(name)`.
// The osprey app plugin (src/app.ts) adds them when it has made `server.app.osprey`, before any feature plugin.

// What the work of inTransaction is given: the transaction's Db (statements on its connection) and the models
// bound to that connection.
export interface TransactionScope {
    readonly db: Db;
    readonly models: ReadonlyMap<string, ObjectModel>;
}

// Runs work in one Osprey transaction (src/db/transaction.ts): committed when it resolves, rolled back when it
// throws. Its models' queries, relations fetched with withGraphFetched included, run on the transaction's
// connection. Inside it use only its `db` and `models`: on SQLite the pool holds one connection, which the
// transaction has, so a statement on the pool (`osprey.knex`, `server.models()`) would wait for it to end. After
// it they refuse every statement (src/db/db.ts): their connection is back in the pool, maybe in another
// request's transaction.
export const inTransaction = <T>(server: Hapi.Server, work: (scope: TransactionScope) => Promise<T>): Promise<T> => {

    const osprey = server.app.osprey;
    return transaction(osprey.knex, (db) => work({ db, models: boundModels(osprey.models, db) }));
};

// An action is registered for a structure of this server's registry, or for every one ('*'): a name that is
// neither is a plugin's mistake, and stops the start.
const knownStructure = (server: Hapi.Server, structure: string): string => {

    if (structure !== '*' && (typeof structure !== 'string' || !server.app.osprey.registry.get(structure))) {
        throw new ActionRegistryError(`An action is registered for ${JSON.stringify(structure)}, which is not an object structure of this server (or '*', every one).`);
    }

    return structure;
};

export const decorate = (server: Hapi.Server): void => {

    server.decorate('server', 'structures', function (this: Hapi.Server) {

        return this.app.osprey.registry;
    });
    server.decorate('server', 'models', function (this: Hapi.Server) {

        return this.app.osprey.models;
    });
    server.decorate('server', 'inTransaction', function (this: Hapi.Server, work: (scope: TransactionScope) => Promise<unknown>) {

        return inTransaction(this, work);
    });
    server.decorate('server', 'registerAction', function (this: Hapi.Server, structure: string, name: string, spec: ActionSpec) {

        return this.app.osprey.actions.register(knownStructure(this, structure), name, spec);
    });
    server.decorate('server', 'registerWebMethod', function (this: Hapi.Server, structure: string, method: string, spec: ActionSpec) {

        return this.app.osprey.actions.register(knownStructure(this, structure), `wsmethod:${method}`, spec);
    });
    server.decorate('server', 'registerReportRenderer', function (this: Hapi.Server, name: string, spec: ReportRendererSpec) {

        return this.app.osprey.reportRenderers.register(name, spec);
    });
    server.decorate('server', 'registerComputed', function (this: Hapi.Server, structure: string, attribute: string, spec: ComputedSpec) {

        const found = this.app.osprey.registry.get(String(structure));
        if (!found) {
            throw new ComputedError(`registerComputed: there is no object structure ${String(structure)}.`);
        }

        addComputed(found.root, attribute, spec);
        // A read without a select renders it too: the plan of no select is made again.
        everythingPlan.forget(found.root);
    });
    server.decorate('server', 'onCommit', function (this: Hapi.Server, subscriber: CommitSubscriber) {

        return onCommit(this.app.osprey, subscriber);
    });
    server.decorate('server', 'onAttributeWrite', function (this: Hapi.Server, object: string, attributes: string | readonly string[], handler: AttributeWriteHandler) {

        this.app.osprey.attributeWrites.register(this.app.osprey.registry, object, attributes, handler);
    });
    server.decorate('server', 'registerService', function (this: Hapi.Server, name: string, spec: ServiceSpec) {

        return this.app.osprey.services.register(name, spec);
    });
    server.decorate('server', 'declareProperty', function (this: Hapi.Server, name: string, spec: PropertySpec) {

        return this.app.osprey.properties.declare(name, spec);
    });
    server.decorate('server', 'property', function (this: Hapi.Server, name: string) {

        return this.app.osprey.properties.value(name);
    });
};

declare module '@hapi/hapi' {
    // The class's own type parameter, which a merged declaration must repeat.
    // eslint-disable-next-line @typescript-eslint/no-unused-vars
    interface Server<A = ServerApplicationState> {
        /** The object-structure registry: the structures loaded from YAML, their business objects and domains. */
        structures(): Registry;
        /** The Objection model of each business object by name (`WORKORDER`), bound to the pool: raw data access. */
        models(): ReadonlyMap<string, ObjectModel>;
        /** Runs work in one Osprey transaction, with its Db and the models bound to its connection. */
        inTransaction<T>(work: (scope: TransactionScope) => Promise<T>): Promise<T>;
        /** Subscribes to what each committed write transaction of this server wrote (where events attach); the
         * answer unsubscribes. */
        onCommit(subscriber: CommitSubscriber): () => void;
        /** Adds an action to a structure's records (or, with `scope: 'collection'`, its collection), or with
         * structure '*' to every structure's: run by `?action=NAME`, and a handler a YAML `actions:` entry may name. */
        registerAction(structure: string, name: string, spec: ActionSpec): RegisteredAction;
        /** registerAction of `wsmethod:{method}`. */
        registerWebMethod(structure: string, method: string, spec: ActionSpec): RegisteredAction;
        /** Claims non-persistent attributes (`persistent: false` in the YAML) of a business object: the handler runs
         * for each row a write creates or updates with any of them, in the write's transaction after the row is
         * applied; what it writes is part of the write, and its error rolls the write back (src/write/attribute-writes.ts).
         * An attribute is claimed once; one the object does not declare non-persistent throws. */
        onAttributeWrite(object: string, attributes: string | readonly string[], handler: AttributeWriteHandler): void;
        /** Adds a report renderer, which a YAML report names as its `handler` (in place of or beside `columns`):
         * genreport hands it the report, the request and the records the request names (src/reports/renderers.ts). */
        registerReportRenderer(name: string, spec: ReportRendererSpec): RegisteredRenderer;
        /** Gives the value of an attribute the structure's YAML declares `persistent: false` on its root object: it
         * renders (selected or with `*`) as `value(row, now)` answers; with `sql` it also filters (oslc.where). */
        registerComputed(structure: string, attribute: string, spec: ComputedSpec): void;
        /** Adds a service of service endpoints: `{home}/service/{name}?action=wsmethod:{method}` calls its methods
         * (src/services/registry.ts). Names are not case-sensitive; registering one twice throws. */
        registerService(name: string, spec: ServiceSpec): RegisteredService;
        /** Declares a system property, which the system service reads and administrators set
         * (src/services/properties.ts); declaring one twice throws. */
        declareProperty(name: string, spec: PropertySpec): DeclaredProperty;
        /** A system property's value as its type, read from the database (null while it has none, and no
         * default). Secret properties too: they are kept from clients, not from the server. */
        property(name: string): Promise<PropertyValue | null>;
    }
}
