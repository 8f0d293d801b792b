import type { Knex } from 'knex';

import { ownerRule } from '../../auth/access';
import type { ResourceRequest } from '../../request';
import type { Attribute, BusinessObject, Child, Structure } from '../../structures/registry';
import { own } from '../../structures/own';
import { typeTable } from '../../structures/types';
import type { Where } from '../parse/ast';
import { QueryError } from '../parse/query-error';
import { checkText } from '../parse/lexer';
import { parseSearchTerms } from '../parse/search';
import { parseTimelineAttribute, parseTimelineRange } from '../parse/timeline';
import { parseWhere, withOperatorMode } from '../parse/where';
import { beyond, checkWhereCost, costLimits } from '../plan/cost';
import { applyWhere, type WhereScope } from '../compile/compile-where';
import { slot } from '../compile/compiled-sql';
import { foldedColumn, orLikes } from '../compile/sql-types';
import { reachKey } from '../plan/reach';
import { namedAttribute } from '../plan/attribute-names';


// The rows a collection request names, on the root table (or a child object's) aliased q0: oslc.where
// (opmodeor=1 or opmode=or turns every and into or), a timeline range, a saved query with its sqp: parameters,
// and search terms — all AND-ed.

// savedQuery=NAME (case-sensitive, as declared) with its parameters from sqp:NAME query parameters.
const savedQuery = (req: ResourceRequest, structure: Structure, query: Knex.QueryBuilder, scope: WhereScope) => {

    const name = req.read.savedQuery;
    if (name === undefined) {
        return;
    }

    // An empty name names no saved query: carried out as none, it would answer every record unsaid.
    if (!name.trim()) {
        throw new QueryError('savedQuery', 1, `savedQuery is empty: name a saved query of ${structure.name} (apimeta lists them), or leave savedQuery out`);
    }

    if (scope.object !== structure.root) {
        throw new QueryError('savedQuery', 1, `the saved queries of ${structure.name} select ${structure.root.name} records, not ${scope.object.name} rows`);
    }

    const saved = own(structure.def.savedQueries, name);
    if (!saved) {
        const known = Object.keys(structure.def.savedQueries);
        throw new QueryError('savedQuery', 1, `${name} is not a saved query of ${structure.name}${known.length ? ` (${known.join(', ')})` : ''}`);
    }

    const params: Record<string, unknown> = {};
    for (const [param, def] of Object.entries(saved.params)) {
        const value = req.read.parameters[`sqp:${param}`];
        if (value === undefined && def.required) {
            throw new QueryError('savedQuery', 1, `${name} needs the parameter sqp:${param}`);
        }

        // IBM's Java client quotes a text value (sqp:site="BEDFORD"): one pair of surrounding quotes is not part of it.
        const given = value === undefined ? null : checkText(value, `sqp:${param}`).replace(/^"(.*)"$/s, '$1');
        if (def.required && !given?.trim()) {
            throw new QueryError('savedQuery', 1, `${name} needs a value for its parameter sqp:${param}, and ${JSON.stringify(value)} is empty`);
        }

        params[param] = given;
    }

    applyWhere(query, { ...scope, parameter: `savedQuery ${name}`, params }, parseWhere(saved.where, `savedQuery ${name}`));
};

export const searchable = (root: BusinessObject, names: string | undefined, parameter: string): Attribute[] => {

    if (!names?.trim()) {
        // A secret attribute is never a search attribute (refused at start, src/structures/link.ts).
        return root.columns.filter((attr) => attr.search);
    }

    const attributes = names.split(',').map((name) => {

        const attr = namedAttribute(root, name.trim().toLowerCase(), { parameter, position: 1 });
        if (!attr?.persistent || !['string', 'text'].includes(typeTable[attr.type].family)) {
            throw new QueryError(parameter, 1, `${name.trim()} is not a text attribute of ${root.name}`);
        }

        return attr;
    });

    // A name twice would only search the same column again: refused, as every repeated name is.
    const twice = attributes.find((attr, i) => attributes.indexOf(attr) !== i);
    if (twice) {
        throw new QueryError(parameter, 1, `${twice.name} is named twice`);
    }

    return attributes;
};

