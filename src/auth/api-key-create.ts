import { ownedBody } from './access';
import type { UserProfile } from './users';
import type { Osprey } from '../context';
import { attributeError, maximoError } from '../errors/maximo-error';
import type { CreateCall } from '../structures/hooks';
import type { Row, Structure } from '../structures/registry';
import { normalUserid } from './userid';


// POST {home}/os/mxapiapikey: a key for a user (CONTRACT §7). The generic create would store what the body
// says; a key is made here instead (the create hook of its object, api-key-hooks.ts): random (or supplied, where
// configured), sealed, with its expiry computed.

const maxExpiration = 60 * 24 * 366 * 10;           // ten years, in minutes

const invalid = (structure: Structure, attribute: string, message: string) => attributeError({ attribute, objectPath: structure.root.name, message });

export interface KeyInput {
    readonly userid: string;
    readonly expiration: number;
    readonly apikey?: string;
}

// userid (default: the caller), expiration in minutes (-1: never; default -1) and, where allowed, apikey.
export const keyInput = (osprey: Osprey, user: UserProfile, structure: Structure, body: Row): KeyInput => {

    const unknown = Object.keys(body).filter((name) => !['userid', 'expiration', 'apikey', 'href', '_rowstamp'].includes(name.toLowerCase()));
    if (unknown.length) {
        throw invalid(structure, unknown[0]!, `${unknown[0]} cannot be set on an API key; send userid, expiration and (where allowed) apikey.`);
    }

    // access.owner (userid) keeps users to their own keys; administrators name anyone, by default themselves.
    const owned = ownedBody(user, structure, body);
    const userid = owned.userid === undefined || owned.userid === null ? user.userid : normalUserid(String(owned.userid));

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

// The create hook: the key row, made in the write's transaction (its lookups too: on SQLite the transaction holds
// the pool's one connection).
export const createKey = async ({ req, body, db, now }: CreateCall): Promise<Row> => {

    const { osprey, structure } = req;
    const input = keyInput(osprey, req.user, structure, body);
    if (!await osprey.users.exists(input.userid, (table) => db.query(table))) {
        throw invalid(structure, 'userid', `There is no active user ${input.userid}.`);
    }

    if (input.apikey && await db.query(structure.root.table).where('apikeyhash', osprey.apiKeys.digest(input.apikey)).first()) {
        throw maximoError('duplicateRecord', 'That API key value is already in use.');
    }

    const { row } = await osprey.apiKeys.insert(db, input, now);
    return row;
};
