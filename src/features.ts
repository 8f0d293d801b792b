import type * as Hapi from '@hapi/hapi';

import type { Registry } from './structures/registry';

import { apiKeyRoutes } from '../plugins/apikeys';
import { authRoutes } from '../plugins/auth';
import { health } from '../plugins/health';
import { meters, metersDeclared } from '../plugins/examples/meters';
import { info } from '../plugins/info';
import { oas } from '../plugins/oas';
import { resources } from '../plugins/resources';
import { services } from '../plugins/services';
import { attachments } from '../plugins/attachments';
import { unserved } from '../plugins/unserved';


// The feature plugins, registered in this order. Wiring is explicit: only YAML is discovered from disk. A function,
// called when the app registers: the plugins import the package root (src/index.ts), which loads this module
// through src/server.ts, so where a plugin's module is loaded first its plugin is not yet defined when this loads.
export const features = (): Hapi.Plugin<unknown>[] => [health, authRoutes, apiKeyRoutes, info, resources, attachments, services, oas, unserved] as Hapi.Plugin<unknown>[];

// The example plugins the demo loads (OSPREY_DEMO=1, the default), each where the structures declare what it works
// on: the meters example records ASSETMETER's newreading, so that the npm client's addMeter with a reading and
// updateMeterReading work on the demo. Without it (OSPREY_DEMO=0, or structures without ASSETMETER.NEWREADING) a
// reading is refused 501 by name (src/http/unserved.ts); OSPREY_PLUGINS may load it as any plugin.
export const demoExamples = (registry: Registry): Hapi.Plugin<unknown>[] => (metersDeclared(registry) ? [meters as Hapi.Plugin<unknown>] : []);
