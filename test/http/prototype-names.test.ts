import * as Code from '@hapi/code';
import * as Lab from '@hapi/lab';

import { loadRegistry } from '../../src/load-registry';
import { withoutPrototypes } from '../../src/structures/null-prototype';
import { onEachDatabase } from '../helpers/experiments';
import { demoStructures, maxadmin, wilson } from '../helpers/server';


const lab = exports.lab = Lab.script();
const { experiment, test } = lab;
const { expect } = Code;

// Issue 34: a name a client sends is looked up in a Map or an object without a prototype, never in a plain object
// where "constructor", "__proto__" or "toString" would find one of Object.prototype's functions (savedQuery=
// constructor with an sqp: parameter answered 500). Every name Object.prototype holds, and "prototype", is sent
// wherever a request carries a name, and each is the unknown name it is: a 4xx that says so.

const prototypeNames = [...Object.getOwnPropertyNames(Object.prototype), 'prototype'];

const wos = '/maximo/oslc/os/mxapiwodetail';

// Every mapping of a value, at any depth: the objects a name could be looked up in.
const mappings = function* (value: unknown, path: string): Generator<[string, object]> {

    if (Array.isArray(value)) {
        for (const [index, item] of value.entries()) {
            yield* mappings(item, `${path}[${index}]`);
        }
    }
    else if (value !== null && typeof value === 'object') {
        yield [path, value];
        for (const [key, entry] of Object.entries(value)) {
            yield* mappings(entry, `${path}.${key}`);
        }
    }
};

experiment('the definitions of structures', () => {

    test('hold no mapping with a prototype: saved queries, relations, lookups, statuses, attributes, children, params, joins, domains', () => {

        const registry = loadRegistry(demoStructures);
        let counted = 0;
        for (const structure of registry.list()) {
            for (const [path, mapping] of mappings(structure.def, structure.name)) {
                expect(Object.getPrototypeOf(mapping), path).to.be.null();
                ++counted;
            }

            for (const name of prototypeNames) {
                expect(structure.def.savedQueries[name], `${structure.name} savedQueries.${name}`).to.be.undefined();
                expect(structure.def.relations[name], `${structure.name} relations.${name}`).to.be.undefined();
                expect(structure.def.lookups[name], `${structure.name} lookups.${name}`).to.be.undefined();
                expect(structure.def.attributes[name], `${structure.name} attributes.${name}`).to.be.undefined();
            }
        }

        for (const [name, domain] of registry.domains()) {
            for (const [path, mapping] of mappings(domain, name)) {
                expect(Object.getPrototypeOf(mapping), path).to.be.null();
                ++counted;
            }
        }

        // The demo's structures have hundreds (every attribute is one).
        expect(counted).to.be.above(200);
    });

    test('withoutPrototypes turns mappings at every depth and keeps arrays, scalars and other objects', () => {

        const when = new Date(0);
        const turned = withoutPrototypes({ a: [{ b: 1 }, 'x', null], when, c: { d: { e: true } } });
        expect(Object.getPrototypeOf(turned)).to.be.null();
        expect(Array.isArray(turned.a)).to.be.true();
        expect(Object.getPrototypeOf(turned.a[0])).to.be.null();
        expect(Object.getPrototypeOf(turned.c.d)).to.be.null();
        expect(turned.when).to.shallow.equal(when);
        expect(JSON.parse(JSON.stringify(turned))).to.equal({ a: [{ b: 1 }, 'x', null], when: when.toISOString(), c: { d: { e: true } } });
    });
});

