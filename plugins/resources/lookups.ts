import type * as Hapi from '@hapi/hapi';

import { requireRight } from '../../src/auth/access';
import { attributeError, batchedError, maximoError } from '../../src/errors/maximo-error';
import { origin } from '../../src/http/hrefs';
import { structureOf } from '../../src/http/structure';
import { withoutMissingParams } from '../../src/read/parse/params';
import { parseWhere } from '../../src/read/parse/where';
import { domainValues, domainValuesQuery } from '../../src/read/execute/domain-values';
import { findChild, type Row } from '../../src/read/execute/find';
import { parseSelect } from '../../src/read/parse/select';
import { planSelect, type SelectPlan } from '../../src/read/plan/select-plan';
import { completeNew, parseItem } from '../../src/write/plan/input';
import type { AttributeError } from '../../src/errors/maximo-error';
import type { LookupDef } from '../../src/structures/definition';
import type { BusinessObject, Structure } from '../../src/structures/registry';
import { filtered } from './filter';
import { readPage } from './query';
import { memberRow } from './read';
import { collectionHref, readSelect, text } from './request';
import { userOf } from '../../src/http/caller';


// Lookups (CONTRACT §6): GET …/{id}/getlist~{attr} and …/{id}/{child}/{childid}/getlist~{attr} answer the values
// an attribute may take as a collection (paging, oslc.where, oslc.select, oslc.orderBy, counts): the records of
// the lookup's structure, narrowed by its where with the record's own values as :parameters — the list a write
// is checked against (src/write/plan/lookups.ts) — or a domain's values. {id} may be `zombie` (no record) or
// `newmbo` (a new record whose values come from the setupdata query parameter, a JSON object); terms of the
// lookup's where whose parameter such a record has no value for are left out.

interface Context {
    readonly row: Row;
    /** The row is partial (zombie, newmbo): terms about values it lacks are left out. */
    readonly partial: boolean;
}

const newRecord = (request: Hapi.Request, object: BusinessObject): Row => {

    const source = text(request.query.setupdata) ?? '{}';
    let body: unknown;
    try {
        body = JSON.parse(source);
    }
    catch {
        throw maximoError('badRequest', 'setupdata is a JSON object of the new record\'s attribute values.');
    }

    const errors: AttributeError[] = [];
    const settings = { object, objectPath: object.path, domains: request.server.app.osprey.registry.domains(), errors, now: new Date() };
    const item = parseItem(body, settings);
    if (errors.length) {
        throw errors.length > 1 ? batchedError(errors) : attributeError(errors[0]!);
    }

    // Defaults apply as they would on create; a required value the body leaves out is no error here.
    completeNew(item, { ...settings, errors: [] });
    return item.values;
};

const contextOf = async (request: Hapi.Request, structure: Structure, object: BusinessObject): Promise<Context> => {

    const id = String(request.params.id);
    const childName = request.params.child as string | undefined;
    if (id === 'zombie' || id === 'newmbo') {
        if (childName !== undefined) {
            throw maximoError('badRequest', `A ${id} lookup is on an attribute of ${structure.root.name}, not of a child object.`);
        }

        return { row: id === 'newmbo' ? newRecord(request, object) : {}, partial: true };
    }

    const row = await memberRow(request, structure);
    if (childName === undefined) {
        return { row, partial: false };
    }

    const child = structure.root.children.get(childName.toLowerCase())!;
    const childRow = await findChild(request.server.app.osprey.db, child, row, String(request.params.childid));
    if (!childRow) {
        throw maximoError('notFound', `${structure.name} ${id} has no ${child.object.name} ${String(request.params.childid)}.`);
    }

    return { row: childRow, partial: false };
};

// The object the attribute belongs to: the root, or the child the path names.
const objectOf = (request: Hapi.Request, structure: Structure): BusinessObject => {

    const childName = request.params.child as string | undefined;
    if (childName === undefined) {
        return structure.root;
    }

    const child = structure.root.children.get(childName.toLowerCase());
    if (!child) {
        throw maximoError('routeNotFound', `${structure.name} has no child object ${childName}.`);
    }

    return child.object;
};

const lookupOf = (structure: Structure, object: BusinessObject, name: string): LookupDef => {

    const attr = object.attributes.get(name);
    if (!attr?.persistent) {
        throw maximoError('badRequest', `${name} is not an attribute of ${object.name}.`);
    }

    const lookup = attr.lookup ? structure.def.lookups[attr.lookup] : attr.domain ? { domain: attr.domain } : undefined;
    if (!lookup) {
        throw maximoError('badRequest', `${object.name}.${name.toUpperCase()} has no list of values: it declares neither a lookup nor a domain.`);
    }

    return lookup;
};

// Domain values are not records: a member holds the selected columns (value, description and maxvalue by default).
const defaultDomainPlan = planSelect(domainValues.root, parseSelect('value,description,maxvalue'), { parameter: 'oslc.select' });

const domainPlan = (request: Hapi.Request): SelectPlan => {

    const selected = text(request.query['oslc.select']) ?? text(request.query['oslc.properties']);
    return selected?.trim() ? readSelect(request, domainValues.root) : defaultDomainPlan;
};

const renderDomainValues = (plan: SelectPlan, rows: Row[]): Row[] => {

    const names = plan.attributes.map(({ attr, key }) => [attr.name, key] as const);
    return rows.map((row) => Object.fromEntries(names.filter(([name]) => row[name] !== null && row[name] !== undefined).map(([name, key]) => [key, name === 'valueid' ? Number(row[name]) : row[name]])));
};

export const readLookup: Hapi.Lifecycle.Method = async (request) => {

    const osprey = request.server.app.osprey;
    const structure = structureOf(request);
    requireRight(userOf(request), structure, 'read');
    const object = objectOf(request, structure);
    const name = String(request.params.attr).toLowerCase();
    const lookup = lookupOf(structure, object, name);
    const context = await contextOf(request, structure, object);
    const href = `${origin(request)}${request.path}`;
    if (lookup.domain) {
        const from = domainValuesQuery(osprey.knex, osprey.registry.domain(lookup.domain)!);
        const plan = domainPlan(request);
        return await readPage(request, { structure: domainValues, object: domainValues.root, pageSize: domainValues.def.pageSize, rows: filtered(request, domainValues, { from }), href, memberBase: href, defaultOrder: '+valueid', plan, render: (rows) => renderDomainValues(plan, rows) });
    }

    const target = osprey.registry.get(lookup.structure!)!;
    requireRight(userOf(request), target, 'read');
    const parsed = lookup.where ? parseWhere(lookup.where, 'lookup where') : undefined;
    const where = parsed && context.partial ? withoutMissingParams(parsed, context.row) : parsed;
    const rows = filtered(request, target, where ? { also: { where, params: context.row, parameter: 'lookup where' } } : {});
    return await readPage(request, { structure: target, object: target.root, pageSize: target.def.pageSize, rows, href, memberBase: collectionHref(request, target), defaultOrder: `+${lookup.value ?? name}` });
};
