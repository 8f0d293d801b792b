import type * as Hapi from '@hapi/hapi';
import type { Knex } from 'knex';

import { ownerRule, requireRight } from '../../src/auth/access';
import type { Db } from '../../src/db/db';
import { rowstampColumn } from '../../src/db/migrate';
import { maximoError } from '../../src/errors/maximo-error';
import { structureOf } from '../../src/http/structure';
import { findById, findChild, type Row } from '../../src/read/execute/find';
import { childHref, memberId, serializeRows } from '../../src/read/serialize/serialize';
import type { Structure } from '../../src/structures/registry';
import { filtered } from './filter';
import { readPage } from './query';
import { collectionHref, readSelect, serializeOptions } from './request';
import { userOf } from '../../src/http/caller';


export const notFound = (structure: Structure, id: string): Error => {

    return maximoError('notFound', `The record ${id} of ${structure.name} was not found as it does not exist in the system.`);
};

// The record the request's id (or `options.id`) names, as this user may see it.
export const memberRow = async (request: Hapi.Request, structure: Structure, options: { id?: string; lock?: boolean; db?: Db } = {}): Promise<Row> => {

    const id = options.id ?? String(request.params.id);
    const row = await findById(options.db ?? request.server.app.osprey.db, structure.root, id, options);
    // Another user's record, where the structure keeps records to their owners, is not there for this user.
    const owner = ownerRule(userOf(request), structure);
    if (!row || (owner && row[owner.attribute] !== owner.userid)) {
        throw notFound(structure, id);
    }

    return row;
};

// GET {home}/os/{os}/{id}: the bare record, with its rowstamp as ETag.
export const readMember: Hapi.Lifecycle.Method = async (request, h) => {

    const structure = structureOf(request);
    requireRight(userOf(request), structure, 'read');
    const plan = readSelect(request, structure.root);
    const row = await memberRow(request, structure);
    const href = `${collectionHref(request, structure)}/${memberId(structure.root, row)}`;
    const [record] = await serializeRows(request.server.app.osprey.db, plan, [row], [href], serializeOptions(request));
    return h.response(record).etag(String(row[rowstampColumn]));
};

// GET {home}/os/{os}/{id}/{child}: one child collection of a record, paged, filtered, ordered and counted like a
// collection, with names resolved against the child object; its members are whole child rows unless selected.
// With /{childid}, one child row.
export const readChildren: Hapi.Lifecycle.Method = async (request) => {

    const structure = structureOf(request);
    requireRight(userOf(request), structure, 'read');
    const child = structure.root.children.get(String(request.params.child).toLowerCase());
    if (!child) {
        throw maximoError('routeNotFound', `${structure.name} has no child object ${request.params.child}.`);
    }

    const plan = readSelect(request, child.object);
    const childId = request.params.childid as string | undefined;
    // The query is checked before the record is read: a bad where is a 400 whether or not the record exists.
    const rows = childId === undefined ? filtered(request, structure, { child }) : undefined;
    const row = await memberRow(request, structure);
    const parentHref = `${collectionHref(request, structure)}/${memberId(structure.root, row)}`;
    if (rows) {
        // `=` never holds for a null: a record without a join value has no children.
        for (const [attr, column] of Object.entries(child.join)) {
            rows.whereRaw('?? = ?', [`q0.${column}`, row[attr] as Knex.Value]);
        }

        const href = `${parentHref}/${child.name}`;
        return await readPage(request, { structure, object: child.object, pageSize: structure.def.pageSize, rows, href, memberBase: href, plan, child: true });
    }

    const db = request.server.app.osprey.db;
    const found = await findChild(db, child, row, childId!);
    if (!found) {
        throw maximoError('notFound', `${structure.name} ${request.params.id} has no ${child.object.name} ${childId}.`);
    }

    const [member] = await serializeRows(db, plan, [found], [childHref(parentHref, child, found)], serializeOptions(request), true);
    return member;
};
