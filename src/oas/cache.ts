import type * as Hapi from '@hapi/hapi';

import { isAllowed, type Right } from '../auth/access';
import type { UserProfile } from '../auth/users';
import type { Registry } from '../structures/registry';
import type { ListedRoute } from './document';


// The document's parts depend on the routes (fixed once the server has started), the home and the user's rights
// on each structure, nothing else: each is made once per such set and kept as text, so users with the same rights
// share them, and a change of a user's groups changes the key, not a kept part. Kept within a budget of characters,
// the least recently used going first (a part larger than the budget is made and not kept).

const rights: readonly Right[] = ['read', 'insert', 'update', 'delete', 'actions'];

export const rightsKey = (registry: Registry, user: UserProfile): string => `${user.isAdmin ? 'admin' : 'user'}:${registry.list().map((structure) => rights.map((right) => (isAllowed(user, structure, right) ? 1 : 0)).join('')).join('.')}`;

export class PartCache {

    readonly #kept = new Map<string, string>();
    #size = 0;

    constructor(readonly budget = 64 * 1024 * 1024) {}

    get(key: string, make: () => string): string {

        const known = this.#kept.get(key);
        if (known !== undefined) {
            this.#kept.delete(key);
            this.#kept.set(key, known);
            return known;
        }

        const text = make();
        if (text.length > this.budget) {
            return text;
        }

        for (const [oldest, kept] of this.#kept) {
            if (this.#size + text.length <= this.budget) {
                break;
            }

            this.#kept.delete(oldest);
            this.#size -= kept.length;
        }

        this.#kept.set(key, text);
        this.#size += text.length;
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
