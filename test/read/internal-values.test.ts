import * as Code from '@hapi/code';
import * as Lab from '@hapi/lab';

import { onEachDatabase } from '../helpers/experiments';
import { maxadmin, wilson } from '../helpers/server';
import { snapshot } from '../helpers/tables';


const lab = exports.lab = Lab.script();
const { test } = lab;
const { expect } = Code;

// internalvalues=1 (IBM's guide, "Domain internal values"; the npm client's internalValues()): beside each
// attribute of a SYNONYM domain, its internal value as {attr}_maxvalue. In the demo ASSETSTATUS's BROKEN stands
// for NOT READY; every other synonym is its own internal value. Other domains (WORKTYPE) have none.

const home = '/maximo/oslc/os';
const wo1000 = `${home}/mxapiwodetail/_QkVERk9SRC8xMDAw`;

onEachDatabase(lab, 'internalvalues=1', (t) => {

    const get = async (url: string) => {

        const res = await t.inject({ url, headers: wilson });
        expect(res.statusCode, url).to.equal(200);
        return res.result;
    };

    test('each synonym attribute carries its internal value; without the parameter none does', async () => {

        const broken = await get(`${home}/mxapiasset?oslc.select=assetnum,status&oslc.where=status="BROKEN"&oslc.pageSize=5&internalvalues=1`);
        expect(broken.member.length > 0).to.be.true();
        for (const asset of broken.member) {
            expect(asset).to.include({ status: 'BROKEN', status_description: 'Broken', status_maxvalue: 'NOT READY' });
        }

        const operating = await get(`${home}/mxapiasset?oslc.select=status&oslc.where=status="OPERATING"&oslc.pageSize=1&internalvalues=true`);
        expect(operating.member[0]).to.include({ status: 'OPERATING', status_maxvalue: 'OPERATING' });

        const plain = await get(`${home}/mxapiasset?oslc.select=assetnum,status&oslc.where=status="BROKEN"&oslc.pageSize=5`);
        expect(plain.member.map((asset: any) => Object.keys(asset).filter((key) => key.endsWith('_maxvalue')))).to.equal(plain.member.map(() => []));
        expect((await get(`${home}/mxapiasset?oslc.select=status&oslc.pageSize=1&internalvalues=0`)).member[0].status_maxvalue).to.not.exist();
    });

    test('children, related records, aliases and child collections carry them too; other domains do not', async () => {

        const wo = await get(`${wo1000}?oslc.select=status--state,worktype,woactivity{status},asset.status&internalvalues=1`);
        expect(wo.state).to.equal('INPRG');
        expect(wo).to.include({ state_maxvalue: 'INPRG', state_description: 'In Progress' });
        expect(wo.status).to.not.exist();
        expect(wo.worktype).to.exist();
        expect(wo.worktype_description).to.exist();
        expect(wo.worktype_maxvalue).to.not.exist();
        expect(wo.woactivity.length > 0).to.be.true();
        expect(wo.woactivity.every((task: any) => task.status_maxvalue === task.status)).to.be.true();
        expect(wo.asset.status_maxvalue).to.equal(wo.asset.status === 'BROKEN' ? 'NOT READY' : wo.asset.status);
        const tasks = await get(`${wo1000}/woactivity?oslc.select=status&internalvalues=1`);
        expect(tasks.member.every((task: any) => task.status_maxvalue === task.status)).to.be.true();
        const task = await get(`${wo1000}/woactivity/_MTA-?internalvalues=1`);
        expect(task.status_maxvalue).to.equal(task.status);
    });

    test('a write answers them; a body may send back the internal value its value stands for, and no other', async () => {

        const asset = (await get(`${home}/mxapiasset?oslc.select=*&oslc.where=status="OPERATING"&oslc.pageSize=1&internalvalues=1`)).member[0];
        const url = new URL(asset.href).pathname;
        const broken = await t.inject({ method: 'PATCH', url: `${url}?internalvalues=1`, headers: { ...maxadmin, properties: 'status' }, payload: { status: 'BROKEN', status_maxvalue: 'NOT READY' } });
        expect(broken.statusCode).to.equal(200);
        expect(broken.result).to.include({ status: 'BROKEN', status_maxvalue: 'NOT READY' });

        // The record as read with internalvalues=1, sent back whole: accepted.
        const read = await get(`${url}?oslc.select=*&internalvalues=1`);
        expect(read.status_maxvalue).to.equal('NOT READY');
        const echo = await t.inject({ method: 'PATCH', url, headers: maxadmin, payload: { ...read, description: 'Echoed with internal values' } });
        expect(echo.statusCode).to.equal(204);

        // An internal value that is not the value's, or one without a value to derive it from, is refused.
        const earlier = await snapshot(t);
        const wrong = await t.inject({ method: 'PATCH', url, headers: maxadmin, payload: { status: 'OPERATING', status_maxvalue: 'NOT READY' } });
        expect(wrong.statusCode).to.equal(400);
        expect(wrong.result.Error).to.include({ errorattrname: 'status_maxvalue' });
        expect(wrong.result.Error.message).to.contain('(OPERATING)');
        const alone = await t.inject({ method: 'PATCH', url, headers: maxadmin, payload: { status_maxvalue: 'OPERATING' } });
        expect(alone.statusCode).to.equal(400);
        expect(alone.result.Error.message).to.contain('(NOT READY)');
        const created = await t.inject({ method: 'POST', url: `${home}/mxapiasset`, headers: maxadmin, payload: { assetnum: 'IV1', siteid: 'BEDFORD', status_maxvalue: 'OPERATING' } });
        expect(created.statusCode).to.equal(400);
        expect(created.result.Error.errorattrname).to.equal('status_maxvalue');
        // A domain that is no synonym has no internal values to send.
        const worktype = await t.inject({ method: 'PATCH', url: wo1000, headers: wilson, payload: { worktype_maxvalue: 'CM' } });
        expect(worktype.statusCode).to.equal(400);
        expect(worktype.result.Error.reasonCode).to.equal('BMXAA4203E');
        expect(await snapshot(t)).to.equal(earlier);

        // On a create, the value left out is the default the record will have (NOT READY).
        const defaulted = await t.inject({ method: 'POST', url: `${home}/mxapiasset?internalvalues=1`, headers: { ...maxadmin, properties: 'status' }, payload: { assetnum: 'IV2', siteid: 'BEDFORD', status_maxvalue: 'NOT READY' } });
        expect(defaulted.statusCode).to.equal(201);
        expect(defaulted.result).to.include({ status: 'NOT READY', status_maxvalue: 'NOT READY' });
    });

    test('a stored value outside the domain has neither a description nor an internal value', async () => {

        const knex = t.server.app.osprey.knex;
        const [asset] = await knex('asset').where({ status: 'OPERATING' }).orderBy('assetuid').limit(1);
        await knex('asset').where({ assetuid: asset.assetuid }).update({ status: 'LEGACY' });
        const read = await get(`${home}/mxapiasset/${String(asset.assetuid)}?oslc.select=status&internalvalues=1`);
        expect(read.status).to.equal('LEGACY');
        expect(read.status_description).to.not.exist();
        expect(read.status_maxvalue).to.not.exist();
    });

    test('a value that is no flag is refused, and so is the parameter where there is no record to add to', async () => {

        for (const url of [`${wo1000}?internalvalues=2`, `${home}/mxapiwodetail?distinct=status&internalvalues=1`, `${home}/mxapiwodetail?gbcols=status,count.*&internalvalues=1`]) {
            const res = await t.inject({ url, headers: wilson });
            expect(res.statusCode, url).to.equal(400);
            expect(res.result.Error.message, url).to.contain('internalvalues');
        }
    });
});
