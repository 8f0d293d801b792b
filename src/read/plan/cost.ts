import type { OspreyOptions } from '../../config';
import type { Where } from '../parse/ast';
import { QueryError } from '../parse/query-error';


// The cost model of a read (issue 18, "every request has a bounded cost"): limits checked when a query is
// planned, before any SQL runs, each a setting with a default that every client Osprey knows stays within
// (README, "Limits"). A query beyond one is a 400 that names the limit and its setting. The answer's size is
// bounded as it is read (../serialize/serialize.ts), and a statement's time by OSPREY_STATEMENT_TIMEOUT_MS: on
// PostgreSQL by the server (src/db/knex.ts), on a SQLite file by the read workers (src/db/read-workers.ts), whose
// thread a plain scan abandoned at its deadline still occupies until the scan ends: there the limits checked
// here are what bound that.

export interface CostLimits {
    /** Levels of nested collections and related records in oslc.select (`asset.location.description` is 2). */
    readonly selectDepth: number;
    /** Relationships one path follows: in oslc.select (child objects not counted), and in oslc.where (child
     * objects counted, through every `name{…}` scope the term sits in). */
    readonly relationHops: number;
    /** Child collections, related records and aggregates one select loads, at every level (each is a statement
     * per level of the answer). */
    readonly selectCollections: number;
    /** Conditions in one oslc.where. */
    readonly whereTerms: number;
    /** Relationships and child objects an oslc.where follows in all, each an EXISTS subquery. */
    readonly whereJoins: number;
    /** Rows one answer renders: its records, and their child and related rows at every level. */
    readonly answerRows: number;
}

type CostOptions = Pick<OspreyOptions, 'maxSelectDepth' | 'maxRelationHops' | 'maxSelectCollections' | 'maxWhereTerms' | 'maxWhereJoins' | 'maxAnswerRows'>;

const limitsOf = (options: CostOptions): CostLimits => ({
    selectDepth: options.maxSelectDepth,
    relationHops: options.maxRelationHops,
    selectCollections: options.maxSelectCollections,
    whereTerms: options.maxWhereTerms,
    whereJoins: options.maxWhereJoins,
    answerRows: options.maxAnswerRows
});

// Made once per server's options: every read asks for them, and they never change.
const made = new WeakMap<CostOptions, CostLimits>();

export const costLimits = (options: CostOptions): CostLimits => {

    let limits = made.get(options);
    if (!limits) {
        limits = limitsOf(options);
        made.set(options, limits);
    }

    return limits;
};

// The setting each limit is read from, as errors name it.
export const limitSettings: Readonly<Record<keyof CostLimits, string>> = {
    selectDepth: 'OSPREY_MAX_SELECT_DEPTH',
    relationHops: 'OSPREY_MAX_RELATION_HOPS',
    selectCollections: 'OSPREY_MAX_SELECT_COLLECTIONS',
    whereTerms: 'OSPREY_MAX_WHERE_TERMS',
    whereJoins: 'OSPREY_MAX_WHERE_JOINS',
    answerRows: 'OSPREY_MAX_ANSWER_ROWS'
};

// `…; the limit is 3 (OSPREY_MAX_SELECT_DEPTH)`
export const beyond = (limits: CostLimits, limit: keyof CostLimits): string => `the limit is ${limits[limit]} (${limitSettings[limit]})`;

// What an oslc.where costs: its conditions, the EXISTS subqueries it compiles to, and the most relationships
// one of its terms follows (through the scopes around it).
export interface WhereCost {
    readonly terms: number;
    readonly joins: number;
    readonly hops: number;
}

export const whereCost = (where: Where, outer = 0): WhereCost => {

    switch (where.kind) {
        case 'and':
        case 'or': {
            const costs = where.terms.map((term) => whereCost(term, outer));
            return { terms: costs.reduce((sum, cost) => sum + cost.terms, 0), joins: costs.reduce((sum, cost) => sum + cost.joins, 0), hops: Math.max(outer, ...costs.map((cost) => cost.hops)) };
        }

        case 'not': return whereCost(where.term, outer);
        case 'exists': {
            const hops = where.path.names.length;
            const inner = whereCost(where.where, outer + hops);
            return { terms: 1 + inner.terms, joins: hops + inner.joins, hops: Math.max(outer + hops, inner.hops) };
        }

        default: {
            const hops = where.path.names.length - 1;
            return { terms: 1, joins: hops, hops: outer + hops };
        }
    }
};

// Refuses a client's where beyond the limits, before it is compiled. The position is that of its first term.
export const checkWhereCost = (where: Where, limits: CostLimits, parameter: string): void => {

    const cost = whereCost(where);
    const fail = (detail: string) => {

        throw new QueryError(parameter, firstPosition(where), detail);
    };

    if (cost.terms > limits.whereTerms) {
        fail(`the where has ${cost.terms} conditions; ${beyond(limits, 'whereTerms')}`);
    }

    if (cost.hops > limits.relationHops) {
        fail(`a term follows ${cost.hops} relationships or child objects in a row; ${beyond(limits, 'relationHops')}`);
    }

    if (cost.joins > limits.whereJoins) {
        fail(`the where follows ${cost.joins} relationships or child objects (each a subquery); ${beyond(limits, 'whereJoins')}`);
    }
};

const firstPosition = (where: Where): number => {

    switch (where.kind) {
        case 'and':
        case 'or': return firstPosition(where.terms[0]!);
        case 'not': return firstPosition(where.term);
        default: return where.path.position;
    }
};
