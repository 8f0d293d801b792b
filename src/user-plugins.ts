import * as Path from 'node:path';

import type * as Hapi from '@hapi/hapi';


// Plugins an operator adds to Osprey: module paths named by configuration (OSPREY_PLUGINS or `plugins`), never
// anything a request says. Each module is loaded once at start, before the database is touched, and its plugin is
// registered after the first-party features (src/app.ts).

export class PluginError extends Error { }

// A hapi plugin object: a register function and a name (its own or its package's).
export const pluginName = (candidate: unknown): string | undefined => {

    if (typeof candidate !== 'object' || candidate === null || typeof (candidate as Hapi.Plugin<unknown>).register !== 'function') {
        return undefined;
    }

    const plugin = candidate as { name?: unknown; pkg?: { name?: unknown } };
    const name = plugin.name ?? plugin.pkg?.name;
    return typeof name === 'string' && name !== '' ? name : undefined;
};

// A path from `cwd` (`plugins/audit.js`, `./audit`, an absolute path), else a package in cwd's node_modules.
const resolve = (path: string, cwd: string): string | undefined => {

    for (const request of [Path.resolve(cwd, path), path]) {
        try {
            return require.resolve(request, { paths: [cwd] });
        }
        catch {
            // not there: the next way, if any
        }
    }

    return undefined;
};

// Loads the named modules, each resolved from `cwd`. A module's default export, else its `plugin` export, else
// the module's export itself (`module.exports = plugin`) must be a hapi plugin; anything else stops the start with a
// message naming the module.
export const loadPlugins = (paths: readonly string[], cwd: string = process.cwd()): Hapi.Plugin<unknown>[] => {

    const loaded = new Map<string, string>();
    const plugins: Hapi.Plugin<unknown>[] = [];
    for (const path of paths) {
        const file = resolve(path, cwd);
        if (file === undefined) {
            throw new PluginError(`Plugin ${path}: no module is found at that path (resolved from ${cwd})`);
        }

        if (loaded.has(file)) {
            throw new PluginError(`Plugin ${path}: the module ${file} is already named as ${loaded.get(file)}`);
        }

        loaded.set(file, path);
        let exported: { default?: unknown; plugin?: unknown };
        try {
            exported = Object(require(file));
        }
        catch (err) {
            throw new PluginError(`Plugin ${path} could not be loaded from ${file}: ${String((err as Error).message).split('\n')[0]}`);
        }

        const candidate = exported.default ?? exported.plugin ?? exported;
        if (pluginName(candidate) === undefined) {
            throw new PluginError(`Plugin ${path}: ${file} exports no hapi plugin (a default or \`plugin\` export, or \`module.exports = plugin\`, with a register function and a name)`);
        }

        plugins.push(candidate as Hapi.Plugin<unknown>);
    }

    return plugins;
};
