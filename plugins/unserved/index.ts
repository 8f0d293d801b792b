import type * as Hapi from '@hapi/hapi';

import { homeRoutes, notProvided, unservedRoutes, type HomeRoute } from '../../src';


// The routes of Maximo services Osprey does not provide (src/http/unserved.ts): any method, any body, answered
// 501 naming the service once the caller has logged in, as every API route is.
export const unserved: Hapi.Plugin<unknown> = {
    name: 'unserved',
    // The app (src/app.ts): server.app.osprey (options) and the login strategy the 501s answer behind.
    dependencies: ['osprey'],
    register: (server) => {

        const { contextRoot } = server.app.osprey.options;
        const route = (entry: typeof unservedRoutes[number]): HomeRoute => ({
            method: '*',
            path: entry.path,
            options: {
                id: entry.id,
                // The body is never read: unparsed, so no content type (a certificate as text/plain) is refused first.
                payload: { parse: false, output: 'data' },
                handler: () => {

                    throw notProvided(entry);
                }
            }
        });

        server.route(homeRoutes(contextRoot, unservedRoutes.filter((entry) => !entry.root).map(route)));
        server.route(unservedRoutes.filter((entry) => entry.root).map(route) as Hapi.ServerRoute[]);
    }
};
