// The reason-code catalog: every error the server answers carries one of these codes, so clients can
// match on stable values. Codes that Maximo defines keep Maximo's number and meaning.

export const reasonCodes = {
    notFound: { code: 'BMXAA8727E', status: 404, text: 'The OSLC resource was not found as it does not exist in the system.' },
    unknownStructure: { code: 'BMXAA8727E', status: 404, text: 'The object structure does not exist.' },
    routeNotFound: { code: 'BMXAA8727E', status: 404, text: 'The requested resource does not exist.' },
    loginFailed: { code: 'BMXAA7901E', status: 401, text: 'You cannot log in at this time. Contact the system administrator.' },
    forbidden: { code: 'BMXAA9301E', status: 403, text: 'You are not authorized to perform this operation.' },
    badRequest: { code: 'BMXAA4153E', status: 400, text: 'The request is not valid.' },
    badQuery: { code: 'BMXAA8744E', status: 400, text: 'The query is not valid.' },
    attributeInvalid: { code: 'BMXAA4214E', status: 400, text: 'An attribute value is not valid.' },
    required: { code: 'BMXAA4195E', status: 400, text: 'A value is required.' },
    unknownAttribute: { code: 'BMXAA4203E', status: 400, text: 'The attribute does not exist on the object.' },
    stale: { code: 'BMXAA8229W', status: 409, text: 'The record has been updated by another user.' },
    preconditionFailed: { code: 'BMXAA8229W', status: 412, text: 'The record has been updated by another user (If-Match).' },
    duplicateTransaction: { code: 'BMXAA5646E', status: 409, text: 'A request with this transaction ID has already been processed.' },
    duplicateRecord: { code: 'BMXAA4129E', status: 400, text: 'A record with these key values already exists.' },
    tooLarge: { code: 'BMXAA1720E', status: 413, text: 'The request body is larger than the configured limit.' },
    unsupportedMedia: { code: 'BMXAA1721E', status: 415, text: 'The media type of the request body is not supported.' },
    methodNotAllowed: { code: 'BMXAA1722E', status: 405, text: 'The method is not allowed on this resource.' },
    tooManyLogins: { code: 'BMXAA1723E', status: 429, text: 'Too many failed login attempts. Try again later.' },
    // A Maximo service or feature the clients call that Osprey does not provide: named, never a 404 that reads
    // like a typo in the URL.
    notProvided: { code: 'BMXAA1726E', status: 501, text: 'This Maximo service is not provided by this server.' },
    // An item of an all-or-nothing bulk that was not written because another item failed (WebDAV's 424).
    bulkNotWritten: { code: 'BMXAA1727E', status: 424, text: 'Not written: another item of the all-or-nothing bulk failed.' },
    schemaChanged: { code: 'BMXAA1725E', status: 503, text: 'The database tables changed while the request ran (another server migrated them). Send the request again.' },
    // PostgreSQL cancelled a read's statement after OSPREY_STATEMENT_TIMEOUT_MS (src/db/knex.ts).
    statementTimeout: { code: 'BMXAA1728E', status: 503, text: 'A statement of this request ran longer than the limit (OSPREY_STATEMENT_TIMEOUT_MS) and was cancelled. Narrow the query, or send it again later.' },
    // A write waited past its limit for SQLite's one writer connection (src/db/group-commit.ts).
    writerBusy: { code: 'BMXAA1729E', status: 503, text: 'The database was busy with other writes for longer than a write waits. Nothing of this request was written; send it again later.' },
    // The stored bytes of an attachment do not match the SHA-256 kept at upload (src/attachments/download.ts).
    documentDamaged: { code: 'BMXAA1730E', status: 409, text: 'The stored document is damaged and is not served.' },
    // A Range that does not overlap the document.
    rangeNotSatisfiable: { code: 'BMXAA1731E', status: 416, text: 'The range asked for is not within the document.' },
    // An upload whose client stopped sending (src/attachments/upload.ts).
    uploadStalled: { code: 'BMXAA1732E', status: 408, text: 'The upload stopped before its end.' },
    // The database connection was lost or refused while the request ran (a server restart, a terminated backend,
    // a pool with no connection to give): src/errors/edge.ts.
    databaseUnavailable: { code: 'BMXAA1733E', status: 503, text: 'The connection to the database was lost or could not be made while the request ran. A write it made may not have been committed: read before you send it again.' },
    internal: { code: 'BMXAA1724E', status: 500, text: 'An internal error occurred. The request id identifies it in the server log.' }
} as const;

export type ReasonName = keyof typeof reasonCodes;

// The code to use for a Boom error that did not come from our own catalog (hapi's router, payload parser, Joi).
export const reasonForStatus = (status: number): ReasonName => {

    const byStatus: Record<number, ReasonName> = {
        401: 'loginFailed',
        403: 'forbidden',
        404: 'routeNotFound',
        405: 'methodNotAllowed',
        409: 'stale',
        412: 'preconditionFailed',
        413: 'tooLarge',
        415: 'unsupportedMedia',
        429: 'tooManyLogins'
    };

    return byStatus[status] ?? (status >= 500 ? 'internal' : 'badRequest');
};
