import type * as Hapi from '@hapi/hapi';


// Purges of rows that have outlived what they were kept for (transaction ids, sessions): once when the server has
// started and then every quarter of the keeping time, between one minute and one hour. A failure is logged and
// the next round tries again; the timer never holds the process open.
export const purgeWhileRunning = (server: Hapi.Server, keptMs: number, purge: () => Promise<unknown>): void => {

    const run = () => purge().catch((error: Error) => server.log(['error'], error.message));
    let timer: NodeJS.Timeout | undefined;
    server.ext('onPostStart', () => {

        timer = setInterval(run, Math.max(60_000, Math.min(keptMs / 4, 3600_000))).unref();
        void run();
    });
    server.ext('onPreStop', () => clearInterval(timer));
};
