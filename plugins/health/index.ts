import type * as Hapi from '@hapi/hapi';


// Liveness and readiness for load balancers: no login, and a database round trip.
export const health: Hapi.Plugin<unknown> = {
    name: 'health',
    // The app (src/app.ts): server.app.osprey (options, the database).
    dependencies: ['osprey'],
    register: (server) => {

        const { contextRoot } = server.app.osprey.options;
        server.route({
            method: 'GET',
            path: `/${contextRoot}/health`,
            options: {
                id: 'health.check',
                auth: false,
                handler: async (request, h) => {

                    const osprey = request.server.app.osprey;
                    try {
                        // On the readers' connections, which a long write transaction does not hold (src/db/knex.ts).
                        await osprey.db.rows('select 1');
                    }
                    catch {
                        return h.response({ status: 'unavailable', database: 'down' }).code(503);
                    }

                    return { status: 'ok', database: 'up', version: osprey.version, uptime: Math.round(process.uptime()) };
                }
            }
        });
    }
};
