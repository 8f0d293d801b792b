import type { Osprey } from './context';
import type { UserProfile } from './auth/users';
import type { ReadQuery } from './read/request';
import type { Structure } from './structures/registry';
import type { WriteOptions } from './write/request';


// The one value an HTTP request to a record route becomes (issue 17): the resources plugin reads it from the hapi
// request in one place (plugins/resources/request.ts); everything below — the read and write pipelines under
// src/read and src/write — takes this value and knows nothing of hapi. Its parts are plain data: a test, an
// action or another plugin can build one without a request.

// How records in the answer render: the flags of the query string, the same for a read and for a write that
// answers with `properties`.
export interface RenderFlags {
    /** `_dropnulls=0` keeps null attributes in the answer. */
    readonly dropNulls: boolean;
    /** `ignorecollectionref=1` leaves out the collection links of child objects. */
    readonly collectionRefs: boolean;
    /** `ignorers=1` leaves out `_rowstamp`. */
    readonly rowstamps: boolean;
    /** `internalvalues=1` adds `{attr}_maxvalue` for attributes of a synonym domain. */
    readonly internalValues: boolean;
    /** `inlinedoc=1`: a record's documents (attachments) in the record, files with their bytes in base64. */
    readonly inlineDocuments?: boolean;
}

export interface ResourceRequest {
    /** The server's state the pipelines run against (registry, database, options, secret). */
    readonly osprey: Osprey;
    /** Who asks; rights and owner rules are checked against them. */
    readonly user: UserProfile;
    /** They signed in with an API key, not a credential login: records of an object whose hooks say
     * `credentialOnly` (API keys) are not created, revealed or deleted so (issue 18). */
    readonly apiKey?: boolean;
    /** The object structure of the route's {os}. */
    readonly structure: Structure;
    /** The route's record id ({id}), child object ({child}), child row id ({childid}) and lookup attribute. */
    readonly id?: string;
    readonly child?: string;
    readonly childId?: string;
    readonly attribute?: string;
    /** The href of the API home the request came through (`http://host/maximo/oslc`): links are built on it. */
    readonly home: string;
    /** The request's URL without credentials in its query: page links keep the rest of it. Only a request whose
     * answer may carry page links has it (a page, a child collection, a lookup); on a member GET, a count=1 and a
     * write, which answer none, reading it throws (the resources plugin does not make hapi parse the URL again). */
    readonly url: URL;
    /** The same, as text, with the same rule. */
    readonly linkHref: string;
    readonly render: RenderFlags;
    /** What a read asks (where, select, order, paging, counts, group-by, reports). */
    readonly read: ReadQuery;
    /** What a write asks (its kind, flags and headers). */
    readonly write: WriteOptions;
}