onEachDatabase(lab, 'names that Object.prototype holds, sent by a client', (t) => {

    // A work order of WILSON's with a task: the record, child and lookup routes need one.
    const record = async () => {

        const res = await t.inject({ url: `${wos}?oslc.select=wonum,woactivity{taskid}&oslc.pageSize=1&oslc.where=${encodeURIComponent('woactivity.taskid>0')}`, headers: maxadmin });
        const first = res.result.member[0];
        return { id: first.href.split('/').pop() as string, taskId: first.woactivity[0].href.split('/').pop() as string };
    };

    test('savedQuery and sqp: answer 400: the name is no saved query, or no parameter of one', async () => {

        for (const name of prototypeNames) {
            const e = encodeURIComponent(name);
            for (const url of [`${wos}?savedQuery=${e}&sqp:asset=1`, `${wos}?savedquery=${e}&sqp:${e}=1`, `${wos}?savedQuery=${e}`]) {
                const res = await t.inject({ url, headers: wilson });
                expect(res.statusCode, `${url}: ${res.payload}`).to.equal(400);
                expect(res.result.Error.message).to.contain(`${name} is not a saved query of MXAPIWODETAIL`);
            }

            const param = await t.inject({ url: `${wos}?savedQuery=WOBYASSET&sqp:${e}=1`, headers: wilson });
            expect(param.statusCode, param.payload).to.equal(400);
            expect(param.result.Error.message).to.contain(`the saved query WOBYASSET has no parameter ${name}`);
        }
    });

    test('a where parameter named like them (:constructor) has no value: 400', async () => {

        for (const name of prototypeNames.filter((each) => /^\w+$/.test(each))) {
            const res = await t.inject({ url: `${wos}?oslc.where=${encodeURIComponent(`wonum=:${name}`)}`, headers: wilson });
            expect(res.statusCode, `:${name} ${res.payload}`).to.equal(400);
            expect(res.result.Error.message).to.contain(`The parameter :${name} has no value`);
        }
    });

    test('as an alias in oslc.select each is a key of the record, but __proto__, which would replace its prototype: 400', async () => {

        const others = prototypeNames.filter((name) => name !== '__proto__');
        const res = await t.inject({ url: `${wos}?oslc.pageSize=1&oslc.select=wonum,${others.map((name) => `wonum--${name}`).join(',')}`, headers: wilson });
        expect(res.statusCode, res.payload).to.equal(200);
        const member = JSON.parse(res.payload).member[0];
        for (const name of others) {
            expect(Object.hasOwn(member, name), name).to.be.true();
            expect(member[name]).to.equal(member.wonum);
        }

        for (const select of ['wonum--__proto__', 'woactivity._dbcount--__proto__', 'asset.description--__proto__', 'woactivity{taskid--__proto__}', 'asset{assetnum}--__proto__']) {
            const refused = await t.inject({ url: `${wos}?oslc.pageSize=1&oslc.select=${encodeURIComponent(select)}`, headers: wilson });
            expect(refused.statusCode, `${select}: ${refused.payload}`).to.equal(400);
            expect(refused.result.Error.message).to.contain('"__proto__" cannot be a key of a record');
        }
    });

    test('a bulk item whose operation is one of them is refused by name, and nothing is written', async () => {

        const before = await t.inject({ url: `${wos}?count=1`, headers: wilson });
        const items = prototypeNames.flatMap((name) => [{ _action: name, siteid: 'BEDFORD', description: 'never' }, { _data: { siteid: 'BEDFORD', description: 'never' }, _meta: { method: name } }]);
        const res = await t.inject({ method: 'POST', url: wos, headers: { ...wilson, 'x-method-override': 'BULK' }, payload: items });
        expect(res.statusCode, res.payload).to.equal(200);
        for (const [index, item] of (res.result as { _responsemeta: { status: string }; _responsedata: { Error: { message: string } } }[]).entries()) {
            expect(item._responsemeta.status, JSON.stringify(items[index])).to.equal('400');
            expect(item._responsedata.Error.message).to.contain('is not one of Add, Update, Merge, Delete, AddChange');
        }

        expect((await t.inject({ url: `${wos}?count=1`, headers: wilson })).result).to.equal(before.result);
    });

    test('every other place a name goes answers 400 or 404, never 500', async () => {

        const { id, taskId } = await record();
        const requests: { method?: string; url: string; headers?: Record<string, string>; payload?: string }[] = [];
        for (const name of prototypeNames) {
            const e = encodeURIComponent(name);
            const base64 = `_${Buffer.from(name).toString('base64').replace(/=/g, '-')}`;
            const urls = [
                `${wos}?oslc.select=${e}`, `${wos}?oslc.select=${e}{*}`, `${wos}?oslc.select=${e}.description`, `${wos}?oslc.select=asset.${e}`, `${wos}?oslc.select=${e}._dbcount`,
                `${wos}?oslc.where=${e}="x"`, `${wos}?oslc.where=${e}{wonum="x"}`, `${wos}?oslc.where=woactivity{${e}=1}`, `${wos}?oslc.where=asset.${e}="x"`, `${wos}?oslc.orderBy=%2B${e}`,
                `${wos}?${e}=1`, `${wos}?distinct=${e}`, `${wos}?gbcols=${e},count.*`, `${wos}?gbcols=siteid,sum.${e}`, `${wos}?gbcols=siteid,count.*&gbsortby=${e}`,
                `${wos}?gbcols=siteid,count.*&gbfilter=${e}=1`, `${wos}?gbcols=siteid,count.*&gbrange=${e}=%7B%5B1..3%5D%7D`, `${wos}?oslc.searchTerms=x&searchAttributes=${e}`,
                `${wos}?tlattribute=${e}&tlrange=-1M`, `${wos}?action=genreport&reportname=${e}&reportformat=json`, `${wos}?action=genreport&reportname=woassets.rptdesign&reportformat=${e}`,
                `/maximo/oslc/os/${e}`, `/maximo/oslc/${e}`, `/maximo/${e}/os/mxapiwodetail`, `${wos}/${e}`, `${wos}/${base64}`, `${wos}/siteid:${e}|wonum:${e}`,
                `${wos}/${id}/${e}`, `${wos}/${id}/woactivity/${e}`, `${wos}/${id}/getlist~${e}`, `${wos}/${id}/woactivity/${taskId}/getlist~${e}`, `${wos}/${id}/getlist~status?savedQuery=${e}`,
                `${wos}/${id}/getlist~assetnum?savedQuery=${e}&sqp:x=1`, `${wos}/${id}?oslc.select=${e}`, `${wos}/${id}?action=${e}`,
                `/maximo/oslc/members/${e}`, `/maximo/oslc/members/self/${e}`, `/maximo/oslc/error/messages/${e}`, `/maximo/oslc/permission/checkosauthorized/${e}`,
                `/maximo/oslc/permission/allowedappoptions?app=${e}`, `/maximo/oslc/jsonmboschemas/${e}`, `/maximo/oslc/jsonschemas/${e}`, `/maximo/oslc/apimeta/${e}`, `/maximo/oslc/jsonschemas/mxapiwodetail?oslc.select=${e}`
            ];
            requests.push(...urls.map((url) => ({ url })));
            requests.push({ method: 'DELETE', url: `/maximo/oslc/loginlocks/users/${e}` }, { method: 'POST', url: `${wos}/${id}`, headers: { 'x-method-override': name }, payload: '{}' });
            requests.push({ method: 'POST', url: `${wos}/${id}?action=wsmethod:${e}`, payload: '{}' }, { method: 'POST', url: `${wos}?action=${e}`, payload: '{}' });
            requests.push({ method: 'POST', url: `${wos}/${id}`, headers: { 'x-method-override': 'PATCH', patchtype: 'MERGE' }, payload: JSON.stringify({ [name]: '1' }) });
            requests.push({ method: 'POST', url: `${wos}/${id}`, headers: { 'x-method-override': 'PATCH', patchtype: 'MERGE' }, payload: JSON.stringify({ woactivity: [{ [name]: 1 }] }) });
            requests.push({ method: 'POST', url: `${wos}/${id}`, headers: { 'x-method-override': 'PATCH', properties: name }, payload: '{"description":"x"}' });
            requests.push({ method: 'POST', url: wos, payload: JSON.stringify({ [name]: '1', siteid: 'BEDFORD', description: 'never' }) });
            requests.push({ method: 'POST', url: wos, headers: { 'x-method-override': 'SYNC' }, payload: JSON.stringify({ [name]: '1', siteid: 'BEDFORD', wonum: 'PROTO' }) });
        }

        const before = await t.inject({ url: `${wos}?count=1`, headers: wilson });
        const answers = new Map<number, number>();
        for (const request of requests) {
            const res = await t.inject({ ...request, headers: { ...maxadmin, 'content-type': 'application/json', ...request.headers } });
            expect([400, 404], `${request.method ?? 'GET'} ${request.url} ${JSON.stringify(request.headers ?? {})} ${request.payload ?? ''}: ${res.payload.slice(0, 300)}`).to.include(res.statusCode);
            expect(res.result.Error.message).to.not.contain('BMXAA1724E');
            answers.set(res.statusCode, (answers.get(res.statusCode) ?? 0) + 1);
        }

        expect([...answers.keys()].sort()).to.equal([400, 404]);
        expect((await t.inject({ url: `${wos}?count=1`, headers: wilson })).result).to.equal(before.result);
    });
});
