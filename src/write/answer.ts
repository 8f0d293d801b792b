import type { Db } from '../db/db';
import { parseSelect } from '../read/parse/select';
import { planSelect, type SelectPlan } from '../read/plan/select-plan';
import { allowedActions } from '../read/serialize/allowed-actions';
import { memberId, serializeRows, type SerializeOptions } from '../read/serialize/serialize';
import type { ResourceRequest } from '../request';
import { hooksOf } from '../structures/hooks';
import type { BusinessObject, Row } from '../structures/registry';


// How a write answers with the record it wrote (`properties`), from the request value alone.
// The read pipeline builds the same from a ResourceRequest for reads (src/read); these are the write's own
// until the two meet in one place.

// The href of a written record: the API home the request came through, the structure and the record's id.
export const recordHref = (req: ResourceRequest, row: Row): string => `${req.home}/os/${req.structure.id}/${memberId(req.structure.root, row)}`;

// The properties a write answers with (the request's, or `source` where a bulk item names its own); undefined:
// answer without a body. Names resolve as a read's select does (relations of a root object, secrets the
// object's hooks reveal, `_weblink` where a UI is configured).
export const writeSelect = (req: ResourceRequest, object: BusinessObject, source = req.write.properties): SelectPlan | undefined => {

    if (!source?.trim()) {
        return undefined;
    }

    const { registry, options } = req.osprey;
    const structure = registry.byObject(object.name);
    const ui = options.uiBase === undefined ? undefined : `${options.uiBase}/${options.contextRoot}/ui/`;
    return planSelect(object, parseSelect(source, 'properties'), {
        parameter: 'properties',
        registry,
        structure: structure?.root === object ? structure : undefined,
        secrets: hooksOf(object).selectSecrets === true,
        ui
    });
};

export const renderOptions = (req: ResourceRequest): SerializeOptions => {

    const { osprey, user, render } = req;
    return {
        // A secret renders as the object's reveal hook says (an API key's value: to its owner and administrators).
        reveal: (object, attr, row) => hooksOf(object).reveal?.(attr, row, user, osprey),
        home: req.home,
        dropNulls: render.dropNulls,
        collectionRefs: render.collectionRefs,
        rowstamps: render.rowstamps,
        internalValues: render.internalValues,
        domains: osprey.registry.domains(),
        allowedActions: allowedActions(osprey.registry, user)
    };
};

// The written record as the request's properties select it, read in the write's transaction.
export const renderWritten = async (req: ResourceRequest, db: Db, select: SelectPlan, row: Row): Promise<Row> => {

    const [record] = await serializeRows(db, select, [row], [recordHref(req, row)], renderOptions(req));
    return record!;
};
