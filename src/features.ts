import type * as Hapi from '@hapi/hapi';

import { apiKeyRoutes } from '../plugins/apikeys';
import { authRoutes } from '../plugins/auth';
import { health } from '../plugins/health';
import { info } from '../plugins/info';
import { resources } from '../plugins/resources';
import { services } from '../plugins/services';
import { unserved } from '../plugins/unserved';


// The feature plugins, registered in this order. Wiring is explicit: only YAML is discovered from disk. A function,
// called when the app registers: the plugins import the package root (src/index.ts), which loads this module
// through src/server.ts, so where a plugin's module is loaded first its plugin is not yet defined when this loads.
export const features = (): Hapi.Plugin<unknown>[] => [health, authRoutes, apiKeyRoutes, info, resources, services, unserved] as Hapi.Plugin<unknown>[];
