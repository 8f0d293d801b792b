import * as Code from '@hapi/code';
import * as Lab from '@hapi/lab';

import { onEachDatabase } from './helpers/experiments';
import { maxadmin, wilson } from './helpers/server';


const lab = exports.lab = Lab.script();
const { test } = lab;
const { expect } = Code;

const permission = '/maximo/api/permission';

// {home}/permission/… from the structures' `app` and `access` (plugins/info/permissions.ts).
onEachDatabase(lab, 'permissions', (t) => {

    const get = async (url: string, headers = wilson) => (await t.inject({ url, headers })).result;

    test('the applications the caller may use, and their signature options by the caller\'s rights', async () => {

        expect(await get(`${permission}/listallowedapps`)).to.equal(['APIKEY', 'ASSET', 'INBOX', 'LOCATION', 'PERSON', 'USER', 'WOTRACK']);
        expect(await get(`${permission}/allowedappoptions?app=location`)).to.equal({ LOCATION: ['READ'] });
        expect(await get(`${permission}/allowedappoptions?app=WOTRACK`)).to.equal({ WOTRACK: ['READ', 'INSERT', 'SAVE', 'DELETE', 'changeStatus'] });
        expect((await get(`${permission}/allowedappoptions`, maxadmin)).LOCATION).to.equal(['READ', 'INSERT', 'SAVE', 'DELETE']);
        const unknown = await t.inject({ url: `${permission}/allowedappoptions?app=NOAPP`, headers: wilson });
        expect(unknown.statusCode).to.equal(404);
        expect(unknown.result.Error.message).to.contain('NOAPP');
    });

    test('checkosauthorized answers for the structure it names; naming none is a 400 saying how', async () => {

        expect(await get(`${permission}/checkosauthorized/mxapiwodetail`)).to.equal(true);
        expect((await t.inject({ url: `${permission}/checkosauthorized/nothere`, headers: wilson })).statusCode).to.equal(404);
        const unnamed = await t.inject({ url: `${permission}/checkosauthorized`, headers: wilson });
        expect(unnamed.statusCode).to.equal(400);
        expect(unnamed.result.Error.message).to.contain('permission/checkosauthorized/{os}');
        expect((await t.inject({ url: `${permission}/listallowedapps` })).statusCode).to.equal(401);
    });

    test('the app parameter belongs to allowedappoptions; the permission routes refuse what they do not carry out', async () => {

        const elsewhere = await t.inject({ url: `${permission}/listallowedapps?app=WOTRACK`, headers: wilson });
        expect(elsewhere.statusCode).to.equal(400);
        expect(elsewhere.result.Error.message).to.contain('app');
        const relative = await t.inject({ url: `${permission}/listallowedapps?relativeuri=1`, headers: wilson });
        expect(relative.statusCode).to.equal(400);
        expect(relative.result.Error.message).to.contain('this answer has no hrefs');
    });
});
