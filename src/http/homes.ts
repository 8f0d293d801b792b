import type * as Hapi from '@hapi/hapi';


export const homes = ['api', 'oslc'] as const;
export type Home = typeof homes[number];

export type HomeRoute = Omit<Hapi.ServerRoute, 'path'> & { path: string };

// Every API route is declared once and served under both homes, /{contextRoot}/api and /{contextRoot}/oslc.
export const homeRoutes = (contextRoot: string, routes: readonly HomeRoute[]): Hapi.ServerRoute[] => {

    const expand = (home: Home, route: HomeRoute): Hapi.ServerRoute => {

        const options = route.options as Hapi.RouteOptions | undefined;
        return { ...route, path: `/${contextRoot}/${home}${route.path}`, options: { ...options, id: options?.id ? `${options.id}.${home}` : undefined, app: { ...options?.app, home } } };
    };

    return homes.flatMap((home) => routes.map((route) => expand(home, route)));
};

// The home of the request's route; a request no home route answers (a 404, a 405) is of the home its path names.
export const homeOf = (request: Hapi.Request): Home => (request.route.settings.app as { home?: Home } | undefined)?.home ?? pathHome(request);

const pathHome = (request: Hapi.Request): Home => {

    const api = `/${request.server.app.osprey.options.contextRoot}/api`;
    return request.path === api || request.path.startsWith(`${api}/`) ? 'api' : 'oslc';
};
