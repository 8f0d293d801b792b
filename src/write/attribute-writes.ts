import type { EngineWrites } from '../actions/call';
import type { UserProfile } from '../auth/users';
import type { Db } from '../db/db';
import { boundModels, type ObjectModel } from '../db/models';
import type { ResourceRequest } from '../request';
import type { BusinessObject, Registry, Row, Structure } from '../structures/registry';
import type { AttributeWriteRunner, WriteScope } from './context';


// Handlers of non-persistent attributes (issue 35): a plugin claims attributes a business object declares
// `persistent: false` (a meter's newreading), and the write engine calls its handler for every row a write creates
// or updates with any of them, inside the write's transaction, after the row (and its children) are applied. What
// the handler writes is part of the write: a handler that throws rolls all of it back, and its error is the
// answer. An attribute no handler claims is written as before: accepted and not stored, or, where Osprey names
// the feature it belongs to (src/http/unserved.ts, ASSETMETER.newreading), refused 501 by name.

/** What a handler is given for one written row. */
export interface AttributeWrite {
    /** The structure the write is on (MXAPIASSET) and the business object of the row (ASSETMETER). */
    readonly structure: Structure;
    readonly object: BusinessObject;
    readonly operation: 'create' | 'update';
    /** The row as applied: an update's whole; a created row's keys, join values, unique id and rowstamp (all of
     * it when the write answers a record). */
    readonly row: Row;
    /** The record's row (the structure's root) as applied; the same as `row` for a root object's attribute. */
    readonly record: Row;
    /** The claimed attributes the body sent for this row, typed as the YAML declares them (a decimal's "10" is 10;
     * a value the type refuses never gets here: it is a 400 naming the attribute). Null where the body sent null. */
    readonly values: Readonly<Record<string, unknown>>;
    readonly user: UserProfile;
    /** The one time the write's rows are stamped with. */
    readonly now: Date;
    /** The write's transaction and the models bound to it: raw statements, no rules. */
    readonly db: Db;
    readonly models: ReadonlyMap<string, ObjectModel>;
    /** Writes through the engine, as the write's user, in the same transaction (as an action's are). */
    readonly write: EngineWrites;
}

export type AttributeWriteHandler = (call: AttributeWrite) => Promise<void> | void;

export class AttributeWriteError extends Error { }

interface Claim {
    readonly attributes: ReadonlySet<string>;
    readonly handler: AttributeWriteHandler;
}

export class AttributeWrites {

    // Object name → its claims; object and attribute names as the YAML has them (upper, lower case).
    readonly #claims = new Map<string, Claim[]>();
    readonly #engine: (req: ResourceRequest, scope: WriteScope) => EngineWrites;

    constructor(engine: (req: ResourceRequest, scope: WriteScope) => EngineWrites) {

        this.#engine = engine;
    }

    // Claims attributes of a business object; each must be declared `persistent: false` on it, and claimed once.
    register(registry: Registry, objectName: string, attributes: string | readonly string[], handler: AttributeWriteHandler): void {

        const name = String(objectName).toUpperCase();
        const object = registry.objects().find((candidate) => candidate.name === name);
        const names = (typeof attributes === 'string' ? [attributes] : [...attributes]).map((attribute) => String(attribute).toLowerCase());
        if (typeof handler !== 'function') {
            throw new AttributeWriteError(`The attribute handler of ${name} is not a function.`);
        }

        if (!object) {
            throw new AttributeWriteError(`An attribute handler names ${name}, which no object structure of this server declares.`);
        }

        if (names.length === 0) {
            throw new AttributeWriteError(`An attribute handler of ${name} names no attribute.`);
        }

        for (const attribute of names) {
            const declared = object.attributes.get(attribute);
            if (!declared || declared.persistent) {
                throw new AttributeWriteError(`An attribute handler names ${name}.${attribute.toUpperCase()}, which is not declared \`persistent: false\` on ${name}: a handler takes the values a write sends and the engine does not store.`);
            }

            if (this.#claimOf(name, attribute)) {
                throw new AttributeWriteError(`${name}.${attribute.toUpperCase()} has a handler already.`);
            }
        }

        this.#claims.set(name, [...this.#claims.get(name) ?? [], { attributes: new Set(names), handler }]);
    }

    claims(object: BusinessObject, attribute: string): boolean {

        return this.#claimOf(object.name, attribute) !== undefined;
    }

    // The runner of one request's writes: its handlers write through the engine as that request's user.
    runnerFor(req: ResourceRequest): AttributeWriteRunner | undefined {

        if (this.#claims.size === 0) {
            return undefined;
        }

        return {
            claims: (object, attribute) => this.claims(object, attribute),
            run: async (scope, { object, operation, row, record, transient }) => {

                for (const claim of this.#claims.get(object.name) ?? []) {
                    const sent = Object.keys(transient).filter((attribute) => claim.attributes.has(attribute));
                    if (sent.length === 0) {
                        continue;
                    }

                    const values: Record<string, unknown> = Object.create(null);
                    sent.forEach((attribute) => (values[attribute] = transient[attribute]));
                    await claim.handler({
                        structure: scope.structure,
                        object,
                        operation,
                        row,
                        record,
                        values,
                        user: scope.ctx.user,
                        now: scope.ctx.now,
                        db: scope.db,
                        models: boundModels(req.osprey.models, scope.db),
                        write: this.#engine(req, scope)
                    });
                }
            }
        };
    }

    #claimOf(objectName: string, attribute: string): Claim | undefined {

        return this.#claims.get(objectName)?.find((claim) => claim.attributes.has(attribute));
    }
}
