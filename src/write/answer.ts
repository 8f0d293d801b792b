import type { Db } from '../db/db';
import { parseSelect } from '../read/parse/select';
import type { SelectPlan } from '../read/plan/select-plan';
import { requestPlan } from '../read/plan/select-settings';
import { serializeOptions } from '../read/serialize/options';
import { memberId, serializeRows } from '../read/serialize/serialize';
import type { ResourceRequest } from '../request';
import type { BusinessObject, Row } from '../structures/registry';


// How a write answers with the record it wrote (`properties`): planned and rendered as a read's select is.

// The href of a written record: the API home the request came through, the structure and the record's id.
export const recordHref = (req: ResourceRequest, row: Row): string => `${req.home}/os/${req.structure.id}/${memberId(req.structure.root, row)}`;

// The properties a write answers with (the request's, or `source` where a bulk item names its own); undefined:
// answer without a body.
export const writeSelect = (req: ResourceRequest, object: BusinessObject, source = req.write.properties): SelectPlan | undefined => {

    return source?.trim() ? requestPlan(req, object, parseSelect(source, 'properties'), 'properties') : undefined;
};

// The written record as the request's properties select it, read in the write's transaction (after the one
// statement of a single-statement write, which is why such a write's properties read nothing: records.ts).
export const renderWritten = async (req: ResourceRequest, db: Db, select: SelectPlan, row: Row): Promise<Row> => {

    const [record] = await serializeRows(db, select, [row], [recordHref(req, row)], serializeOptions(req));
    return record!;
};
