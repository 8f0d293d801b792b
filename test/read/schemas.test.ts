import * as Code from '@hapi/code';
import * as Lab from '@hapi/lab';

import { onEachDatabase } from '../helpers/experiments';
import { wilson } from '../helpers/server';


const lab = exports.lab = Lab.script();
const { test } = lab;
const { expect } = Code;

// The JSON schema of a selection (IBM's guide, "JSON Schema"): GET {home}/jsonschemas/{os}?oslc.select=… keeps
// the part of the structure the select names, and addschema=1 on a collection inlines the schema of its members
// as selected in responseInfo.schema. Either describes the records key for key: every key of every member,
// at any depth, is a property of the schema at that place, of the type the schema says.

const home = '/maximo/oslc';
const wos = `${home}/os/mxapiwodetail`;
const wo1000 = `${wos}/_QkVERk9SRC8xMDAw`;

const typeOf = (value: unknown) => (value === null ? 'null' : Array.isArray(value) ? 'array' : Number.isInteger(value) ? 'integer' : typeof value);

// What in a rendered value the schema does not describe: keys it lacks, values of another type.
const misfits = (value: unknown, schema: any, at = '$'): string[] => {

    const type = typeOf(value);
    if (type === 'null') {
        return [];
    }

    if (schema.type === 'array') {
        return type === 'array' ? (value as unknown[]).flatMap((item, i) => misfits(item, schema.items, `${at}[${i}]`)) : [`${at} is ${type}, not an array`];
    }

    if (schema.type === 'object') {
        if (type !== 'object') {
            return [`${at} is ${type}, not an object`];
        }

        return Object.entries(value as Record<string, unknown>).flatMap(([key, inner]) => {

            return schema.properties?.[key] ? misfits(inner, schema.properties[key], `${at}.${key}`) : schema.properties ? [`${at}.${key} is not in the schema`] : [];
        });
    }

    return type === schema.type || (type === 'integer' && schema.type === 'number') ? [] : [`${at} is ${type}, not ${String(schema.type)}`];
};

// Every key some member has at the top.
const keysOf = (members: Record<string, unknown>[]) => [...new Set(members.flatMap((member) => Object.keys(member)))].sort();