// oslc.searchTerms: any word in any of the attributes (LIKE, case-insensitive); a quoted phrase matches whole.
const searchTerms = (req: ResourceRequest, object: BusinessObject, query: Knex.QueryBuilder) => {

    const terms = parseSearchTerms(req.read.searchTerms ?? '');
    if (!terms.length) {
        return;
    }

    const attributes = searchable(object, req.read.searchAttributes, 'searchAttributes');
    if (!attributes.length) {
        throw new QueryError('oslc.searchTerms', 1, `${object.name} declares no search attributes; send searchAttributes`);
    }

    // Each word is a condition on each attribute: the search is held to the where's limit on conditions.
    const limits = costLimits(req.osprey.options);
    if (terms.length * attributes.length > limits.whereTerms) {
        throw new QueryError('oslc.searchTerms', 1, `${terms.length} words in ${attributes.length} attributes are ${terms.length * attributes.length} conditions; ${beyond(limits, 'whereTerms')}`);
    }

    // Per attribute, its words' LIKEs are one test where the database can (src/read/compile/sql-types.ts orLikes):
    // 50 words over 2 attributes fold each value once per row instead of 50 times.
    const kind = req.osprey.kind;
    const words = terms.filter((term) => !term.exact).map((term) => `%${term.text.replace(/[\\%_]/g, (char) => `\\${char}`)}%`);
    const exact = terms.filter((term) => term.exact).map((term) => term.text);
    query.where((builder) => {

        for (const attr of attributes) {
            const column = `q0.${attr.name}`;
            orLikes(builder, kind, req.osprey.likeAny, column, words);

            if (exact.length) {
                builder.orWhereRaw(`${foldedColumn(kind)} in (${exact.map(() => 'lower(?)').join(', ')})`, [column, ...exact]);
            }
        }
    });
};

// tlrange=-3M&tlattribute=reportdate[=date]: the rows whose date attribute lies in the range
// (src/read/parse/timeline.ts). Each needs the other.
const timeline = (req: ResourceRequest, scope: WhereScope, query: Knex.QueryBuilder) => {

    const range = req.read.tlrange?.replace(/^ /, '+').trim() || undefined;
    const attribute = req.read.tlattribute?.trim() || undefined;
    if (range === undefined && attribute === undefined) {
        return;
    }

    if (attribute === undefined) {
        throw new QueryError('tlattribute', 1, 'tlrange needs tlattribute, the date attribute it ranges over');
    }

    if (range === undefined) {
        throw new QueryError('tlrange', 1, 'tlattribute needs tlrange, the range such as -3M');
    }

    const { name, index } = parseTimelineAttribute(attribute);
    const attr = namedAttribute(scope.object, name, { parameter: 'tlattribute', position: 1 });
    if (!attr?.persistent || !['date', 'datetime'].includes(typeTable[attr.type].family)) {
        throw new QueryError('tlattribute', 1, `${name} is not a date attribute of ${scope.object.name}`);
    }

    const { from, to } = parseTimelineRange(range, index ?? new Date());
    const path = { names: [attr.name], position: 1 };
    applyWhere(query, { ...scope, parameter: 'tlattribute' }, { kind: 'and', terms: [
        { kind: 'compare', path, op: '>=', value: { kind: 'string', value: from.toISOString() } },
        { kind: 'compare', path, op: '<=', value: { kind: 'string', value: to.toISOString() } }
    ] });
};

