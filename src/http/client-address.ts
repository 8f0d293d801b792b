import type * as Hapi from '@hapi/hapi';

import { header } from './headers';


// The address of the client a request comes from, for per-address login limits. Behind `trustProxy` proxies
// each appends the address it saw to X-Forwarded-For, so the client is the entry that many places from the
// right: anything to its left was written by the client itself and proves nothing. With no trusted proxy
// (the default) the header is ignored, since any client can send one.
export const clientAddress = (request: Hapi.Request, trustProxy: number): string => {

    const connection = request.info.remoteAddress;
    if (trustProxy === 0) {
        return connection;
    }

    const forwarded = (header(request, 'x-forwarded-for') ?? '').split(',').map((entry) => entry.trim()).filter(Boolean);
    // The nearest proxy is the connection itself; the header holds what the proxies before it saw.
    const hops = [...forwarded, connection];
    return hops[Math.max(0, hops.length - 1 - trustProxy)]!;
};
