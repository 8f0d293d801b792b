import type * as Hapi from '@hapi/hapi';

import { homeRoutes, keyInput, maximoError, recordBody, runWrite, userOf, writeSettingsFor, type Structure } from '../../src';
import { jsonPayload, writeOptions } from '../resources/request';


// The caller's own key (CONTRACT §7): get (the current one, or a new one that never expires), create (a new one
// with the given expiry, replacing the old) and revoke. They need a credential login, not a key: a leaked key
// must not be able to mint or extend keys.

const settingsOf = (request: Hapi.Request, structure: Structure) => writeSettingsFor(request.server.app.osprey, userOf(request), structure, writeOptions(request));

const credentialOnly = (request: Hapi.Request) => {

    if (request.auth.credentials.method === 'apikey') {
        throw maximoError('forbidden', 'API keys are managed with a credential login (maxauth, Basic, _lid/_lpwd or a session), not with an API key.');
    }

    return request.server.app.osprey.apiKeys.available();
};

// A new key in place of the user's keys; with `reuse` (apitoken/get), the current key where one is valid, read
// under the user's lock, so that gets at once answer one key, and it is live.
const replaceKey = async (request: Hapi.Request, structure: Structure, expiration: number, reuse = false) => {

    const osprey = request.server.app.osprey;
    const userid = request.auth.credentials.user!.userid;
    return await runWrite(settingsOf(request, structure), async (scope) => {

        await osprey.apiKeys.lockUser(scope.db, userid);
        const current = reuse ? await osprey.apiKeys.current(userid, scope.db) : undefined;
        if (current) {
            return { apikey: current };
        }

        await osprey.apiKeys.revokeAll(scope.db, userid);
        const { row, apikey } = await osprey.apiKeys.insert(scope.db, { userid, expiration }, scope.ctx.now, true);
        return { apikey, expiration, ...(row.expirationdate ? { expirationdate: new Date(row.expirationdate as string).toISOString() } : {}) };
    });
};

// apitoken/get and apitoken/revoke act on the caller's own keys and take nothing: a field sent (a userid, an
// expiration) would be ignored unsaid, and a caller who sent {"userid": "MAXADMIN"} would think it was obeyed.
const takesNothing = (request: Hapi.Request, route: string): void => {

    const [name] = Object.keys(recordBody(request.payload));
    if (name !== undefined) {
        throw maximoError('badRequest', `apitoken/${route} acts on your own keys and takes no fields ({} or no body); ${JSON.stringify(name)} is not carried out.${route === 'get' ? ' apitoken/create takes {"expiration": minutes}.' : ''}`);
    }
};

export const apiKeyRoutes: Hapi.Plugin<unknown> = {
    name: 'apikeys',
    // The app (src/app.ts): server.app.osprey (options, API keys) and the login strategy its routes sit behind.
    dependencies: ['osprey'],
    register: (server) => {

        const get: Hapi.Lifecycle.Method = async (request) => {

            const structure = credentialOnly(request);
            takesNothing(request, 'get');
            const current = await request.server.app.osprey.apiKeys.current(request.auth.credentials.user!.userid);
            return current ? { apikey: current } : await replaceKey(request, structure, -1, true);
        };

        const create: Hapi.Lifecycle.Method = async (request) => {

            const structure = credentialOnly(request);
            const body = recordBody(request.payload);
            // The body names the key's expiration only: a misspelt name would otherwise make a key that never expires.
            const other = Object.keys(body).find((name) => name !== 'expiration');
            if (other !== undefined) {
                throw maximoError('badRequest', `apitoken/create takes {"expiration": minutes} only; ${JSON.stringify(other)} is not carried out.`);
            }

            const { expiration } = keyInput(request.server.app.osprey, userOf(request), structure, { expiration: body.expiration ?? -1 });
            return await replaceKey(request, structure, expiration);
        };

        const revoke: Hapi.Lifecycle.Method = async (request, h) => {

            const structure = credentialOnly(request);
            takesNothing(request, 'revoke');
            const userid = request.auth.credentials.user!.userid;
            const { apiKeys } = request.server.app.osprey;
            await runWrite(settingsOf(request, structure), async (scope) => {

                await apiKeys.lockUser(scope.db, userid);
                await apiKeys.revokeAll(scope.db, userid);
            });
            return h.response().code(204);
        };

        server.route(homeRoutes(server.app.osprey.options.contextRoot, [
            { method: 'POST', path: '/apitoken/get', options: { id: 'apikeys.get', handler: get, payload: jsonPayload } },
            { method: 'POST', path: '/apitoken/create', options: { id: 'apikeys.create', handler: create, payload: jsonPayload } },
            { method: 'POST', path: '/apitoken/revoke', options: { id: 'apikeys.revoke', handler: revoke, payload: jsonPayload } }
        ]));
    }
};
