import type * as Hapi from '@hapi/hapi';

import { maximoError } from '../errors/maximo-error';
import { own } from '../structures/own';


// Maximo services the clients call that Osprey does not provide. Each is answered 501 in Maximo's error shape,
// naming the service and why, so that a client learns the server lacks it instead of suspecting a typo in its URL
// (a 404 says "no such thing here", which is what a mistyped path gets). The URLs are the ones the npm client's
// sources call (@maximomize/maximo-api-client: services/manage, services/tools); nothing else is routed here.

export interface Unserved {
    /** What Osprey does not provide, as a sentence names it: "the logging service (service/logging)". */
    readonly service: string;
    readonly why: string;
}

export const notProvidedMessage = ({ service, why }: Unserved): string => `Osprey does not provide ${service}: ${why}.`;

export const notProvided = (unserved: Unserved) => maximoError('notProvided', notProvidedMessage(unserved));

// The object structures of Maximo services, by the names the npm client uses (its constants/maximo-defaults and
// AutoscriptService); every route with an {os} answers them 501 (collections, records, apimeta, jsonschemas).
const structures: Readonly<Record<string, Unserved>> = {
    MXAPIAUTOSCRIPT: { service: 'the automation script service (mxapiautoscript)', why: 'automation scripts run Jython or JavaScript inside a Maximo server, and Osprey hosts no scripts' },
    MXL_APPS: { service: 'the application XML service (MXL_APPS)', why: 'Osprey has no Maximo applications, screens or signature options to edit' },
    MXINTOBJECT: { service: 'the object structure service (MXINTOBJECT)', why: 'object structures are YAML files under structures/, read when the server starts' },
    MXL_CONDITION: { service: 'the condition expression service (MXL_CONDITION)', why: 'Osprey evaluates no Maximo condition expressions' }
};

export const unservedStructure = (name: string): Unserved | undefined => own(structures, name.toUpperCase());

// Attributes of a Maximo feature Osprey does not provide itself, by business object: a write that sends one is
// refused 501 by name instead of 400 as an unknown attribute (or, where the YAML declares it non-persistent, instead
// of being accepted and not stored), unless a plugin's handler takes it (src/write/attribute-writes.ts): the meters
// example (plugins/examples/meters), which the demo loads, records readings.
const readings = (name: string): Unserved => ({
    service: `meter readings (${name} of ASSETMETER)`,
    why: 'readings are recorded by a plugin, the meters example (plugins/examples/meters), which the demo loads and this server has not; a meter itself can be added without a reading'
});
const attributes: Readonly<Record<string, Readonly<Record<string, Unserved>>>> = {
    ASSETMETER: { newreading: readings('newreading'), newreadingdate: readings('newreadingdate') }
};

export const unservedAttribute = (objectName: string, attribute: string): Unserved | undefined => {

    const object = own(attributes, objectName);
    return object && own(object, attribute);
};

export interface UnservedRoute extends Unserved {
    /** The route id (registered in src/http/parameters.ts, which checks no parameter of these routes). */
    readonly id: string;
    /** Under each API home ({home}/…), or from the server's root (the tools API and the client's stray script URL). */
    readonly path: string;
    readonly root?: boolean;
}

const scripts = 'automation scripts run Jython or JavaScript inside a Maximo server, and Osprey hosts no scripts';
const logging = 'Osprey writes one line per request and per server event to its standard output (JSON, or pretty on a terminal; OSPREY_LOG sets the level, OSPREY_LOG_FORMAT the format) and keeps no Maximo loggers or log files';
const sites = 'Osprey keeps no site or organization records (siteid and orgid are attributes of the records), and no user is restricted to sites';

