import * as Code from '@hapi/code';
import * as Lab from '@hapi/lab';

import { onEachDatabase } from '../helpers/experiments';
import { maxadmin, wilson } from '../helpers/server';


const lab = exports.lab = Lab.script();
const { test } = lab;
const { expect } = Code;

// MXAPIAPIKEY's `active` is worked out when a key is read — a key is there until it is revoked (deleted), and
// active until its expirationdate — and never stored: a stored true would be wrong once the key expires.

const keys = '/maximo/oslc/os/mxapiapikey';

onEachDatabase(lab, 'the active of an API key', (t) => {

    const create = async (payload: Record<string, unknown>) => {

        const res = await t.inject({ method: 'POST', url: keys, headers: { ...maxadmin, properties: 'apikeytokenid,active,expirationdate' }, payload });
        expect(res.statusCode, res.payload).to.equal(201);
        return res;
    };

    test('is true while the key is valid and false once it has expired, with nothing written', async () => {

        const never = await create({ userid: 'WILSON', expiration: -1 });
        const hour = await create({ userid: 'WILSON', expiration: 60 });
        expect(never.result.active).to.be.true();
        expect(hour.result.active).to.be.true();
        const path = new URL(hour.headers.location as string).pathname;
        const key = (await t.inject({ url: `${path}?oslc.select=apikey`, headers: maxadmin })).result.apikey;
        expect((await t.inject({ url: '/maximo/oslc/whoami', headers: { apikey: key } })).statusCode).to.equal(200);

        // Time passes: the key's expiry is an hour ago. Nothing else about the row changes.
        const knex = t.server.app.osprey.knex;
        await knex('apikeytoken').where({ apikeytokenid: hour.result.apikeytokenid }).update({ expirationdate: new Date(Date.now() - 3600_000).toISOString() });
        expect((await t.inject({ url: '/maximo/oslc/whoami', headers: { apikey: key } })).statusCode).to.equal(401);
        for (const url of [path, `${path}?oslc.select=*`, `${path}?oslc.select=active`]) {
            expect((await t.inject({ url, headers: maxadmin })).result.active, url).to.be.false();
        }

        const listed = await t.inject({ url: `${keys}?oslc.select=apikeytokenid,active&oslc.where=userid="WILSON"`, headers: maxadmin });
        const states = Object.fromEntries(listed.result.member.map((row: any) => [row.apikeytokenid, row.active]));
        expect(states).to.equal({ [never.result.apikeytokenid]: true, [hour.result.apikeytokenid]: false });
        // WILSON sees his own, computed the same way.
        const own = await t.inject({ url: `${keys}?oslc.select=active,expiration`, headers: wilson });
        expect(own.result.member.map((row: any) => row.active).sort()).to.equal([false, true]);

        // The database holds no such column: there is nothing to go stale.
        expect(await knex.schema.hasColumn('apikeytoken', 'active')).to.be.false();
        expect(await knex.schema.hasColumn('apikeytoken', 'expirationdate')).to.be.true();
    });

    test('cannot filter, sort or group, and the refusal says what can', async () => {

        for (const url of [`${keys}?oslc.where=active=1`, `${keys}?oslc.orderBy=-active`, `${keys}?distinct=active`, `${keys}?gbcols=active,count.*`, `${keys}?oslc.select=active&oslc.where=${encodeURIComponent('not active=0')}`]) {
            const res = await t.inject({ url, headers: maxadmin });
            expect(res.statusCode, url).to.equal(400);
            expect(res.result.Error.reasonCode, url).to.equal('BMXAA8744E');
            expect(res.result.Error.message, url).to.contain('APIKEYTOKEN.active is computed').and.to.contain('expirationdate');
        }

        // Its own value cannot be written either.
        const res = await t.inject({ method: 'POST', url: keys, headers: maxadmin, payload: { userid: 'WILSON', active: false } });
        expect(res.statusCode).to.equal(400);
        expect(res.result.Error.errorattrname).to.equal('active');
    });

    test('its schema says it is not stored', async () => {

        const schema = await t.inject({ url: '/maximo/oslc/jsonschemas/mxapiapikey?oslc.select=active,expirationdate', headers: maxadmin });
        expect(schema.result.properties.active).to.include({ type: 'boolean', persistent: false, readOnly: true });
    });
});
