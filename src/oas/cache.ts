import type * as Hapi from '@hapi/hapi';

import { isAllowed, type Right } from '../auth/access';
import type { UserProfile } from '../auth/users';
import type { Registry } from '../structures/registry';
import type { ListedRoute } from './document';


// The document depends on the routes (fixed once the server has started), the home, os= and the user's rights on
// each structure, nothing else: it is made once per such set and kept, so users with the same rights share one.
// A change of a user's groups changes the key, not a kept document. Bounded: at most `limit` documents are kept.

const rights: readonly Right[] = ['read', 'insert', 'update', 'delete', 'actions'];

export const rightsKey = (registry: Registry, user: UserProfile): string => registry.list().map((structure) => rights.map((right) => (isAllowed(user, structure, right) ? 1 : 0)).join('')).join('.');

export class DocumentCache {

    readonly #kept = new Map<string, string>();

    constructor(readonly limit = 64) {}

    get(key: string, make: () => unknown): string {

        const known = this.#kept.get(key);
        if (known !== undefined) {
            return known;
        }

        if (this.#kept.size >= this.limit) {
            this.#kept.delete(this.#kept.keys().next().value!);
        }

        const text = JSON.stringify(make());
        this.#kept.set(key, text);
        return text;
    }
}

// The server's routes as the document lists them, below the home they are served under (or the context root).
export const listedRoutes = (server: Hapi.Server, contextRoot: string, home: string): ListedRoute[] => {

    const prefix = `/${contextRoot}/${home}`;
    const listed: ListedRoute[] = [];
    for (const route of server.table()) {
        const id = route.settings.id ?? `${route.method} ${route.path}`;
        const routeHome = (route.settings.app as { home?: string } | undefined)?.home;
        const plugin = route.realm.plugin;
        if (routeHome === home) {
            listed.push({ method: route.method, path: route.path.slice(prefix.length).replace(/\*\}/g, '}') || '/', id: id.endsWith(`.${home}`) ? id.slice(0, -home.length - 1) : id, root: false, ...plugin ? { plugin } : {} });
        }
        else if (routeHome === undefined && route.path.startsWith(`/${contextRoot}/`)) {
            listed.push({ method: route.method, path: route.path.slice(contextRoot.length + 1).replace(/\*\}/g, '}'), id, root: true, ...plugin ? { plugin } : {} });
        }
    }

    return listed;
};
