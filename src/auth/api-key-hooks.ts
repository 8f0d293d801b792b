import { createKey } from './api-key-create';
import { maximoError } from '../errors/maximo-error';
import { registerHooks } from '../structures/hooks';


// The rules of API-key records (CONTRACT §7), registered as the hooks of their business object (src/structures/hooks.ts)
// so that the write engine and the resources plugin treat the structure like any other.

export const apiKeyObject = 'APIKEYTOKEN';

registerHooks(apiKeyObject, {

    // POST {home}/os/mxapiapikey makes a key (random or supplied, sealed, expiry computed): api-key-create.ts.
    create: createKey,

    // A key is made, used and revoked, never edited: its value and expiry are what was handed out.
    beforeChange: (structure) => {

        throw maximoError('badRequest', `${structure.name} records cannot be changed: create a new key and revoke the old one.`);
    },

    computed: {
        // A revoked key is deleted: a key that is there is active until its expirationdate (none: never expires).
        active: {
            value: (row, now) => row.expirationdate === null || new Date(row.expirationdate as string).getTime() > now,
            query: 'is computed when a key is read (active until its expirationdate; a revoked key is deleted) and never stored, so it cannot filter, sort or group: use expirationdate (the saved query NEVEREXPIRE, expirationdate>"…" for keys not expired by then)'
        }
    },

    // The key's value may be named in a select; it renders to its owner and to administrators only, and only to a
    // credential login, as keys are only made and revoked by one.
    selectSecrets: true,
    // apikeyhash, the digest a sent key is found by, is never rendered: naming it is refused as any secret is.
    revealed: ['apikey'],
    credentialOnly: true,
    reveal: (attr, row, user, osprey) => {

        const mine = user.isAdmin || row.userid === user.userid;
        return attr.name === 'apikey' && mine && row.apikey ? osprey.apiKeys.open(String(row.apikey)) : undefined;
    }
});
