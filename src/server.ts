import * as Hapi from '@hapi/hapi';

import { app } from './app';
import type { OspreyOptions } from './config';
import { maximoError } from './errors/maximo-error';
import { corsRouteOptions } from './http/cors';
import { answerParseErrors } from './http/parse-errors';
import type { Logger } from './http/request-log';
import { loadPlugins } from './user-plugins';


export interface ServerSetup {
    options: OspreyOptions;
    log?: Logger;
    /** Plugins registered after the first-party features, after those named by `options.plugins`. */
    plugins?: Hapi.Plugin<any>[];
}

// Composes a ready (not yet started) server: hapi with Osprey's route defaults, then the app plugin. The user
// plugins that configuration names are loaded first, so a bad one stops the start before the database is touched.
export const createServer = async ({ options, log, plugins = [] }: ServerSetup): Promise<Hapi.Server> => {

    const user = [...loadPlugins(options.plugins), ...plugins];
    const server = Hapi.server({
        port: options.port,
        host: options.host,
        router: { stripTrailingSlash: true, isCaseSensitive: false },
        routes: {
            payload: { maxBytes: options.maxBody },
            state: { parse: false, failAction: 'ignore' },
            validate: {
                failAction: (_request, _h, err) => {

                    throw maximoError('badRequest', (err as Error).message);
                }
            },
            response: { emptyStatusCode: 204 },
            // Web pages on the configured origins (OSPREY_CORS_ORIGINS); their preflights: src/http/cors.ts.
            cors: corsRouteOptions(options)
        }
    });

    await server.register({ plugin: app, options: { options, log, plugins: user } });
    answerParseErrors(server);

    return server;
};
