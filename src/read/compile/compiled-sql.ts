import * as Crypto from 'node:crypto';

import type { Knex } from 'knex';

import { remember } from '../../db/remember';


// Compiled SQL of collection reads, kept by the shape of what was asked (issue 17: compile once per shape).
// Building a read with knex's query builder and compiling it — the where parsed, resolved and turned into SQL,
// then the count and the page each compiled again — cost more CPU than running it (README, Performance); a
// request of a shape already seen takes its SQL text and bindings from here and runs them with `Db.rows`.
//
// A key is the text of everything that decides the SQL and its constant bindings (the where as sent, the
// order, the page size…): two requests with one key compile to the same SQL with the same bindings, except for
// the values that differ between requests of one shape — the owner's userid of an owner rule, the key of the
// record whose children are read, the offset, a stable page's cursor. Those are built in as slots (`slot`):
// stand-ins no client can send, found among the compiled bindings and bound afresh on each run (`bindings`).
// So the SQL of one user's owner rule can never answer another's: the userid is never part of what is kept.

class Slot {

    constructor(readonly name: string) { }
}

const prefix = `\u0000osprey-slot-${Crypto.randomBytes(9).toString('base64url')}:`;

// The stand-in of a slot's value in a query being built: a text no request can hold (it carries a random
// nonce of this process).
export const slot = (name: string): string => `${prefix}${name}`;

// A slot among bindings written by hand (SQL appended to what knex compiled).
export const slotBinding = (name: string): unknown => new Slot(name);

export interface CompiledSql {
    readonly sql: string;
    readonly bindings: readonly unknown[];
}

// SQL with `?` placeholders (what `Db.rows` runs: it numbers them for PostgreSQL), its slots found.
export const compileSql = (builder: Knex.QueryBuilder | Knex.Raw): CompiledSql => {

    const { sql, bindings } = builder.toSQL();
    return { sql, bindings: bindings.map((value) => (typeof value === 'string' && value.startsWith(prefix) ? new Slot(value.slice(prefix.length)) : value)) };
};

// The bindings of a run: the constant ones as compiled, each slot's from `values`.
export const bindingsOf = (compiled: CompiledSql, values: Readonly<Record<string, unknown>>): Knex.Value[] => {

    return compiled.bindings.map((value) => (value instanceof Slot ? values[value.name] : value) as Knex.Value);
};

// Each server's own (its registry and database decide the SQL); bounded as every map of compiled SQL is.
const caches = new WeakMap<object, Map<string, unknown>>();

export const sqlCacheSize = 500;

// A shape whose key or SQL is longer than this is compiled for its request and not kept: 500 shapes of a few
// kilobytes each are what the cache is for, and a client sending huge queries must not fill memory with them.
export const largestKept = 16_384;

export const compiledOnce = <T>(owner: object, key: string, compile: () => T, sizeOf: (value: T) => number = () => 0): T => {

    let cache = caches.get(owner);
    if (!cache) {
        cache = new Map();
        caches.set(owner, cache);
    }

    const kept = cache.get(key) as T | undefined;
    if (kept) {
        return kept;
    }

    const compiled = compile();
    return key.length + sizeOf(compiled) > largestKept ? compiled : remember<string, T>(cache as Map<string, T>, key, compiled, sqlCacheSize);
};

// How many shapes a server keeps (for tests).
export const compiledCount = (owner: object): number => caches.get(owner)?.size ?? 0;
