import type * as Hapi from '@hapi/hapi';

import { requireRight } from '../../src/auth/access';
import type { UserProfile } from '../../src/auth/users';
import { attributeError, maximoError } from '../../src/errors/maximo-error';
import type { Row } from '../../src/read/execute/find';
import { memberId, serializeRows } from '../../src/read/serialize/serialize';
import { runWrite } from '../../src/write/transaction';
import type { Structure } from '../../src/structures/registry';
import { bodyOf, collectionHref, created, ownedBody, serializeOptions, settingsOf, writeSelect } from './request';
import { userOf } from '../../src/http/caller';


// POST {home}/os/mxapiapikey: a key for a user (CONTRACT §7). The generic create would store what the body
// says; a key is made here instead: random (or supplied, where configured), sealed, with its expiry computed.

const maxExpiration = 60 * 24 * 366 * 10;           // ten years, in minutes

const invalid = (structure: Structure, attribute: string, message: string) => attributeError({ attribute, objectPath: structure.root.name, message });

// userid (default: the caller), expiration in minutes (-1: never; default -1) and, where allowed, apikey.
export const keyInput = (request: Hapi.Request, structure: Structure, body: Row) => {

    const osprey = request.server.app.osprey;
    const user = request.auth.credentials.user as UserProfile;
    const unknown = Object.keys(body).filter((name) => !['userid', 'expiration', 'apikey', 'href', '_rowstamp'].includes(name.toLowerCase()));
    if (unknown.length) {
        throw invalid(structure, unknown[0]!, `${unknown[0]} cannot be set on an API key; send userid, expiration and (where allowed) apikey.`);
    }

    // access.owner (userid) keeps users to their own keys; administrators name anyone, by default themselves.
    const owned = ownedBody(request, structure, body);
    const userid = owned.userid === undefined || owned.userid === null ? user.userid : String(owned.userid).toUpperCase();

    const expiration = body.expiration ?? -1;
    if (!Number.isInteger(expiration) || (expiration !== -1 && ((expiration as number) < 1 || (expiration as number) > maxExpiration))) {
        throw invalid(structure, 'expiration', `expiration is a whole number of minutes from 1 to ${maxExpiration}, or -1 for a key that never expires; ${JSON.stringify(expiration)} is not.`);
    }

    const apikey = body.apikey as unknown;
    if (apikey !== undefined && apikey !== null) {
        if (!osprey.options.externalApiKeys) {
            throw invalid(structure, 'apikey', 'This server makes API keys itself; supplied key values are not accepted (OSPREY_EXTERNAL_APIKEYS).');
        }

        if (typeof apikey !== 'string' || apikey.length < 32 || apikey.length > 200 || !/^[\x21-\x7e]+$/.test(apikey)) {
            throw invalid(structure, 'apikey', 'A supplied API key is 32 to 200 printable ASCII characters without spaces.');
        }
    }

    return { userid, expiration: expiration as number, apikey: apikey as string | undefined };
};

export const createKey = async (request: Hapi.Request, h: Hapi.ResponseToolkit, structure: Structure) => {

    requireRight(userOf(request), structure, 'insert');
    const osprey = request.server.app.osprey;
    const select = writeSelect(request, structure.root);
    const input = keyInput(request, structure, bodyOf(request));
    if (!await osprey.users.exists(input.userid)) {
        throw invalid(structure, 'userid', `There is no active user ${input.userid}.`);
    }

    if (input.apikey && await osprey.knex(structure.root.table).where('apikeyhash', osprey.apiKeys.digest(input.apikey)).first()) {
        throw maximoError('duplicateRecord', 'That API key value is already in use.');
    }

    const outcome = await runWrite(settingsOf(request, structure), async (scope) => {

        const { row } = await osprey.apiKeys.insert(scope.db, input, scope.ctx.now);
        const href = `${collectionHref(request, structure)}/${memberId(structure.root, row)}`;
        const [record] = select ? await serializeRows(scope.db, select, [row], [href], serializeOptions(request)) : [];
        return { row, record };
    });

    return created(request, h, structure, outcome);
};
