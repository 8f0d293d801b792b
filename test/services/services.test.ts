import * as Path from 'node:path';

import * as Code from '@hapi/code';
import * as Lab from '@hapi/lab';
import Joi from 'joi';

import { onEachDatabase } from '../helpers/experiments';
import { maxadmin, wilson } from '../helpers/server';


const lab = exports.lab = Lab.script();
const { test } = lab;
const { expect } = Code;

const plugin = Path.join(__dirname, '..', 'fixtures', 'plugins', 'services');
const home = '/maximo/oslc';
const call = (service: string, action: string, query = '') => `${home}/service/${service}?action=${action}${query}`;

const expectError = (res: any, status: number, ...names: string[]) => {

    expect(res.statusCode, res.payload).to.equal(status);
    expect(res.result.Error.statusCode).to.equal(String(status));
    for (const name of names) {
        expect(res.result.Error.message).to.contain(name);
    }
};

// Service endpoints (src/services, plugins/services): a plugin's service, and how a call is refused.
onEachDatabase(lab, 'service endpoints', { settings: { plugins: [plugin] } }, (t) => {

    test('GET takes the arguments from the query, POST from a JSON body; a scalar is answered as {"return": …}, on both homes', async () => {

        const get = await t.inject({ url: call('calc', 'wsmethod:add', '&a=2&b=3'), headers: wilson });
        expect(get.statusCode).to.equal(200);
        expect(get.result).to.equal({ return: 5 });

        const post = await t.inject({ method: 'POST', url: `/maximo/api/service/CALC?action=wsmethod:add&lean=1`, headers: { ...wilson, 'x-method-override': 'PATCH' }, payload: { a: 1.5 } });
        expect(post.statusCode).to.equal(200);
        expect(post.result).to.equal({ return: 1.5 });

        // Query and body together, each naming other arguments.
        const both = await t.inject({ method: 'POST', url: call('calc', 'wsmethod:add', '&a=1'), headers: wilson, payload: { b: 2 } });
        expect(both.result).to.equal({ return: 3 });
    });

    test('an object is answered as it is; the handler gets the arguments without a prototype, and the user', async () => {

        const res = await t.inject({ method: 'POST', url: call('calc', 'wsmethod:echo'), headers: wilson, payload: { text: 'hi', list: [1, 2] } });
        expect(res.statusCode).to.equal(200);
        expect(res.result).to.equal({ args: { text: 'hi', list: [1, 2] }, user: 'WILSON', bare: true });
    });

    test('a method that answers nothing is a 200 without a body; a method\'s own refusal is answered as it is', async () => {

        const res = await t.inject({ url: call('calc', 'wsmethod:nothing'), headers: wilson });
        expect(res.statusCode).to.equal(200);
        expect(res.payload).to.equal('');
        // A POST without a body: arguments, if any, from the query.
        const posted = await t.inject({ method: 'POST', url: call('calc', 'wsmethod:add', '&a=7'), headers: { ...wilson, 'x-method-override': 'PATCH' } });
        expect(posted.result).to.equal({ return: 7 });
        expectError(await t.inject({ url: call('calc', 'wsmethod:fail'), headers: wilson }), 400, 'calc.fail always refuses.');
        // A handler answering what is no JSON value is the plugin's fault: a 500, its message kept to the log.
        const broken = await t.inject({ url: call('calc', 'wsmethod:broken'), headers: wilson });
        expectError(broken, 500);
        expect(broken.payload).to.not.contain('bigint');
        // Inside an object too: found as the answer is made, not left to fail as hapi sends it (a 500 of its own shape).
        const nested = await t.inject({ url: call('calc', 'wsmethod:brokenobject'), headers: wilson });
        expectError(nested, 500);
        expect(nested.payload).to.not.contain('BigInt');
        for (const method of ['bytes', 'arraybuffer', 'stream']) {
            expectError(await t.inject({ url: call('calc', `wsmethod:${method}`), headers: wilson }), 500);
        }
    });

    test('a GET sends its arguments in the query, not in a body', async () => {

        expectError(await t.inject({ method: 'GET', url: call('calc', 'wsmethod:add'), headers: { ...wilson, 'content-type': 'application/json' }, payload: '{"a":1}' }), 400, 'A GET of a service method sends its arguments in the query');
    });

    test('an unknown service is a 404 naming it and the services', async () => {

        for (const name of ['nosuch', '__proto__', 'constructor', 'toString']) {
            const res = await t.inject({ url: call(name, 'wsmethod:getDate'), headers: wilson });
            expectError(res, 404, `There is no service ${name}; the services are: calc, system.`);
            expect(res.result.Error.reasonCode).to.equal('BMXAA8727E');
        }

        // A long name is quoted cut short.
        const long = await t.inject({ url: call('x'.repeat(150), 'wsmethod:getDate'), headers: wilson });
        expectError(long, 404, `There is no service ${'x'.repeat(100)}…; the services are`);

        // service/logging stays the 501 of a service Osprey does not provide, by GET and POST.
        for (const method of ['GET', 'POST']) {
            expectError(await t.inject({ method, url: call('logging', 'wsmethod:getLoggerList'), headers: maxadmin }), 501, 'the logging service');
        }
    });

    test('an action missing, not a web method, or a method the service has not is a 400 naming it and the methods', async () => {

        expectError(await t.inject({ url: `${home}/service/calc`, headers: wilson }), 400, 'names no action', 'add, echo, secretOf, broken, brokenobject, bytes, arraybuffer, stream, nothing, fail');
        expectError(await t.inject({ url: call('calc', ''), headers: wilson }), 400, 'names no action');
        expectError(await t.inject({ url: call('calc', 'add'), headers: wilson }), 400, 'The action add is not a web method');
        expectError(await t.inject({ url: call('calc', 'workflow:add'), headers: wilson }), 400, 'workflow:add');
        for (const name of ['nosuch', '__proto__', 'constructor', 'hasOwnProperty']) {
            expectError(await t.inject({ url: call('calc', `wsmethod:${name}`), headers: wilson }), 400, `The service calc has no method ${name}; its methods are: add, echo, secretOf, broken, brokenobject, bytes, arraybuffer, stream, nothing, fail.`);
        }

        expectError(await t.inject({ url: call('calc', 'wsmethod:ADD'), headers: wilson }), 400, 'did you mean add?');
        expectError(await t.inject({ url: `${call('calc', 'wsmethod:add')}&action=wsmethod:echo&a=1`, headers: wilson }), 400, 'The query parameter action is sent 2 times');
    });

    test('arguments that do not fit the schema are a 400 naming the argument', async () => {

        const cases: [string, string][] = [
            ['&a=x', 'The argument a of calc.add is refused: "a" must be a number'],
            ['', 'The argument a of calc.add is refused: "a" is required'],
            ['&a=1&c=2', 'The argument c of calc.add is refused: calc.add takes the arguments a, b'],
            ['&a=1&__proto__=2', 'The argument __proto__ of calc.add is refused'],
            ['&a=1&constructor=2', 'The argument constructor of calc.add is refused']
        ];
        for (const [query, message] of cases) {
            const res = await t.inject({ url: call('calc', 'wsmethod:add', query), headers: wilson });
            expectError(res, 400, message);
            expect(res.result.Error.errorattrname, query).to.equal(message.split(' ')[2]);
        }

        expectError(await t.inject({ method: 'POST', url: call('calc', 'wsmethod:add', '&a=1'), headers: wilson, payload: { a: 2 } }), 400, 'The argument a of calc.add is refused: it is sent both in the query and in the body');
        expectError(await t.inject({ method: 'POST', url: call('calc', 'wsmethod:add'), headers: { ...wilson, 'content-type': 'application/json' }, payload: '{"a":1,"__proto__":{"b":2}}' }), 400, 'the key __proto__');
        expectError(await t.inject({ method: 'POST', url: call('calc', 'wsmethod:add'), headers: { ...wilson, 'content-type': 'application/json' }, payload: [1, 2] }), 400, 'is a JSON object of its arguments, not an array');
        expectError(await t.inject({ url: call('calc', 'wsmethod:nothing', '&x=1'), headers: wilson }), 400, 'The argument x of calc.nothing is refused: calc.nothing takes no arguments');
        expectError(await t.inject({ method: 'POST', url: call('calc', 'wsmethod:add'), headers: { ...wilson, 'content-type': 'application/json' }, payload: '5' }), 400, 'is a JSON object of its arguments, not number');
        // A name-less `?=x` names no argument.
        expect((await t.inject({ url: call('calc', 'wsmethod:add', '&a=4&=x'), headers: wilson })).result).to.equal({ return: 4 });
    });

    test('the gate: the parameters of its table a service call does not carry out are refused by name; the body is JSON', async () => {

        expectError(await t.inject({ url: call('calc', 'wsmethod:add', '&a=1&oslc.select=*'), headers: wilson }), 400, 'The query parameter oslc.select is not carried out on a service method');
        expectError(await t.inject({ url: call('calc', 'wsmethod:add', '&a=1&properties=x'), headers: wilson }), 400, 'properties');
        expectError(await t.inject({ url: call('calc', 'wsmethod:add', '&a=1&sqp:x=1'), headers: wilson }), 400, 'sqp:x');
        expectError(await t.inject({ method: 'POST', url: call('calc', 'wsmethod:add'), headers: { ...wilson, 'x-method-override': 'DELETE' }, payload: { a: 1 } }), 400, 'x-method-override', 'DELETE');
        expectError(await t.inject({ method: 'POST', url: call('calc', 'wsmethod:add'), headers: { ...wilson, transactionid: 'once' }, payload: { a: 1 } }), 400, 'transactionid');
        expectError(await t.inject({ method: 'POST', url: call('calc', 'wsmethod:add'), headers: { ...wilson, 'content-type': 'text/plain' }, payload: '{"a":1}' }), 415, 'text/plain');
        expectError(await t.inject({ method: 'POST', url: call('calc', 'wsmethod:add'), headers: { ...wilson, 'content-type': 'application/json' }, payload: '{"a":1,"a":2}' }), 400);
        // lean, _ and the login parameters are the request's, not arguments.
        const res = await t.inject({ url: call('calc', 'wsmethod:add', '&a=1&lean=1&_=123&_lid=wilson&_lpwd=wilson') });
        expect(res.result).to.equal({ return: 1 });
    });

    test('methods other than GET and POST are a 405; without a login a 401', async () => {

        for (const method of ['PUT', 'PATCH', 'DELETE']) {
            expectError(await t.inject({ method, url: call('calc', 'wsmethod:add', '&a=1'), headers: wilson }), 405, `not ${method}`);
        }

        expect((await t.inject({ url: call('system', 'wsmethod:getDate') })).statusCode).to.equal(401);
    });

    test('a method for administrators is a 403 to others, before its arguments are read', async () => {

        expectError(await t.inject({ url: call('calc', 'wsmethod:secretOf', '&junk=1'), headers: wilson }), 403, 'The method secretOf of the service calc is for administrators, and WILSON is not one.');
        const res = await t.inject({ url: call('calc', 'wsmethod:secretOf'), headers: maxadmin });
        expect(res.result).to.equal({ token: 'hidden-default', startup: 5, ratio: null, enabled: false });
    });

    test('registering a service is checked: its name, twice, a routed name, its methods and schemas', async () => {

        const server = t.server;
        const method = { description: 'x', handler: () => 1 };
        expect(() => server.registerService('system', { methods: { m: method } })).to.throw('The service system is registered twice.');
        expect(() => server.registerService('Logging', { methods: { m: method } })).to.throw(/routed as one Osprey does not provide/);
        expect(() => server.registerService('a/b', { methods: { m: method } })).to.throw(/URL path segment/);
        expect(() => server.registerService('empty', { methods: {} })).to.throw('The service empty has no methods.');
        expect(() => server.registerService('bad', { methods: { 'x-y': method } })).to.throw(/a method name is a letter/);
        expect(() => server.registerService('bad', { methods: { m: { ...method, schema: 'x' as never } } })).to.throw(/Joi object schema/);
        expect(() => server.registerService('bad', { methods: { m: { ...method, right: 'root' as never } } })).to.throw(/'user' or 'admin'/);
        expect(() => server.registerService('bad', { methods: { m: { ...method, schema: Joi.string() as never } } })).to.throw(/Joi object schema/);
        expect(() => server.registerService('bad', {} as never)).to.throw('The service bad has no methods.');
        expect(() => server.registerService('bad', { methods: { m: { description: 'x' } as never } })).to.throw('The method m of the service bad has a description and a handler function.');
        expect(() => server.registerService('bad', { methods: { m: { handler: () => 1 } as never } })).to.throw(/has a description and a handler/);
        expect(() => server.declareProperty('x.y', { type: 'integer' } as never)).to.throw(/says what it does/);
        expect(() => server.declareProperty('x.y', { type: 'integer', fixed: 2 as never, description: 'd' })).to.throw(/a fixed property has a function/);

        // A service registered once the server runs is served at once; one without a description, whose method
        // takes no arguments by an empty schema.
        server.registerService('plain', { methods: { one: { description: 'one', schema: Joi.object(), handler: () => 1 } } });
        expect((await t.inject({ url: call('plain', 'wsmethod:one'), headers: wilson })).result).to.equal({ return: 1 });
        expectError(await t.inject({ url: call('plain', 'wsmethod:one', '&x=1'), headers: wilson }), 400, 'plain.one takes no arguments');
        expect(() => server.declareProperty('test.token', { type: 'string', description: 'again' })).to.throw(/declared twice/);
        expect(() => server.declareProperty('x.y', { type: 'date' as never, description: 'd' })).to.throw(/its type is one of/);
        expect(() => server.declareProperty('x.y', { type: 'integer', default: 'five', description: 'd' })).to.throw(/its default does not fit/);
        expect(() => server.declareProperty('x.y', { type: 'integer', description: '' })).to.throw(/says what it does/);
        expect(() => server.declareProperty('x.y', { type: 'string', default: {} as never, description: 'd' })).to.throw('The system property x.y: its default does not fit its type: it is text.');
        expect(() => server.declareProperty('x.y', { type: 'integer', default: 1, fixed: () => 2, description: 'd' })).to.throw(/a fixed property has a function \(fixed\) and no default/);
        expect(() => server.declareProperty('x y', { type: 'integer', description: 'd' })).to.throw(/a property name is a letter/);
        await expect(server.property('no.such')).to.reject(/No system property no.such/);
    });
});
