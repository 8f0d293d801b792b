import { eachObject, type BusinessObject, type Structure } from './registry';


// How a problem is reported (./link.ts passes its own).
type Report = (path: string, message: string) => void;

// A `secret` attribute (an API key's value) is answered only to its owner, on a direct read of its record
// (src/read/plan/attribute-names.ts). The YAML may not name it where a value of it would show or be matched
// without a query naming it (issue 34): a key or the unique column (every href carries them), a join of a child or
// a relation (a related row's existence would tell its value), a lookup's value (a list of values lists it), the
// owner or status attribute, or a search attribute; nor may two objects over one table disagree on it.
export const checkSecretUses = (structure: Structure, byName: ReadonlyMap<string, Structure>, report: Report): void => {

    const secret = (object: BusinessObject, name: string | undefined) => name !== undefined && object.attributes.get(name)?.secret === true;
    const refuse = (path: string, object: BusinessObject, name: string, as: string) => report(path, `"${name}" is a secret attribute of ${object.name} and cannot be ${as}`);
    const def = structure.def;
    const columns = new Map<string, Map<string, boolean>>();
    for (const object of eachObject(structure.root)) {
        const prefix = object === structure.root ? '' : `children.${object.path.split('.').slice(1).join('.children.')}.`;
        object.primaryKey.filter((key) => secret(object, key)).forEach((key) => refuse(`${prefix}primaryKey`, object, key, 'a key: every href carries the keys'));
        if (secret(object, object.uniqueColumn)) {
            refuse(`${prefix}uniqueColumn`, object, object.uniqueColumn, 'the unique column');
        }

        for (const attr of object.attributes.values()) {
            if (attr.secret && attr.search) {
                refuse(`${prefix}attributes.${attr.name}.search`, object, attr.name, 'a search attribute');
            }
        }

        for (const [name, child] of object.children) {
            for (const [parentAttr, childAttr] of Object.entries(child.join)) {
                if (secret(object, parentAttr) || secret(child.object, childAttr)) {
                    refuse(`${prefix}children.${name}.join.${parentAttr}`, secret(object, parentAttr) ? object : child.object, secret(object, parentAttr) ? parentAttr : childAttr, 'joined on');
                }
            }
        }

        // Two objects of one structure over one table (other structures' are refused in ./link.ts).
        const known = columns.get(object.table) ?? new Map<string, boolean>();
        for (const attr of object.columns) {
            if (known.has(attr.name) && known.get(attr.name) !== attr.secret) {
                report(`${prefix}attributes.${attr.name}.secret`, `"${attr.name}" of table "${object.table}" is secret in one of its objects and not in another; declare it secret in both`);
            }

            known.set(attr.name, known.get(attr.name) === true || attr.secret);
        }

        columns.set(object.table, known);
    }

    for (const [name, relation] of Object.entries(def.relations)) {
        const target = byName.get(relation.structure.toUpperCase());
        for (const [local, remote] of Object.entries(relation.join)) {
            if (secret(structure.root, local)) {
                refuse(`relations.${name}.join.${local}`, structure.root, local, 'joined on');
            }
            else if (target && secret(target.root, remote)) {
                refuse(`relations.${name}.join.${local}`, target.root, remote, 'joined on');
            }
        }
    }

    for (const [name, lookup] of Object.entries(def.lookups)) {
        const target = lookup.structure ? byName.get(lookup.structure.toUpperCase()) : undefined;
        if (target && secret(target.root, lookup.value)) {
            refuse(`lookups.${name}.value`, target.root, lookup.value!, 'a lookup\'s value: its list would list it');
        }
    }

    if (def.access.owner && secret(structure.root, def.access.owner)) {
        refuse('access.owner', structure.root, def.access.owner, 'the owner attribute');
    }

    if (def.statuses && secret(structure.root, def.statusAttribute)) {
        refuse('statusAttribute', structure.root, def.statusAttribute, 'the status attribute');
    }
};
