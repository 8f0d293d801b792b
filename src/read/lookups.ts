import { requireRight } from '../auth/access';
import { attributeError, batchedError, maximoError, type AttributeError } from '../errors/maximo-error';
import { namedOnce } from '../http/json-body';
import type { ResourceRequest } from '../request';
import type { LookupDef } from '../structures/definition';
import type { BusinessObject, Structure } from '../structures/registry';
import { completeNew, parseItem } from '../write/plan/input';
import { parameterNames, withoutMissingParams } from './parse/params';
import { parseSelect } from './parse/select';
import type { Where } from './parse/ast';
import { parseWhere } from './parse/where';
import { planSelect, type SelectPlan } from './plan/select-plan';
import { namedAttribute } from './plan/attribute-names';
import { readSelect, selects } from './plan/select-settings';
import { domainValues, domainValuesQuery } from './execute/domain-values';
import { filtered, filterKey } from './execute/filter';
import { findChild, type Row } from './execute/find';
import { requestedRow } from './execute/member';
import { readPage } from './serialize/page';
import { collectionHref } from './records';


// Lookups (CONTRACT §6): GET …/{id}/getlist~{attr} and …/{id}/{child}/{childid}/getlist~{attr} answer the values
// an attribute may take as a collection (paging, oslc.where, oslc.select, oslc.orderBy, counts): the records of
// the lookup's structure, narrowed by its where with the record's own values as :parameters — the list a write
// is checked against (src/write/plan/lookups.ts) — or a domain's values. {id} may be `zombie` (no record) or
// `newmbo` (a new record whose values come from the setupdata query parameter, a JSON object); terms of the
// lookup's where whose parameter such a record has no value for are left out. A new record's values are read
// as a create reads its body (src/write/plan/input.ts): the one import of the read pipeline from the write one,
// in this entry point and in no stage.

interface Context {
    readonly row: Row;
    /** The row is partial (zombie, newmbo): terms about values it lacks are left out. */
    readonly partial: boolean;
}

const newRecord = (req: ResourceRequest, object: BusinessObject): Row => {

    const source = req.read.setupData ?? '{}';
    let body: unknown;
    try {
        body = JSON.parse(source);
    }
    catch {
        throw maximoError('badRequest', 'setupdata is a JSON object of the new record\'s attribute values.');
    }

    // Read as a body is (src/http/json-body.ts): an attribute named twice is refused, not taken from the last.
    namedOnce(source, body, 'setupdata');

    const errors: AttributeError[] = [];
    const settings = { object, objectPath: object.path, domains: req.osprey.registry.domains(), errors, now: new Date() };
    const item = parseItem(body, settings);
    if (errors.length) {
        throw errors.length > 1 ? batchedError(errors) : attributeError(errors[0]!);
    }

    // Defaults apply as they would on create; a required value the body leaves out is no error here.
    completeNew(item, { ...settings, errors: [] });
    return item.values;
};

const contextOf = async (req: ResourceRequest, object: BusinessObject): Promise<Context> => {

    const { structure } = req;
    const id = String(req.id);
    const childName = req.child;
    if (id === 'zombie' || id === 'newmbo') {
        if (childName !== undefined) {
            throw maximoError('badRequest', `A ${id} lookup is on an attribute of ${structure.root.name}, not of a child object.`);
        }

        return { row: id === 'newmbo' ? newRecord(req, object) : {}, partial: true };
    }

    const row = await requestedRow(req, structure);
    if (childName === undefined) {
        return { row, partial: false };
    }

    const child = structure.root.children.get(childName.toLowerCase())!;
    const childRow = await findChild(req.osprey.db, child, row, String(req.childId));
    if (!childRow) {
        throw maximoError('notFound', `${structure.name} ${id} has no ${child.object.name} ${String(req.childId)}.`);
    }

    return { row: childRow, partial: false };
};

