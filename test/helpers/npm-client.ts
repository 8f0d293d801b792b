import { ApiHome, MaximoClientBuilder, type ILogger } from '@maximomize/maximo-api-client';

import type { TestDatabase } from './databases';
import { dataDir, startProcess, type RunningServer } from './process';


// The npm Maximo client, unchanged, against a real server process: the tests that drive it share this set-up.

export const quiet = { trace: () => undefined, debug: () => undefined, info: () => undefined, warn: () => undefined, error: () => undefined, setLogLevel: () => undefined, getLogLevel: () => 'error' } as unknown as ILogger;

// A builder for the client of the server on this port, logging nothing.
export const clientBuilder = (port: number): MaximoClientBuilder => new MaximoClientBuilder().baseUrl('127.0.0.1').port(port).ssl(false).contextRoot('maximo').logger(quiet);

export type NpmClient = ReturnType<MaximoClientBuilder['build']>;

export interface ClientServer {
    readonly running: RunningServer;
    /** WILSON's client on the OSLC home. */
    readonly client: NpmClient;
    stop(): Promise<void>;
}

// A demo server process on a fresh database of this kind, and WILSON's client of it. It runs as if behind a
// trusted proxy, so that the x-public-uri the client's withPublicUri sends is followed (README, hostile clients).
export const startClientServer = async (database: TestDatabase): Promise<ClientServer> => {

    const created = await database.create();
    const running = await startProcess({ DATABASE_URL: created.url, OSPREY_DATA: dataDir(), OSPREY_TRUST_PROXY: '1' });
    const client = clientBuilder(running.port).withCredentials('wilson', 'wilson').apiHome(ApiHome.OSLC).build();
    return {
        running,
        client,
        stop: async () => {

            await running.stop();
            await created.drop();
        }
    };
};
