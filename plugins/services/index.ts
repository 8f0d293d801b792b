import type * as Hapi from '@hapi/hapi';

import { callService, homeRoutes, jsonPayload } from '../../src';
import { declareBuiltInProperties } from './properties';
import { systemService } from './system';


// Service endpoints, {home}/service/{name}?action=wsmethod:{method} (src/services/dispatch.ts), and the built-in
// system service with its properties. One route of any method: Maximo's service routes Osprey does not provide
// (service/logging, 501) are routes of any method too, so hapi's router finds those by their literal path first;
// methods other than GET and POST are refused by name.
export const services: Hapi.Plugin<unknown> = {
    name: 'services',
    // The app (src/app.ts): server.app.osprey (the service and property registries) and the login strategy.
    dependencies: ['osprey'],
    register: (server) => {

        declareBuiltInProperties(server);
        server.registerService('system', systemService);
        server.route(homeRoutes(server.app.osprey.options.contextRoot, [
            { method: '*', path: '/service/{name}', options: { id: 'services.call', payload: jsonPayload, handler: callService } }
        ]));
    }
};