// The object the attribute belongs to: the root, or the child the path names.
const objectOf = (req: ResourceRequest): BusinessObject => {

    const { structure } = req;
    const childName = req.child;
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

    const attr = namedAttribute(object, name, { parameter: `getlist~${name}`, position: 1 });
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

const domainPlan = (req: ResourceRequest): SelectPlan => (selects(req) ? readSelect(req, domainValues.root) : defaultDomainPlan);

// Nulls (a value's missing description) are left out unless _dropnulls=0 keeps them, as on records.
const renderDomainValues = (plan: SelectPlan, rows: readonly Row[], keepNulls: boolean): Row[] => {

    const names = plan.attributes.map(({ attr, key }) => [attr.name, key] as const);
    const kept = (value: unknown) => keepNulls || (value !== null && value !== undefined);
    return rows.map((row) => Object.fromEntries(names.filter(([name]) => kept(row[name])).map(([name, key]) => [key, name === 'valueid' ? Number(row[name]) : row[name] ?? null])));
};

// A lookup of a record's values is kept by shape (../compile/compiled-sql.ts) with the values its where reads.
// The lookup's where is the attribute's (its object and name), less the terms a partial record has no value for.
const lookupShape = (req: ResourceRequest, target: Structure, object: BusinessObject, name: string, where: Where | undefined, context: Context): string | undefined => {

    const filters = filterKey(req, target);
    const values = where ? parameterNames(where).map((param) => [param, typeof context.row[param], context.row[param] ?? null]) : [];
    return filters === undefined ? undefined : JSON.stringify(['lookup', req.structure.name, object.name, name, context.partial, values, filters]);
};

// GET {home}/os/{os}/{id}/getlist~{attr}: the values the attribute may take, as a collection.
export const readLookup = async (req: ResourceRequest): Promise<Row> => {

    const { osprey, structure } = req;
    requireRight(req.user, structure, 'read');
    const object = objectOf(req);
    const name = String(req.attribute).toLowerCase();
    const lookup = lookupOf(structure, object, name);
    const context = await contextOf(req, object);
    const href = `${originOf(req)}${req.url.pathname}`;
    if (lookup.domain) {
        // {attr}_maxvalue is added to records; a domain's values are none, and carry their internal value as maxvalue.
        if (req.render.internalValues) {
            throw maximoError('badRequest', `internalvalues adds {attr}_maxvalue to records; the values of the domain ${lookup.domain} are not records and carry their internal value as maxvalue: select it (oslc.select=value,maxvalue).`);
        }

        const domain = osprey.registry.domain(lookup.domain)!;
        const plan = domainPlan(req);
        const rows = () => filtered(req, domainValues, { from: domainValuesQuery(osprey.db.knex, domain) });
        const shape = filterKey(req, domainValues);
        return await readPage(req, { structure: domainValues, object: domainValues.root, pageSize: domainValues.def.pageSize, rows, shape: shape && JSON.stringify(['domain', lookup.domain, shape]), href, memberBase: href, defaultOrder: '+valueid', plan, render: (page) => renderDomainValues(plan, page, req.render.dropNulls === false) });
    }

    const target = osprey.registry.get(lookup.structure!)!;
    requireRight(req.user, target, 'read');
    const parsed = lookup.where ? parseWhere(lookup.where, 'lookup where') : undefined;
    const where = parsed && context.partial ? withoutMissingParams(parsed, context.row) : parsed;
    const rows = () => filtered(req, target, { ownerSlot: true, ...where ? { also: { where, params: context.row, parameter: 'lookup where' } } : {} });
    const shape = lookupShape(req, target, object, name, parsed, context);
    return await readPage(req, { structure: target, object: target.root, pageSize: target.def.pageSize, rows, shape, href, memberBase: collectionHref(req, target), defaultOrder: `+${lookup.value ?? name}` }, { owner: req.user.userid });
};

// The origin of the request's home (its scheme and host, or a proxy's public URI; empty with relativeuri=1).
const originOf = (req: ResourceRequest): string => req.home.slice(0, req.home.length - `/${req.osprey.options.contextRoot}/${req.home.split('/').pop()!}`.length);
