import type * as Hapi from '@hapi/hapi';

import { maximoError } from '../errors/maximo-error';
import type { Structure } from '../structures/registry';


// The object structure named by the route's {os} parameter (case-insensitive), or Maximo's 404.
export const structureOf = (request: Hapi.Request): Structure => {

    const structure = request.server.app.osprey.registry.get(String(request.params.os));
    if (!structure) {
        throw maximoError('unknownStructure', `The object structure ${String(request.params.os).toUpperCase()} does not exist.`);
    }

    return structure;
};
