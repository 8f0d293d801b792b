import { hooksOf } from '../../structures/hooks';
import type { Attribute, BusinessObject } from '../../structures/registry';
import { QueryError } from '../parse/query-error';


// Every name a read resolves to an attribute — of a select (nested, dotted, `rel.`, an aggregate, a report's
// columns), a where (the request's, a saved query's, a lookup's, a gbfilter), an orderBy, search attributes, a
// timeline, distinct, group-by, a lookup's attribute — resolves here, at whatever depth of relations and child
// objects it sits (issue 34). A `secret` attribute (an API key's value) is refused here for every use but one:
// rendered by the select of a direct read of the structure's own records (./select-settings.ts decides that
// read is one, ./select-plan.ts that the name is at its top), where the object's reveal hook gives its value to
// its owner only. So no path that reaches an object through a relation, a child or a lookup can name a secret,
// whatever relations the YAML declares, and a path added later cannot forget to check: the read pipeline has no
// other way to a client's name (test/architecture.test.ts holds src/read and src/reports to it).

/** Where in the request a name was given: the parameter and the column of the name in its text. */
export interface NameAt {
    readonly parameter: string;
    readonly position: number;
}

// The refusal of a secret attribute: a 400 naming it, whichever parameter and path named it.
export const secretRefusal = (object: BusinessObject, attr: Attribute, at: NameAt): QueryError => {

    return new QueryError(at.parameter, at.position, `${object.name}.${attr.name.toUpperCase()} is secret: it is answered only to its owner, in a select of its own record read directly, and no query, relation, aggregate or group can name it`);
};

// The attribute a client's name gives on `object` (undefined when it has none so named), refused when secret
// unless `reveal`: the name is at the top of the select of a direct read of the object's own records.
export const namedAttribute = (object: BusinessObject, name: string, at: NameAt, reveal = false): Attribute | undefined => {

    const attr = object.attributes.get(name);
    if (attr?.secret && !(reveal && (hooksOf(object).revealed?.includes(attr.name) ?? true))) {
        throw secretRefusal(object, attr, at);
    }

    return attr;
};

// The attribute of a name the YAML declares (a key, a join, a lookup's value, a report column's title), all of
// which the start-up checks keep from naming a secret (src/structures/link.ts). Never a name a request sends.
export const declaredAttribute = (object: BusinessObject, name: string): Attribute | undefined => object.attributes.get(name);
