import * as Code from '@hapi/code';
import * as Lab from '@hapi/lab';

import { onEachDatabase } from '../helpers/experiments';
import { maxadmin, startTestServer, wilson } from '../helpers/server';
import { tableCount } from '../helpers/tables';


const lab = exports.lab = Lab.script();
const { test } = lab;
const { expect } = Code;

const keys = '/maximo/oslc/os/mxapiapikey';

onEachDatabase(lab, 'API keys', (t, database) => {

    const post = (url: string, headers: Record<string, string>, payload: unknown = {}) => t.inject({ method: 'POST', url, headers, payload: payload as object });
    const whoami = (headers: Record<string, string>, url = '/maximo/api/whoami') => t.inject({ url, headers });
    const table = () => t.server.app.osprey.knex('apikeytoken');

    test('own key: get returns the same key until create replaces it and revoke ends it', async () => {

        const first = await post('/maximo/api/apitoken/get', wilson);
        expect(first.statusCode, first.payload).to.equal(200);
        const key = first.result.apikey as string;
        expect(key).to.match(/^[A-Za-z0-9_-]{43}$/);
        expect((await post('/maximo/oslc/apitoken/get', wilson)).result.apikey).to.equal(key);

        // The key works on every route of both homes, as a header or as a query parameter.
        expect((await whoami({ apikey: key })).result.userid).to.equal('WILSON');
        expect((await t.inject({ url: `/maximo/oslc/os/mxapiwodetail?count=1&apikey=${key}` })).result.totalCount).to.equal(await tableCount(t, 'workorder'));
        const page = await t.inject({ url: `/maximo/oslc/os/mxapiwodetail?oslc.pageSize=2&apikey=${key}` });
        expect(page.result.responseInfo.nextPage.href).to.not.contain('apikey');
        expect(page.result.responseInfo.href).to.not.contain(key);

        // A key cannot manage keys: a leaked key must not mint new ones.
        const byKey = await post('/maximo/api/apitoken/get', { apikey: key });
        expect(byKey.statusCode).to.equal(403);
        expect(byKey.result.Error.message).to.contain('credential login');

        const replaced = await post('/maximo/api/apitoken/create', wilson, { expiration: 5 });
        expect(replaced.statusCode, replaced.payload).to.equal(200);
        expect(replaced.result.apikey).to.not.equal(key);
        expect(replaced.result.expiration).to.equal(5);
        const expires = new Date(replaced.result.expirationdate).getTime() - Date.now();
        expect(expires > 4 * 60_000 && expires <= 5 * 60_000).to.be.true();
        expect((await whoami({ apikey: key })).statusCode).to.equal(401);
        expect((await whoami({ apikey: replaced.result.apikey })).statusCode).to.equal(200);
        expect((await post('/maximo/api/apitoken/get', wilson)).result.apikey).to.equal(replaced.result.apikey);

        expect((await post('/maximo/api/apitoken/create', wilson, { expiration: 0 })).statusCode).to.equal(400);
        // A misspelt or prefixed expiration made a key that never expires, replacing the old one (a hostile probe).
        for (const body of [{ expiraton: 60 }, { 'spi:expiration': 60 }, { expiration: 60, userid: 'MAXADMIN' }]) {
            const misspelt = await post('/maximo/api/apitoken/create', wilson, body);
            expect(misspelt.statusCode, misspelt.payload).to.equal(400);
            expect(misspelt.result.Error.message).to.contain(Object.keys(body).find((name) => name !== 'expiration'));
        }

        expect((await whoami({ apikey: replaced.result.apikey })).statusCode).to.equal(200);
        // get and revoke take no fields: {"userid": "MAXADMIN"} would act on the caller's own keys unsaid.
        for (const route of ['get', 'revoke']) {
            const named = await post(`/maximo/api/apitoken/${route}`, wilson, { userid: 'MAXADMIN' });
            expect(named.statusCode, route).to.equal(400);
            expect(named.result.Error.message).to.contain('"userid" is not carried out');
        }

        expect((await whoami({ apikey: replaced.result.apikey })).statusCode).to.equal(200);
        expect((await post('/maximo/api/apitoken/revoke', wilson)).statusCode).to.equal(204);
        const revoked = await whoami({ apikey: replaced.result.apikey });
        expect(revoked.statusCode).to.equal(401);
        expect(revoked.result.Error.reasonCode).to.equal('BMXAA7901E');
    });

    test('gets and creates at once leave one live key, and every key answered is live', async () => {

        const smith = { maxauth: Buffer.from('SMITH:smith').toString('base64') };
        for (const route of ['get', 'create']) {
            expect((await post('/maximo/api/apitoken/revoke', smith)).statusCode).to.equal(204);
            const answers = await Promise.all(Array.from({ length: 6 }, () => post(`/maximo/api/apitoken/${route}`, smith, route === 'create' ? { expiration: 60 } : {})));
            expect(answers.map((answer) => answer.statusCode)).to.equal(Array(6).fill(200));
            const distinct = new Set(answers.map((answer) => answer.result.apikey as string));
            // Gets at once answer one key; creates at once each replace the one before: the last one stays.
            expect(distinct.size, route).to.equal(route === 'get' ? 1 : 6);
            const live = await Promise.all([...distinct].map(async (key) => (await whoami({ apikey: key })).statusCode === 200));
            expect(live.filter(Boolean).length, route).to.equal(1);
            expect(Number((await table().where({ userid: 'SMITH' }).count({ n: '*' }))[0]!.n), route).to.equal(1);
        }
    });

    test('keys at rest are sealed and found by digest; expired keys are refused; lastused is kept', async () => {

        const { apikey } = (await post('/maximo/api/apitoken/get', maxadmin)).result;
        const row = await table().where({ userid: 'MAXADMIN' }).first();
        expect(row.apikey).to.not.contain(apikey);
        expect(row.apikeyhash).to.match(/^[0-9a-f]{64}$/);
        expect(row.lastused).to.be.null();
        expect((await whoami({ apikey })).statusCode).to.equal(200);
        for (let i = 0; i < 50 && !(await table().where({ userid: 'MAXADMIN' }).first()).lastused; ++i) {
            await new Promise((resolve) => setTimeout(resolve, 10));
        }

        expect((await table().where({ userid: 'MAXADMIN' }).first()).lastused).to.not.be.null();

        await table().where({ userid: 'MAXADMIN' }).update({ expirationdate: new Date(Date.now() - 1000).toISOString() });
        expect((await whoami({ apikey })).statusCode).to.equal(401);
        // An expired key is not handed out again: get makes a new one.
        const fresh = (await post('/maximo/api/apitoken/get', maxadmin)).result.apikey;
        expect(fresh).to.not.equal(apikey);
        expect((await whoami({ apikey: `${fresh}x` })).statusCode).to.equal(401);
        expect((await whoami({ apikey: 'x'.repeat(500) })).statusCode).to.equal(401);
    });

    test('MXAPIAPIKEY: administrators create keys for users; users only reach their own', async () => {

        const made = await post(keys, { ...maxadmin, properties: 'apikey,userid,expiration,expirationdate' }, { userid: 'wilson', expiration: 60 });
        expect(made.statusCode, made.payload).to.equal(201);
        expect(made.headers.location).to.contain(`${keys}/`);
        expect(made.result).to.include({ userid: 'WILSON', expiration: 60 });
        expect((await whoami({ apikey: made.result.apikey })).result.userid).to.equal('WILSON');
        const bare = await post(keys, maxadmin, { userid: 'WILSON' });
        expect(bare.statusCode).to.equal(201);
        expect(bare.payload).to.equal('');

        const own = await post(keys, { ...wilson, properties: 'apikey,userid' }, {});
        expect(own.statusCode).to.equal(201);
        expect(own.result.userid).to.equal('WILSON');
        expect(own.result.apikey).to.have.length(43);
        // A key is made for an active user only (deactivation deletes a user's keys; one made then would outlive it).
        await t.server.app.osprey.knex('osprey_user').where({ userid: 'SMITH' }).update({ status: 'INACTIVE' });
        const inactive = await post(keys, maxadmin, { userid: 'SMITH' });
        expect(inactive.statusCode).to.equal(400);
        expect(inactive.result.Error.message).to.contain('not an active user');
        await t.server.app.osprey.knex('osprey_user').where({ userid: 'SMITH' }).update({ status: 'ACTIVE' });
        const forOther = await post(keys, wilson, { userid: 'MAXADMIN' });
        expect(forOther.statusCode).to.equal(403);
        expect(forOther.result.Error.message).to.contain('MAXADMIN');

        const admins = (await t.inject({ url: `${keys}?oslc.where=${encodeURIComponent('userid="MAXADMIN"')}&oslc.select=*`, headers: maxadmin })).result.member;
        expect(admins.length > 0).to.be.true();
        const adminId = new URL(admins[0].href).pathname.split('/').pop();
        const listed = (await t.inject({ url: `${keys}?oslc.select=userid,apikey`, headers: wilson })).result.member;
        expect(listed.length).to.equal(await table().where({ userid: 'WILSON' }).count({ n: '*' }).then((rows: any[]) => Number(rows[0].n)));
        expect(listed.every((key: any) => key.userid === 'WILSON' && key.apikey.length === 43)).to.be.true();
        expect((await t.inject({ url: `${keys}?count=1&oslc.where=${encodeURIComponent('userid="MAXADMIN"')}`, headers: wilson })).result.totalCount).to.equal(0);
        expect((await t.inject({ url: `${keys}/${adminId}`, headers: wilson })).statusCode).to.equal(404);
        expect((await t.inject({ method: 'DELETE', url: `${keys}/${adminId}`, headers: wilson })).statusCode).to.equal(404);
        // Administrators see every key, but a key's value only when it is theirs (or they ask for it by name).
        const all = (await t.inject({ url: `${keys}?oslc.select=*`, headers: maxadmin })).result.member;
        expect(all.some((key: any) => key.userid === 'WILSON')).to.be.true();
        expect(all.every((key: any) => key.apikey === undefined && key.apikeyhash === undefined)).to.be.true();
        // The digest a key is found by is never rendered, so naming it is refused, not answered without it.
        const wilsonKeys = () => table().where({ userid: 'WILSON' }).count({ n: '*' }).then((rows: any[]) => Number(rows[0].n));
        const keysBefore = await wilsonKeys();
        const digestMade = await post(keys, { ...wilson, properties: 'apikeyhash' }, {});
        expect(digestMade.statusCode).to.equal(400);
        expect(await wilsonKeys()).to.equal(keysBefore);
        expect(digestMade.result.Error.message).to.contain('APIKEYHASH is secret');
        const digestRead = await t.inject({ url: `${keys}?oslc.select=userid,apikeyhash`, headers: wilson });
        expect(digestRead.statusCode).to.equal(400);
        expect(digestRead.result.Error.message).to.contain('APIKEYHASH is secret');

        // Revoking by id: the key stops working at once.
        const wilsonId = new URL(made.headers.location as string).pathname.split('/').pop();
        expect((await t.inject({ method: 'DELETE', url: `${keys}/${wilsonId}`, headers: maxadmin })).statusCode).to.equal(204);
        expect((await whoami({ apikey: made.result.apikey })).statusCode).to.equal(401);
        // Keys are never edited: users lack the right, and administrators are told to make a new key.
        const ownUrl = `${keys}/${new URL(own.headers.location as string).pathname.split('/').pop()}`;
        expect((await t.inject({ method: 'PATCH', url: ownUrl, headers: wilson, payload: { expiration: 5 } })).statusCode).to.equal(403);
        const change = await t.inject({ method: 'PATCH', url: ownUrl, headers: maxadmin, payload: { expiration: 5 } });
        expect(change.statusCode).to.equal(400);
        expect(change.result.Error.message).to.contain('create a new key');
    });

    test('key queries as the npm client sends them; secrets can be neither filtered nor sorted', async () => {

        await post(keys, maxadmin, { userid: 'WILSON', expiration: 30 });
        await post(keys, maxadmin, { userid: 'WILSON', expiration: 600 });
        const count = async (where: string) => (await t.inject({ url: `${keys}?count=1&oslc.where=${encodeURIComponent(where)}`, headers: maxadmin })).result.totalCount as number;
        const rows = (await table()) as any[];
        expect(await count('userid="WILSON"')).to.equal(rows.filter((row) => row.userid === 'WILSON').length);
        expect(await count('expiration=-1')).to.equal(rows.filter((row) => row.expiration === -1).length);
        expect(await count('expiration!=-1 and expiration<=60')).to.equal(rows.filter((row) => row.expiration !== -1 && row.expiration <= 60).length);
        const soon = new Date(Date.now() + 2 * 3600_000).toISOString();
        expect(await count(`expirationdate<"${soon}"`)).to.equal(rows.filter((row) => row.expirationdate !== null && new Date(row.expirationdate) < new Date(soon)).length);
        expect((await t.inject({ url: `${keys}?savedQuery=NEVEREXPIRE&count=1`, headers: maxadmin })).result.totalCount).to.equal(await count('expiration=-1'));

        for (const query of ['oslc.where=apikey="%25a%25"', 'oslc.where=apikeyhash="*"', 'oslc.orderBy=apikey', 'distinct=apikey', 'gbcols=apikey', 'oslc.searchTerms=a&searchAttributes=apikey', 'gbcols=userid,count.*&gbfilter=apikey="x"']) {
            const res = await t.inject({ url: `${keys}?${query}`, headers: maxadmin });
            expect(res.statusCode, query).to.equal(400);
        }
    });

    test('supplied key values need OSPREY_EXTERNAL_APIKEYS and 32 characters', async () => {

        const refused = await post(keys, maxadmin, { userid: 'WILSON', apikey: 'k'.repeat(40) });
        expect(refused.statusCode).to.equal(400);
        expect(refused.result.Error.errorattrname).to.equal('apikey');

        const external = await startTestServer(database, { externalApiKeys: true });
        try {
            const short = await external.inject({ method: 'POST', url: keys, headers: maxadmin, payload: { userid: 'WILSON', apikey: 'k'.repeat(31) } });
            expect(short.statusCode).to.equal(400);
            const value = `external-${'k'.repeat(32)}`;
            const made = await external.inject({ method: 'POST', url: keys, headers: maxadmin, payload: { userid: 'WILSON', apikey: value } });
            expect(made.statusCode, made.payload).to.equal(201);
            expect((await external.inject({ url: '/maximo/api/whoami', headers: { apikey: value } })).result.userid).to.equal('WILSON');
            const again = await external.inject({ method: 'POST', url: keys, headers: maxadmin, payload: { userid: 'MAXADMIN', apikey: value } });
            expect(again.statusCode).to.equal(400);
            for (const payload of [{ userid: 'NOBODY' }, { expiration: 'soon' }, { status: 'X' }]) {
                expect((await external.inject({ method: 'POST', url: keys, headers: maxadmin, payload })).statusCode, JSON.stringify(payload)).to.equal(400);
            }
        }
        finally {
            await external.stop();
        }
    });
});