// opmodeor=1 is Maximo's switch (IBM's REST API guide, "opmodeor"); opmode=or|and is what the npm client's
// opMode() sends. Either turns the where's ands into ors; a value that is neither is refused, not read as `and`.
const operatorMode = (req: ResourceRequest): 'and' | 'or' => {

    const or = req.read.opmodeor;
    const opmode = req.read.opmode;
    if (opmode === undefined) {
        return or ? 'or' : 'and';
    }

    const mode = opmode.trim().toLowerCase();
    if (mode !== 'and' && mode !== 'or') {
        throw new QueryError('opmode', 1, `expected "and" or "or", found ${JSON.stringify(opmode)}`);
    }

    if (mode === 'and' && or) {
        throw new QueryError('opmode', 1, 'and contradicts opmodeor=1');
    }

    return mode;
};

// `from` replaces the root table (a lookup's list of domain values); `also` is a where of the server's own (a
// lookup's), with the parameters it reads.
export interface FilterOptions {
    readonly from?: Knex.QueryBuilder;
    readonly also?: { readonly where: Where; readonly params: Readonly<Record<string, unknown>>; readonly parameter: string };
    /** The rows of this child object of the root instead (a record's child collection; the caller joins them to
     * their record, whose owner rule was checked when it was read). Names resolve against the child object. */
    readonly child?: Child;
    /** The owner rule's userid is bound as the slot `owner` (../compile/compiled-sql.ts), for SQL kept by shape. */
    readonly ownerSlot?: boolean;
}

export const filtered = (req: ResourceRequest, structure: Structure, options: FilterOptions = {}): Knex.QueryBuilder => {

    const osprey = req.osprey;
    const object = options.child?.object ?? structure.root;
    const query = options.from ?? osprey.db.query({ q0: object.table });
    // Relations are the structure's, so only its root follows them; every scope shares the alias counter.
    // Relations follow the user's read rights and owner rules (../plan/reach.ts); the userid is a slot where kept.
    const reach = { user: req.user, ...options.ownerSlot ? { owner: slot('owner') } : {} };
    const scope: WhereScope = { registry: osprey.registry, kind: osprey.kind, parameter: 'oslc.where', params: {}, structure: options.child ? undefined : structure, object, alias: 'q0', aliases: { next: 0 }, reach, deadline: osprey.deadlines, likeAny: osprey.likeAny };
    if (options.also) {
        const { where, params, parameter } = options.also;
        applyWhere(query, { ...scope, parameter, params }, where);
    }

    const mode = operatorMode(req);
    const where = req.read.where;
    if (where?.trim()) {
        // The client's where is held to the cost limits (../plan/cost.ts) before it is compiled.
        const parsed = parseWhere(where);
        checkWhereCost(parsed, costLimits(osprey.options), 'oslc.where');
        applyWhere(query, scope, withOperatorMode(parsed, mode));
    }

    timeline(req, { ...scope, parameter: 'tlattribute' }, query);
    savedQuery(req, structure, query, scope);
    searchTerms(req, object, query);
    const owner = options.child ? undefined : ownerRule(req.user, structure);
    if (owner) {
        query.where(`q0.${owner.attribute}`, options.ownerSlot ? slot('owner') : owner.userid);
    }

    return query;
};

// The text of everything the request's filters compile from, for a key of SQL kept by shape: two requests with
// the same text compile to the same SQL with the same bindings but the owner's userid (a slot). Undefined for
// a timeline: its range is relative to the time of the request, so its SQL is never kept.
export const filterKey = (req: ResourceRequest, structure: Structure, options: Pick<FilterOptions, 'child'> = {}): string | undefined => {

    const { read } = req;
    if (read.tlrange !== undefined || read.tlattribute !== undefined) {
        return undefined;
    }

    const owner = options.child ? undefined : ownerRule(req.user, structure);
    const sqp = Object.keys(read.parameters).filter((name) => name.startsWith('sqp:')).sort().map((name) => [name, read.parameters[name]]);
    return JSON.stringify([structure.name, options.child?.name, read.where, read.opmodeor, read.opmode, read.searchTerms, read.searchAttributes, read.savedQuery, sqp, owner?.attribute, reachKey(req.user)]);
};
