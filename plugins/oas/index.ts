import type * as Hapi from '@hapi/hapi';

import { homeRoutes, maximoError, openApiDocument, openApiOther, openApiPageFile, openApiPageFiles, openApiPagePolicy, openApiStructure } from '../../src';


// The OpenAPI documents of the API (src/oas) under both homes, and the page that browses them, Maximo's
// {contextRoot}/oas3/api.html: Swagger UI, served from the swagger-ui-dist package.
export const oas: Hapi.Plugin<unknown> = {
    name: 'oas',
    // The app (src/app.ts): server.app.osprey (options, registry) and the login strategy.
    dependencies: ['osprey'],
    register: (server) => {

        const { contextRoot } = server.app.osprey.options;
        const json = (text: string, h: Hapi.ResponseToolkit) => h.response(text).type('application/json; charset=utf-8');
        server.route(homeRoutes(contextRoot, [
            { method: 'GET', path: '/oas', options: { id: 'oas.document', handler: async (request, h) => json(await openApiDocument(request), h) } },
            { method: 'GET', path: '/oas/{os}', options: { id: 'oas.structure', handler: async (request, h) => json(await openApiStructure(request), h) } },
            // No body is read: the answer is a refusal whatever it is.
            { method: '*', path: '/oas/{rest*}', options: { id: 'oas.other', payload: { parse: false, output: 'data' }, handler: openApiOther } }
        ]));

        // The page and its files need no login (they are the npm package's, and the page's own lines log in).
        server.route({
            method: 'GET',
            path: `/${contextRoot}/oas3/{file*}`,
            options: {
                id: 'oas.page',
                auth: false,
                handler: (request, h) => {

                    const name = String(request.params.file ?? '');
                    if (name === '') {
                        return h.redirect(`/${contextRoot}/oas3/api.html`);
                    }

                    const file = openApiPageFile(name);
                    if (!file) {
                        throw maximoError('routeNotFound', `${request.path} is not a file of the API page: its files are ${openApiPageFiles.join(', ')} (the page is /${contextRoot}/oas3/api.html).`);
                    }

                    return h.response(file.body).type(file.type).header('Content-Security-Policy', openApiPagePolicy);
                }
            }
        });
    }
};
