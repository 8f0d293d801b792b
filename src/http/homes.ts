import type * as Hapi from '@hapi/hapi';


export const homes = ['api', 'oslc'] as const;
export type Home = typeof homes[number];

export type HomeRoute = Omit<Hapi.ServerRoute, 'path'> & { path: string };

// Every API route is declared once and served under both homes, /{contextRoot}/api and /{contextRoot}/oslc.
export const homeRoutes = (contextRoot: string, routes: readonly HomeRoute[]): Hapi.ServerRoute[] => {

    return homes.flatMap((home) => routes.map((route) => ({
        ...route,
        path: `/${contextRoot}/${home}${route.path}`,
        options: {
            ...(route.options as Hapi.RouteOptions),
            id: (route.options as Hapi.RouteOptions | undefined)?.id ? `${(route.options as Hapi.RouteOptions).id}.${home}` : undefined,
            app: { ...(route.options as Hapi.RouteOptions | undefined)?.app, home }
        }
    })));
};

export const homeOf = (request: Hapi.Request): Home => (request.route.settings.app as { home?: Home } | undefined)?.home ?? 'oslc';
