import { isAllowed, ownerRule } from '../../auth/access';
import type { UserProfile } from '../../auth/users';
import { maximoError } from '../../errors/maximo-error';
import type { RelationDef } from '../../structures/definition';
import { own } from '../../structures/own';
import type { Registry, Structure } from '../../structures/registry';


// Authorization at one depth (issue 18): every name of a read that crosses a relation into another structure's
// rows — in a select, an aggregate, a report column, a where (the request's, a saved query's, a lookup's) — is
// resolved here, and only here. The user needs the read right on the target structure (a 403 naming it
// otherwise), and where the target keeps its records to their owners (access.owner) the rows of other owners are
// not there: the resolved relation carries the owner filter, which the where's EXISTS (../compile/compile-where.ts)
// and the related-row fetch of the answer (../serialize/serialize.ts) apply.

/** Who reads, for the relations a read follows; absent only for the server's own plans (report layouts checked
 * at start), which read no rows for a user. A schema of a selection (jsonschemas) is planned with the user's. */
export interface Reach {
    readonly user: UserProfile;
    /** The value the owner filter compares with: the userid, or a slot standing for it in SQL kept by shape. */
    readonly owner?: string;
}

/** The rows of other owners a relation hides: `attribute` must equal `value`. */
export interface OwnerFilter {
    readonly attribute: string;
    readonly value: string;
}

export interface Reached {
    readonly relation: RelationDef;
    readonly target: Structure;
    readonly owner?: OwnerFilter;
}

// The relation `name` of `structure`, as the reader may follow it; undefined when the structure has none so named.
export const reachRelation = (registry: Registry, structure: Structure, name: string, reach: Reach | undefined): Reached | undefined => {

    const relation = own(structure.def.relations, name);
    if (!relation) {
        return undefined;
    }

    // A relation names a structure of the registry (checked at start, src/structures/link.ts).
    const target = registry.get(relation.structure)!;

    if (!reach) {
        return { relation, target };
    }

    const { user } = reach;
    if (!isAllowed(user, target, 'read')) {
        throw maximoError('forbidden', `User ${user.userid} is not authorized to read ${target.name} records, which the relationship ${name} of ${structure.name} reaches.`);
    }

    const rule = ownerRule(user, target);
    return { relation, target, ...rule ? { owner: { attribute: rule.attribute, value: reach.owner ?? rule.userid } } : {} };
};

// What decides how far a user reaches, for a key of SQL kept by shape: users with the same groups (and
// administrators among themselves) follow the same relations with the same filters, but for the owner's userid,
// which is a slot.
export const reachKey = (user: UserProfile): string => (user.isAdmin ? '*' : [...user.groups].sort().join(','));
