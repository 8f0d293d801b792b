import type Joi from 'joi';

import type { Right } from '../auth/access';
import type { Db } from '../db/db';
import type { DatabaseKind } from '../db/knex';
import type { Registry, Row, Structure } from '../structures/registry';
import type { ActionCall } from './call';


// The actions a server runs (issue 35): record and collection actions by name, per structure or for every
// structure ('*'). The first-party ones (src/actions/built-in.ts), the workflows of the YAML and plugins register
// here through `server.registerAction` / `server.registerWebMethod`; a YAML `actions:` entry names one of them as
// its handler. Names a client sends are looked up in Maps, in lower case, never on plain objects.

/** The kinds of a name, by its prefix: `wsmethod:X`, `workflow:X`, `system:X`, or a plain name. */
export type ActionKind = 'wsmethod' | 'workflow' | 'system' | 'action';

export interface ActionSpec {
    /** Runs the action in its one transaction; what it answers is the action's result (undefined: none). */
    readonly handler: (call: ActionCall) => unknown;
    /** The Joi schema of the payload (the JSON body); none: the action takes no payload, and a body is refused. */
    readonly schema?: Joi.Schema;
    /** On one record (`…/os/{os}/{id}?action=`, the default) or on the collection (`…/os/{os}?action=`). */
    readonly scope?: 'record' | 'collection';
    /** The right it needs on the structure: `actions` unless given; `none` for a question anyone who reads may ask. */
    readonly right?: Right | 'none';
    readonly description?: string;
    /** Whether the action is open on this record now (allowedactions lists only those); open when not given. */
    readonly available?: (record: Row, structure: Structure) => boolean;
    /** The same question asked of the database, once for the records of a page: answers whether each is open
     * (both this and `available` must say so). */
    readonly availableAmong?: (records: readonly Row[], context: AvailabilityContext) => Promise<(record: Row) => boolean>;
    /** Listed in allowedactions where it is registered for one structure (true unless false); an action for every
     * structure is listed only where the structure's YAML declares it. */
    readonly listed?: boolean;
    /** The JSON schema of the payload allowedactions shows; worked out from `schema` when not given. */
    readonly jsonSchema?: Readonly<Record<string, unknown>>;
    /** Nothing it writes is kept: its transaction always rolls back (a question such as system:candelete). */
    readonly dryRun?: boolean;
    /** The record is read without a lock (false): for a handler that takes its locks itself, in an order of its own
     * (a workflow's assignment locks its record first, so that two sibling assignments cannot deadlock). */
    readonly lock?: boolean;
}

export interface AvailabilityContext {
    /** Where the page was read: the pool, or the transaction of the write that answers it. */
    readonly db: Db;
    readonly structure: Structure;
    readonly registry: Registry;
    readonly kind: DatabaseKind;
}

export interface RegisteredAction {
    /** As registered: `wsmethod:changeStatus`. */
    readonly name: string;
    readonly kind: ActionKind;
    /** The name after the kind's prefix: `changeStatus`. */
    readonly method: string;
    /** The structure's name, or '*' for every structure. */
    readonly structure: string;
    readonly spec: ActionSpec;
}

const kinds = new Set<string>(['wsmethod', 'workflow', 'system']);

// A name's kind and method: `WSMETHOD:changeStatus` is a wsmethod named changeStatus; `approve` a plain action.
export const parseActionName = (name: string): { kind: ActionKind; method: string } => {

    const colon = name.indexOf(':');
    const prefix = colon > 0 ? name.slice(0, colon).toLowerCase() : '';
    return kinds.has(prefix) ? { kind: prefix as ActionKind, method: name.slice(colon + 1) } : { kind: 'action', method: name };
};

// The key a name is found by: its kind and its method in lower case (Maximo's names are not case-sensitive).
export const actionKey = (name: string): string => {

    const { kind, method } = parseActionName(name.trim());
    return `${kind}:${method.toLowerCase()}`;
};

export class ActionRegistryError extends Error { }

// Names Object.prototype has: an answer keyed by action names (allowedactions) must not meet them.
const prototypeNames = new Set(['__proto__', 'constructor', 'prototype']);

const validName = /^(?:(?:wsmethod|workflow|system):)?[A-Za-z_][\w.-]{0,99}$/i;

export class Actions {

    readonly #byStructure = new Map<string, Map<string, RegisteredAction>>();

    // Registers an action; a name registered twice for the same structure is a mistake of the plugins, not a
    // replacement, so it stops the start.
    register(structure: string, name: string, spec: ActionSpec): RegisteredAction {

        if (typeof name !== 'string' || !validName.test(name) || prototypeNames.has(parseActionName(name).method)) {
            throw new ActionRegistryError(`An action name is a word, optionally after wsmethod:, workflow: or system: (${JSON.stringify(name)} is not).`);
        }

        if (typeof spec?.handler !== 'function') {
            throw new ActionRegistryError(`The action ${name} has no handler function.`);
        }

        const owner = structure === '*' ? '*' : structure.toUpperCase();
        const actions = this.#byStructure.get(owner) ?? new Map<string, RegisteredAction>();
        const key = actionKey(name);
        if (actions.has(key)) {
            throw new ActionRegistryError(`The action ${name} is registered twice for ${owner === '*' ? 'every structure' : owner}.`);
        }

        const registered: RegisteredAction = { name, ...parseActionName(name), structure: owner, spec };
        actions.set(key, registered);
        this.#byStructure.set(owner, actions);
        return registered;
    }

    // The action a name calls on a structure: registered for it, else for every structure.
    find(structure: Structure, name: string): RegisteredAction | undefined {

        const key = actionKey(name);
        return this.#byStructure.get(structure.name)?.get(key) ?? this.#byStructure.get('*')?.get(key);
    }

    // The action a YAML `handler:` names: as registered (with its prefix), or by its method alone where that is one.
    handler(structure: Structure, handler: string): RegisteredAction | undefined {

        const exact = this.find(structure, handler);
        if (exact || handler.includes(':')) {
            return exact;
        }

        const wanted = handler.toLowerCase();
        const matches = [...this.#of(structure.name), ...this.#of('*')].filter((action) => action.method.toLowerCase() === wanted);
        return matches.length === 1 ? matches[0] : matches.find((action) => action.structure !== '*');
    }

    // The actions registered for one structure only (not those for every structure).
    registeredFor(structure: Structure): RegisteredAction[] {

        return this.#of(structure.name);
    }

    // The actions registered for every structure.
    forEvery(): RegisteredAction[] {

        return this.#of('*');
    }

    #of(owner: string): RegisteredAction[] {

        return [...this.#byStructure.get(owner)?.values() ?? []];
    }
}
