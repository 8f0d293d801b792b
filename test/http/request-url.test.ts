import * as Code from '@hapi/code';
import * as Hapi from '@hapi/hapi';
import * as Lab from '@hapi/lab';
import * as fc from 'fast-check';

import { urlOf } from '../../plugins/resources/request';


const lab = exports.lab = Lab.script();
const { test } = lab;
const { expect } = Code;

// The request value makes the request's URL itself, only when a page's links ask for it (hapi parses the URL
// again for every request.url): it must be the URL hapi would have made, for every path and query a client sends.

const server = Hapi.server();
server.route({ method: '*', path: '/{p*}', handler: (request) => ({ hapi: request.url.href, ours: urlOf(request.server.info.protocol, request.info.host, request.raw.req.url!, request.path).href }) });

const both = async (url: string, host = 'eam.example.com:8080') => (await server.inject({ url, headers: { host } })).result as { hapi: string; ours: string };

test('odd paths and queries make the URL hapi makes', async () => {

    const urls = [
        '/maximo/oslc/os/mxapiwodetail?oslc.where=status%3D%22WAPPR%22&pageno=2',
        '/maximo/oslc/os/mxapiwodetail?oslc.where=status="WAPPR" and x<1&oslc.select=a{b,c}',
        '/maximo/./oslc/../oslc/os/%7emx%41piwodetail/%2F?x=%zz#frag',
        '/maximo/oslc/os/mx{api}"wo|detail^`/_QkVERk9SRC8xMDAw?a=%E2%9C%93&b=✓',
        '/a/b/./c/../../d/',
        '/%2e%2E/x',
        'http://other.example.com:81/maximo/oslc/os/mxapiwodetail?x=1'
    ];
    for (const url of urls) {
        const { hapi, ours } = await both(url);
        expect(ours, url).to.equal(hapi);
    }
});

test('any path and query a client sends makes the URL hapi makes', async () => {

    // Characters a request line may carry (no space or control character: Node refuses those).
    const char = fc.constantFrom(...'abcXYZ019-._~!$&\'()*+,;=:@/%?#[]{}"<>^`|\\ü✓'.split(''), '%2e', '%2E', '%7e', '%41', '%2F', '%25', '%zz', '/.', '/..');
    await fc.assert(fc.asyncProperty(fc.array(char, { maxLength: 30 }), async (chars) => {

        const url = `/maximo/${chars.join('')}`;
        const { hapi, ours } = await both(url);
        expect(ours, url).to.equal(hapi);
    }), { numRuns: 500 });
});
