import * as Os from 'node:os';

import type * as Hapi from '@hapi/hapi';

import { homeHref, maximoError, reasonCodes, userOf, type Member, type Structure, type UserProfile } from '../../src';


// The information documents of CONTRACT §9, built from the request (for hrefs) and the app state.

const home = (request: Hapi.Request) => homeHref(request, request.server.app.osprey.options.contextRoot);

export const apiHome = (request: Hapi.Request) => {

    const base = home(request);
    const osprey = request.server.app.osprey;
    return {
        href: base,
        systeminfo: { href: `${base}/systeminfo` },
        whoami: { href: `${base}/whoami` },
        installedProducts: { href: `${base}/products` },
        serverMembers: { href: `${base}/members` },
        license: { href: `${base}/license` },
        apimeta: { href: `${base}/apimeta` },
        os: { href: `${base}/os` },
        login: { href: `${base}/login` },
        logout: { href: `${base}/logout` },
        serverDateTime: new Date().toISOString(),
        language: request.auth.credentials.user?.langcode ?? 'EN',
        version: osprey.version,
        product: 'Osprey'
    };
};

export const systemInfo = (request: Hapi.Request) => {

    const osprey = request.server.app.osprey;
    return {
        href: `${home(request)}/systeminfo`,
        productName: 'Osprey',
        version: osprey.version,
        appVersion: { product: 'Osprey', version: osprey.version },
        node: { version: process.version, platform: process.platform, arch: process.arch },
        database: { kind: osprey.kind, dbProductName: osprey.kind === 'sqlite' ? 'SQLite' : 'PostgreSQL', dbVersion: osprey.databaseVersion },
        os: { name: Os.type(), version: Os.release(), cpus: Os.cpus().length },
        contextRoot: osprey.options.contextRoot,
        serverHost: Os.hostname(),
        startTime: osprey.started.toISOString(),
        uptime: Math.round((Date.now() - osprey.started.getTime()) / 1000),
        objectStructures: osprey.registry.list().length
    };
};

// The caller's profile; a form login, which has no credentials on its route, names the user it logged in.
export const whoami = (request: Hapi.Request, user: UserProfile = request.auth.credentials.user!) => {

    return {
        href: `${home(request)}/whoami`,
        userName: user.userid,
        userid: user.userid,
        loginID: user.userid,
        personid: user.personid ?? user.userid,
        displayName: user.displayname ?? user.userid,
        langcode: user.langcode,
        defaultSite: user.defsite,
        insertSite: user.insertsite ?? user.defsite,
        defaultOrg: user.defaultorg,
        insertOrg: user.defaultorg,
        primaryemail: user.primaryemail,
        groups: user.groups.map((groupname) => ({ groupname })),
        isAdmin: user.isAdmin
    };
};

export const products = (request: Hapi.Request) => {

    const osprey = request.server.app.osprey;
    return {
        href: `${home(request)}/products`,
        member: osprey.products.map((product) => ({ ...product }))
    };
};

// Where a node runs (its host, process and address) is an operator's to know, as its metrics are: an
// administrator's answer carries it, anyone else's the node's identity and liveness only.
export const member = (request: Hapi.Request, item: Member, thisServer: string) => ({
    href: `${home(request)}/members/${item.id}`,
    id: item.id,
    ...userOf(request).isAdmin ? { host: item.host, pid: item.pid, address: item.address } : {},
    version: item.version,
    started: new Date(item.started).toISOString(),
    lastHeartbeat: new Date(item.heartbeat).toISOString(),
    thisServer: item.id === thisServer
});

export const license = (request: Hapi.Request) => ({
    href: `${home(request)}/license`,
    member: request.server.app.osprey.options.licenses.map((entry) => ({ component: entry.component, license: entry.license, ...(entry.key ? { licenseKey: entry.key } : {}) }))
});

// GET {home}/error/messages/{code}, where an error's moreInfo.href points: the code's status and text.
export const errorMessage = (request: Hapi.Request) => {

    const code = String(request.params.code).toUpperCase();
    const entry = Object.values(reasonCodes).find((candidate) => candidate.code === code);
    if (!entry) {
        throw maximoError('routeNotFound', `${code} is not a reason code of this server.`);
    }

    return { href: `${home(request)}/error/messages/${code}`, reasonCode: code, statusCode: String(entry.status), message: `${code} - ${entry.text}` };
};

// GET {home}/os, which the home document links: the object structures served, each with its collection.
export const structureList = (request: Hapi.Request) => {

    const base = home(request);
    return {
        href: `${base}/os`,
        member: request.server.app.osprey.registry.list().map((structure) => ({ href: `${base}/os/${structure.id}`, name: structure.name, title: structure.def.title ?? structure.name, apimeta: { href: `${base}/apimeta/${structure.id}` } }))
    };
};

export const apimetaEntry = (request: Hapi.Request, structure: Structure) => {

    const base = home(request);
    const collection = `${base}/os/${structure.id}`;
    return {
        name: structure.name,
        title: structure.def.title ?? structure.name,
        description: structure.def.description ?? '',
        href: `${base}/apimeta/${structure.id}`,
        creationFactory: [{ name: 'default', href: collection }],
        queryCapability: [
            { name: 'All', title: 'All records', href: collection },
            ...Object.entries(structure.def.savedQueries).map(([name, query]) => ({ name, title: query.title, href: `${collection}?savedQuery=${encodeURIComponent(name)}`, ...(Object.keys(query.params).length ? { params: Object.keys(query.params) } : {}) }))
        ],
        resourceShape: `${base}/jsonschemas/${structure.id}`,
        appName: structure.def.app ?? null,
        objectName: structure.root.name,
        uniqueid: structure.root.uniqueColumn,
        primarykeys: [...structure.root.primaryKey],
        children: [...structure.root.children.keys()]
    };
};