export const unservedRoutes: readonly UnservedRoute[] = [
    // AutoscriptService.execute/executeScript and ScriptHandlerService.executeScript; executeWithContext posts to
    // script/{name} without the home (its URL misses the API base), hence the root route too.
    { id: 'unserved.script', path: '/script/{name*}', service: 'the automation script service (script/{name})', why: scripts },
    { id: 'unserved.rootScript', path: '/script/{name*}', root: true, service: 'the automation script service (script/{name}, sent without the API home)', why: scripts },
    { id: 'unserved.logging', path: '/service/logging', service: 'the logging service (service/logging)', why: logging },
    { id: 'unserved.log', path: '/log/{name*}', service: 'the thread logging service (log/…)', why: logging },
    { id: 'unserved.refresh', path: '/refresh/{cache*}', service: 'the cache service (refresh/{cache})', why: 'Osprey keeps no Maximo caches to refresh: structures are read at start, and what it caches it refreshes itself when a table changes' },
    { id: 'unserved.allglauth', path: '/permission/allglauth', service: 'general ledger authorization (permission/allglauth)', why: 'Osprey has no general ledger accounts' },
    { id: 'unserved.anyglauth', path: '/permission/anyglauth', service: 'general ledger authorization (permission/anyglauth)', why: 'Osprey has no general ledger accounts' },
    { id: 'unserved.orgs', path: '/permission/orgs', service: 'organization authorization (permission/orgs)', why: sites },
    { id: 'unserved.orgdetails', path: '/permission/orgdetails', service: 'organization authorization (permission/orgdetails)', why: sites },
    { id: 'unserved.sites', path: '/permission/sites', service: 'site authorization (permission/sites)', why: sites },
    { id: 'unserved.sitedetails', path: '/permission/sitedetails', service: 'site authorization (permission/sitedetails)', why: sites },
    { id: 'unserved.collections', path: '/permission/collections', service: 'collection authorization (permission/collections)', why: 'Osprey has no asset collections' },
    { id: 'unserved.tools', path: '/toolsapi/toolservice/{name*}', root: true, service: 'the Maximo tools API (toolsapi/toolservice)', why: 'it manages the pods, database, certificates and customization archives of a Maximo Application Suite deployment, and Osprey is none' }
];

// The metrics of the Maximo Management Interface (members/{id}/{metric}) that the npm client's MmiService asks for
// and Osprey does not measure; the ones it does measure are in plugins/info/metrics.ts.
const java = 'Osprey runs on Node.js, not in a Java application server (systeminfo names the runtime)';
const unservedMetrics: Readonly<Record<string, string>> = {
    clouddbstatistics: 'Osprey runs on no Maximo cloud database service', clouddbstorage: 'Osprey runs on no Maximo cloud database service',
    pingkafka: 'Osprey sends no messages to Kafka', pingcos: 'Osprey stores nothing in cloud object storage',
    'dbinfo/dbmanager': 'Osprey has no Maximo database manager (dbinfo answers the database and its connection pool)',
    cronthread: 'Osprey runs no cron tasks', cron: 'Osprey runs no cron tasks',
    classinfo: java, jvm: java, heapdump: java, 'appservices/heapdump': java, appservices: java, threadpoolinfo: java, servletstats: java, msgproviders: java,
    opsystem: 'systeminfo names the operating system Osprey runs on',
    mbocount: 'Osprey keeps no business objects in memory between requests', oscache: 'Osprey keeps no object structure cache',
    apimetrics: 'Osprey counts no API calls (its log has one line per request)', errcountmetrics: 'Osprey counts no errors (its log has one line per request)',
    loggers: logging, sessionstatsinfo: 'Osprey keeps no session statistics', tablesize: 'Osprey does not report table sizes',
    formula: 'Osprey evaluates no Maximo formulas', report: 'Osprey has no report server to measure (reports are rendered per request)',
    queues: 'Osprey has no integration queues', http: 'Osprey keeps no HTTP statistics', eventtree: 'Osprey has no Maximo event topics',
    'globaldir/childdirs': 'Osprey has no Maximo global directory'
};

export const unservedMetric = (metric: string): Unserved | undefined => {

    const name = metric.toLowerCase();
    const why = own(unservedMetrics, name) ?? (name.startsWith('classinfo/') ? java : undefined);
    return why === undefined ? undefined : { service: `the ${name} metric of the Maximo Management Interface (members/{id}/${name})`, why };
};

// Every route of a structure Osprey does not provide is refused before its parameters are read (a client's
// approveApp sends ?action=, which would otherwise be refused as an action).
export const refuseUnservedStructures = (server: Hapi.Server): void => {

    server.ext('onPreHandler', (request, h) => {

        const unserved = request.params.os === undefined ? undefined : unservedStructure(String(request.params.os));
        if (unserved) {
            throw notProvided(unserved);
        }

        return h.continue;
    });
};
