// What a write asks, as the resources plugin reads it from the request's headers, query and body
// (plugins/resources/request.ts).
export interface WriteOptions {
    /** x-method-override, upper-cased ('' when none): SYNC and BULK on a collection. */
    readonly override: string;
    /** patchtype: MERGE, or x-method-override: MERGE: children the body does not name are kept. */
    readonly merge: boolean;
    /** The properties the write answers with (properties header, else query parameter); none: no body. */
    readonly properties?: string;
    /** batcherror: 1 reports every error of a body, not the first. */
    readonly batchErrors: boolean;
    /** x-allow-events: 0|false asks that no events be sent for the write. */
    readonly allowEvents: boolean;
    /** transactionid: the write is done at most once. */
    readonly transactionId?: string;
    /** If-Match: the ETag (rowstamp) the client read; the write is refused when the record changed since. */
    readonly ifMatch?: string;
    /** allornothing (header or query parameter) on a bulk: every item in one transaction. */
    readonly allOrNothing: boolean;
    /** The parsed body, as hapi read it (undefined when none). */
    readonly body: unknown;
}
