import type * as Hapi from '@hapi/hapi';

import type { Db } from '../../src/db/db';
import { userOf } from '../../src/http/caller';
import type { Row } from '../../src/read/execute/find';
import { memberRow as readMemberRow } from '../../src/read/execute/member';
import type { Structure } from '../../src/structures/registry';


// The record a write's request names, as its user may see it, for the write handlers that still take a hapi
// request (operations.ts); the read pipeline's own is src/read/execute/member.ts, which takes a request value.
export const memberRow = (request: Hapi.Request, structure: Structure, options: { id?: string; lock?: boolean; db?: Db } = {}): Promise<Row> => {

    return readMemberRow({ osprey: request.server.app.osprey, user: userOf(request), id: request.params.id as string | undefined }, structure, options);
};
