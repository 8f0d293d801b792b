import type * as Hapi from '@hapi/hapi';

import { flag } from './flags';
import { header } from './headers';
import { homeOf } from './homes';


// The origin hrefs are built on: the x-public-uri header when a proxy sends it, otherwise the request's own
// scheme and host; empty (relative hrefs) with relativeuri=1. In Maximo x-public-uri is the public URI of the
// API home, and IBM's Java client sends it so on every request (http://host:port/maximo/oslc): a value that
// ends with /{contextRoot}/{api|oslc} gives the origin before it; any other value is the origin itself.
export const origin = (request: Hapi.Request): string => {

    if (flag(request.query.relativeuri)) {
        return '';
    }

    const publicUri = header(request, 'x-public-uri');
    if (publicUri && /^https?:\/\/[^\s]+$/i.test(publicUri)) {
        const trimmed = publicUri.replace(/\/+$/, '');
        const home = /^(https?:\/\/[^/]+(?:\/.*)?)\/([^/]+)\/(?:api|oslc)$/i.exec(trimmed);
        return home && home[2]!.toLowerCase() === request.server.app.osprey.options.contextRoot.toLowerCase() ? home[1]! : trimmed;
    }

    return `${request.url.protocol}//${request.info.host}`;
};

// The API home the request came in on, e.g. http://host:8080/maximo/oslc.
export const homeHref = (request: Hapi.Request, contextRoot: string): string => `${origin(request)}/${contextRoot}/${homeOf(request)}`;
