import * as Hapi from '@hapi/hapi';

import { app } from './app';
import type { OspreyOptions } from './config';
import { maximoError } from './errors/maximo-error';
import { answerParseErrors } from './http/parse-errors';
import type { Logger } from './http/request-log';
import { features } from './features';


export interface ServerSetup {
    options: OspreyOptions;
    log?: Logger;
}

// Composes a ready (not yet started) server: hapi with Osprey's route defaults, then the app plugin.
export const createServer = async ({ options, log }: ServerSetup): Promise<Hapi.Server> => {

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
            response: { emptyStatusCode: 204 }
        }
    });

    await server.register({ plugin: app, options: { options, log, features } });
    answerParseErrors(server);

    return server;
};
