import type * as Hapi from '@hapi/hapi';
import Joi from 'joi';

import type { UserProfile } from '../auth/users';
import type { Osprey } from '../context';


// The services of service endpoints ({home}/service/{name}?action=wsmethod:{method}), as Maximo's application
// services expose their annotated methods: a plugin registers one (`server.registerService(name, spec)`), the
// route of plugins/services calls its methods (src/services/dispatch.ts). Kept in Maps: the names a client
// sends index them, and `__proto__` or `constructor` must find nothing.

/** Who may call a method: any signed-in user, or administrators only (a member of an `isadmin` group). */
export type ServiceRight = 'admin' | 'user';

/** What a method's handler is given. `args` are the arguments as the schema made them (converted, defaults
 * filled in), an object without a prototype. */
export interface ServiceCall {
    readonly request: Hapi.Request;
    readonly args: Readonly<Record<string, unknown>>;
    readonly user: UserProfile;
    readonly osprey: Osprey;
}

export interface ServiceMethod {
    /** One sentence: what the method does. */
    readonly description: string;
    /** A Joi object schema of the arguments; without one the method takes none. Names it does not declare are
     * refused by name. */
    readonly schema?: Joi.ObjectSchema;
    /** 'user' when not given. */
    readonly right?: ServiceRight;
    /** The answer: an object or an array is answered as it is; a string, number, boolean or null as Maximo
     * answers a scalar, `{"return": value}`; undefined as 200 with no body. */
    readonly handler: (call: ServiceCall) => unknown;
}

export interface ServiceSpec {
    readonly description?: string;
    readonly methods: Readonly<Record<string, ServiceMethod>>;
}

export interface RegisteredMethod extends ServiceMethod {
    readonly name: string;
    readonly right: ServiceRight;
    /** The argument names the schema declares. */
    readonly arguments: readonly string[];
}

export interface RegisteredService {
    /** As registered, lower case (service names are not case-sensitive, as Maximo's are not). */
    readonly name: string;
    readonly description: string;
    readonly methods: ReadonlyMap<string, RegisteredMethod>;
}

const serviceName = /^[a-z][a-z0-9_.-]{0,63}$/;
const methodName = /^[A-Za-z][A-Za-z0-9_]{0,99}$/;

// The argument names of an object schema, as Joi describes it.
const argumentsOf = (schema: Joi.ObjectSchema | undefined, label: string): string[] => {

    if (schema === undefined) {
        return [];
    }

    if (!Joi.isSchema(schema) || schema.type !== 'object') {
        throw new Error(`${label}: its schema is a Joi object schema (Joi.object({ … })) of the arguments.`);
    }

    const keys = (schema.describe() as { keys?: Record<string, unknown> }).keys;
    return keys ? Object.keys(keys) : [];
};

export class Services {

    readonly #services = new Map<string, RegisteredService>();

    /** `reserved`: names routed elsewhere (a service Osprey does not provide answers 501 on its own route). */
    constructor(private readonly reserved: ReadonlySet<string> = new Set()) { }

    register(name: string, spec: ServiceSpec): RegisteredService {

        const key = String(name).toLowerCase();
        if (!serviceName.test(key)) {
            throw new Error(`The service name ${name} is not one a URL path segment carries as it is: a letter, then letters, digits, _, . or -, 64 at most.`);
        }

        if (this.#services.has(key)) {
            throw new Error(`The service ${key} is registered twice.`);
        }

        if (this.reserved.has(key)) {
            throw new Error(`The service ${key} is routed as one Osprey does not provide (src/http/unserved.ts), so it cannot be registered.`);
        }

        const methods = new Map<string, RegisteredMethod>();
        for (const [method, entry] of Object.entries(spec.methods ?? {})) {
            const label = `The method ${method} of the service ${key}`;
            if (!methodName.test(method)) {
                throw new Error(`${label}: a method name is a letter, then letters, digits or _.`);
            }

            if (typeof entry?.handler !== 'function' || typeof entry.description !== 'string') {
                throw new Error(`${label} has a description and a handler function.`);
            }

            const right = entry.right ?? 'user';
            if (right !== 'user' && right !== 'admin') {
                throw new Error(`${label}: its right is 'user' or 'admin', not ${String(right)}.`);
            }

            methods.set(method, { ...entry, name: method, right, arguments: argumentsOf(entry.schema, label) });
        }

        if (!methods.size) {
            throw new Error(`The service ${key} has no methods.`);
        }

        const service: RegisteredService = { name: key, description: spec.description ?? '', methods };
        this.#services.set(key, service);
        return service;
    }

    get(name: string): RegisteredService | undefined {

        return this.#services.get(name.toLowerCase());
    }

    names(): string[] {

        return [...this.#services.keys()].sort();
    }
}
