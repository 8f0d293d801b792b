import type * as Hapi from '@hapi/hapi';

import { apiKeyRoutes } from '../plugins/apikeys';
import { authRoutes } from '../plugins/auth';
import { health } from '../plugins/health';
import { info } from '../plugins/info';
import { resources } from '../plugins/resources';
import { unserved } from '../plugins/unserved';


// The feature plugins, registered in this order. Wiring is explicit: only YAML is discovered from disk.
export const features = [health, authRoutes, apiKeyRoutes, info, resources, unserved] as Hapi.Plugin<unknown>[];
