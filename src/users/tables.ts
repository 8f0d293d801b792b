// Users, groups and memberships as object structures (issue 37): MXAPIMAXUSER (MAXUSER, with its GROUPUSER rows)
// and MXAPIMAXGROUP (MAXGROUP, with the same GROUPUSER rows). Their business objects are served from Osprey's own
// tables, osprey_user, osprey_group and osprey_groupuser, which logins read (src/auth/users.ts), rather than from
// tables of their own with the users copied over. One store means no second copy to keep in step: a write through
// the API is a change of who logs in, made in the write's one transaction, and the triggers of those tables
// (src/auth/credential-stamp.ts) move osprey_authstamp and the user's credstamp in that same transaction, so every
// node drops what it remembers of that user at its next request, as for a change Users makes. So these three
// tables, and no other of Osprey's, may be named by a structure, and only as the business object that is theirs;
// the columns that hold credentials must be declared secret (never rendered, never usable in a query).

export interface ServedTable {
    /** The business object a structure must name the table as. */
    readonly object: string;
    /** Columns that must be declared `secret: true`. */
    readonly secrets: readonly string[];
}

export const servedSystemTables: ReadonlyMap<string, ServedTable> = new Map([
    ['osprey_user', { object: 'MAXUSER', secrets: ['passwordhash', 'credstamp'] }],
    ['osprey_group', { object: 'MAXGROUP', secrets: [] }],
    ['osprey_groupuser', { object: 'GROUPUSER', secrets: [] }]
]);