onEachDatabase(lab, 'JSON schemas of a selection', (t) => {

    const get = async (url: string) => {

        const res = await t.inject({ url, headers: wilson });
        expect(res.statusCode, `${url}: ${res.payload}`).to.equal(200);
        return res.result;
    };

    test('jsonschemas?oslc.select= keeps what the select names, as a record selected so renders it', async () => {

        const select = 'wonum,status--state,woactivity{taskid,status},asset.description,rel.ownerperson{displayname},woactivity._dbcount--tasks,wplabor.regularhrs._dbsum,allowedactions';
        const schema = await get(`${home}/jsonschemas/mxapiwodetail?oslc.select=${encodeURIComponent(select)}`);
        expect(schema).to.include({ $schema: 'http://json-schema.org/draft-04/schema#', resource: 'MXAPIWODETAIL', objectName: 'WORKORDER', type: 'object', pk: ['siteid', 'wonum'], uniqueid: 'workorderid' });
        expect(String(schema.href)).to.endWith('/maximo/oslc/jsonschemas/mxapiwodetail');
        expect(Object.keys(schema.properties)).to.equal(['href', '_rowstamp', 'wonum', 'state', 'state_description', 'allowedactions', 'woactivity', 'asset', 'ownerperson', 'tasks', 'wplabor']);
        expect(schema.properties.wonum).to.include({ type: 'string', subType: 'UPPER', maxLength: 25 });
        expect(schema.properties.state.enum).to.include(['WAPPR', 'APPR']);
        expect(schema.properties.woactivity.type).to.equal('array');
        expect(Object.keys(schema.properties.woactivity.items.properties)).to.equal(['href', '_rowstamp', 'localref', 'taskid', 'status', 'status_description']);
        expect(schema.properties.woactivity.items).to.include({ objectName: 'WOACTIVITY', required: ['taskid'], pk: ['taskid'] });
        expect(schema.properties.asset.type).to.equal('object');
        expect(Object.keys(schema.properties.asset.properties)).to.equal(['href', '_rowstamp', 'description']);
        expect(schema.properties.ownerperson.type).to.equal('object');
        expect(Object.keys(schema.properties.ownerperson.properties)).to.equal(['href', '_rowstamp', 'displayname']);
        expect(schema.properties.tasks).to.equal({ type: 'integer' });
        expect(schema.properties.wplabor).to.equal({ type: 'object', properties: { regularhrs: { type: 'object', properties: { _dbsum: { type: 'number' } } } } });
        expect(schema.required).to.equal([]);
        expect((await get(`${home}/jsonschemas/mxapiwodetail?oslc.select=siteid,description`)).required).to.equal(['siteid']);

        // A star keeps every attribute (and the links to the child collections); no select keeps the whole schema.
        const star = await get(`${home}/jsonschemas/mxapiwodetail?oslc.select=*`);
        expect(star.properties.description).to.exist();
        expect(star.properties.woactivity_collectionref).to.equal({ type: 'string' });
        expect(star.properties.woactivity).to.not.exist();
        const whole = await get(`${home}/jsonschemas/mxapiwodetail`);
        expect(whole.properties.woactivity.items.pk).to.equal(['taskid']);
        expect(whole.properties.memo).to.exist();

        const bad = await t.inject({ url: `${home}/jsonschemas/mxapiwodetail?oslc.select=wonum,nothing`, headers: wilson });
        expect(bad.statusCode).to.equal(400);
        expect(bad.result.Error.reasonCode).to.equal('BMXAA8744E');
        expect(bad.result.Error.message).to.contain('nothing');
    });

    test('addschema=1 inlines the schema of the members in responseInfo, which describes every member key for key', async () => {

        const cases = [
            `${wos}?oslc.select=wonum,status,description,reportdate,wopriority,estdur,woactivity{taskid,status,estdur},asset.description,asset.status,wplabor.regularhrs._dbsum,woactivity._dbcount--tasks&oslc.pageSize=30&_dropnulls=0`,
            `${wos}?oslc.select=*&oslc.pageSize=10&internalvalues=1&ignorers=1`,
            `${wos}?oslc.select=*&oslc.pageSize=10&ignorecollectionref=1&relativeuri=1`,
            `${wos}?oslc.select=wonum,allowedactions,rel.ownerperson{*}&oslc.pageSize=20`,
            `${wos}?oslc.pageSize=5`,
            `${home}/os/mxapiasset?oslc.select=assetnum,status,assetmeter{*},location.description&internalvalues=1&oslc.where=status="BROKEN"`,
            `${wo1000}/woactivity?oslc.pageSize=5`,
            `${wo1000}/woactivity?oslc.select=taskid,status&internalvalues=1`,
            `${wo1000}/getlist~assetnum?oslc.select=assetnum,description,status&oslc.pageSize=10`,
            `${wo1000}/getlist~status?oslc.pageSize=20`,
            `${wo1000}/getlist~status?oslc.select=value,valueid--position`
        ];
        for (const url of cases) {
            const page = await get(`${url}&addschema=1`);
            const schema = page.responseInfo.schema;
            expect(schema, url).to.exist();
            expect(page.member.length > 0, url).to.be.true();
            expect(misfits({ member: page.member }, { type: 'object', properties: { member: { type: 'array', items: schema } } }), url).to.equal([]);
        }

        // The first case names nothing its members never carry: each property is some member's key.
        const page = await get(`${cases[0]}&addschema=1`);
        expect(Object.keys(page.responseInfo.schema.properties).sort()).to.equal(keysOf(page.member));
        expect(page.responseInfo.schema).to.include({ resource: 'MXAPIWODETAIL', objectName: 'WORKORDER' });
        expect(String(page.responseInfo.schema.href)).to.endWith('/jsonschemas/mxapiwodetail');

        // A child collection's is its child object's; domain values are no records (no href, no rowstamp).
        const tasks = await get(`${wo1000}/woactivity?oslc.select=taskid&addschema=1`);
        expect(tasks.responseInfo.schema).to.include({ resource: 'MXAPIWODETAIL', objectName: 'WOACTIVITY', pk: ['taskid'] });
        expect(Object.keys(tasks.responseInfo.schema.properties)).to.equal(['href', '_rowstamp', 'localref', 'taskid']);
        const statuses = await get(`${wo1000}/getlist~status?addschema=1`);
        expect(Object.keys(statuses.responseInfo.schema.properties)).to.equal(['value', 'description', 'maxvalue']);
        expect(statuses.responseInfo.schema.href).to.not.exist();
        const bare = await get(`${wos}?oslc.pageSize=2&addschema=1`);
        expect(bare.responseInfo.schema.properties).to.equal({ href: { type: 'string' } });
        // What the parameters leave out of the members, the schema leaves out too.
        const lean = await get(`${wos}?oslc.select=*&oslc.pageSize=1&addschema=1&ignorers=1&ignorecollectionref=1`);
        expect(lean.responseInfo.schema.properties._rowstamp).to.not.exist();
        expect(lean.responseInfo.schema.properties.woactivity_collectionref).to.not.exist();
        const internal = await get(`${wos}?oslc.select=status,worktype&oslc.pageSize=1&addschema=1&internalvalues=1`);
        expect(Object.keys(internal.responseInfo.schema.properties)).to.equal(['href', '_rowstamp', 'status', 'status_description', 'status_maxvalue', 'worktype', 'worktype_description']);
    });

    test('the schema comes with the page that asks for it: the page links leave addschema out, as in Maximo', async () => {

        const first = await get(`${wos}?oslc.select=wonum&oslc.pageSize=2&addschema=1&collectioncount=1`);
        expect(first.responseInfo.href).to.contain('addschema=1');
        const next = new URL(first.responseInfo.nextPage.href);
        expect(next.searchParams.has('addschema')).to.be.false();
        const second = await get(`${next.pathname}${next.search}`);
        expect(second.responseInfo.schema).to.not.exist();
        expect(new URL(second.responseInfo.previousPage.href).searchParams.has('addschema')).to.be.false();
        expect((await get(`${next.pathname}${next.search}&addschema=1`)).responseInfo.schema.properties.wonum).to.exist();

        // A stable page's cursor holds with or without the schema.
        const stable = await get(`${wos}?oslc.select=wonum&oslc.pageSize=2&stablepaging=1&addschema=1`);
        const after2 = new URL(stable.responseInfo.nextPage.href);
        expect((await get(`${after2.pathname}${after2.search}&addschema=1`)).member).to.have.length(2);
        expect((await get(`${after2.pathname}${after2.search}`)).member).to.have.length(2);
    });

    test('is refused where the answer has no responseInfo, or with a value that is no flag', async () => {

        for (const url of [`${wo1000}?addschema=1`, `${wo1000}/woactivity/_MTA-?addschema=1`, `${wos}?distinct=status&addschema=1`, `${wos}?oslc.pageSize=1&addschema=yes`]) {
            const res = await t.inject({ url, headers: wilson });
            expect(res.statusCode, url).to.equal(400);
            expect(res.result.Error.message, url).to.contain('addschema');
        }

        expect((await get(`${wos}?oslc.pageSize=1&addschema=0`)).responseInfo.schema).to.not.exist();
    });
});
