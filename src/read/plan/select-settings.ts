import { requireCredentials } from '../../auth/access';
import type { Osprey } from '../../context';
import type { ResourceRequest } from '../../request';
import { hooksOf } from '../../structures/hooks';
import type { BusinessObject } from '../../structures/registry';
import type { SelectItem } from '../parse/ast';
import { parseSelect } from '../parse/select';
import { oncePer } from '../../db/remember';
import { costLimits } from './cost';
import { everythingPlan, planSelect, type SelectPlan, type SelectSettings } from './select-plan';


// How the names of a select resolve on an object of this server: the registry and the structure its relations
// belong to (root objects only), the UI `_weblink` points into, and the cost limits of the server's options
// (./cost.ts). Secrets are not named by these settings: only a request's direct read is (requestPlan).
export const selectSettings = (osprey: Osprey, object: BusinessObject, parameter: string, settings: Partial<SelectSettings> = {}): SelectSettings => {

    const { registry, options } = osprey;
    const structure = registry.byObject(object.name);
    const ui = options.uiBase === undefined ? undefined : `${options.uiBase}/${options.contextRoot}/ui/`;
    return { parameter, registry, structure: structure?.root === object ? structure : undefined, ui, limits: costLimits(options), ...settings };
};

// The select of a read (oslc.select, else oslc.properties) planned on `object`; without either, the plan of
// no select (a record's every attribute, a collection's hrefs only).
export const readSelect = (req: ResourceRequest, object: BusinessObject, settings: Partial<SelectSettings> = {}): SelectPlan => {

    const select = req.read.select;
    const parameter = select?.parameter ?? 'oslc.properties';
    return requestPlan(req, object, select?.text.trim() ? parseSelect(select.text, parameter) : undefined, parameter, settings);
};

// Whether a plan renders a secret attribute, worked out once per plan: the plan of no select is made once per object,
// and going through its attributes on every record read showed in its profile.
const namesSecrets = oncePer((plan: SelectPlan): boolean => plan.attributes.some(({ attr }) => attr.secret));

// A select planned for the request's user: relations followed with their rights and owner rules (./reach.ts); a
// secret named (an API key's value) only at the top of the select of a direct read or write of the route's own
// records (not a lookup's, not a child's), where its object's hooks reveal it, and with a credential login where
// its object says so. Whose value it is the reveal hook decides, row by row.
export const requestPlan = (req: ResourceRequest, object: BusinessObject, items: readonly SelectItem[] | undefined, parameter: string, settings: Partial<SelectSettings> = {}): SelectPlan => {

    const direct = object === req.structure.root && req.attribute === undefined && hooksOf(object).selectSecrets === true;
    // No select plans the same whatever the settings: they are not made for it.
    const plan = items ? planSelect(object, items, selectSettings(req.osprey, object, parameter, { reach: { user: req.user }, inlineDocuments: req.render.inlineDocuments === true, ...settings, secrets: direct })) : everythingPlan(object);
    if (!namesSecrets(plan)) {
        return plan;
    }

    const structure = req.osprey.registry.byObject(object.name);
    if (structure) {
        requireCredentials(req, structure, 'read with their secrets');
    }

    return plan;
};

// Whether the request selects anything (an empty select is none).
export const selects = (req: ResourceRequest): boolean => Boolean(req.read.select?.text.trim());
