import * as Net from 'node:net';

import * as Code from '@hapi/code';
import * as Lab from '@hapi/lab';

import { answer as parseErrorAnswer } from '../src/http/parse-errors';
import { testDatabases } from './helpers/databases';
import { startTestServer, type TestServer } from './helpers/server';


const { experiment, test, before, after } = exports.lab = Lab.script();
const { expect } = Code;

// Requests Node's parser refuses are answered in Maximo's error shape, with a JSON body, as every other error.

const send = (port: number, raw: string): Promise<string> => new Promise((resolve, reject) => {

    const socket = Net.connect(port, '127.0.0.1', () => socket.write(raw));
    let answer = '';
    socket.on('data', (chunk) => (answer += chunk.toString()));
    socket.on('end', () => resolve(answer));
    socket.on('error', reject);
});

const bodyOf = (answer: string) => JSON.parse(answer.slice(answer.indexOf('\r\n\r\n') + 4));

experiment(`requests the HTTP parser refuses (${testDatabases[0]!.name})`, () => {

    let t: TestServer;
    let port: number;
    before(async () => {

        t = await startTestServer(testDatabases[0]!, { port: 0, host: '127.0.0.1' });
        await t.server.start();
        port = t.server.info.port as number;
    });

    after(() => t.stop());

    test('a bad request line or header is a 400 with a Maximo JSON error', async () => {

        for (const raw of ['GET /maximo/oslc/os/mxapiasset with spaces HTTP/1.1\r\nHost: x\r\n\r\n', 'NOT HTTP AT ALL\r\n\r\n', 'GET / HTTP/1.1\r\nBad Header\r\n\r\n']) {
            const answer = await send(port, raw);
            expect(answer, raw).to.startWith('HTTP/1.1 400 Bad Request');
            expect(answer).to.contain('Content-Type: application/json');
            const body = bodyOf(answer);
            expect(body.Error).to.include({ reasonCode: 'BMXAA4153E', statusCode: '400' });
            expect(body.Error.message).to.contain('could not be read as HTTP');
        }
    });

    test('headers beyond the parser\'s limit are a 431 with a Maximo JSON error; good requests still answer', async () => {

        const answer = await send(port, `GET /maximo/oslc HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`);
        expect(answer).to.startWith('HTTP/1.1 431');
        expect(bodyOf(answer).Error.statusCode).to.equal('431');
        expect(bodyOf(answer).Error.message).to.contain('larger than the 16384 bytes this server reads');
        const good = await send(port, 'GET /maximo/oslc/os/mxapiasset HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n');
        expect(good).to.startWith('HTTP/1.1 401');
        expect(bodyOf(good).Error.statusCode).to.equal('401');
    });

    test('garbage after a request on the same connection lets that request be answered first', async () => {

        const answer = await send(port, 'GET /maximo/oslc/os/mxapiasset HTTP/1.1\r\nHost: x\r\n\r\nGARBAGE\r\n\r\n');
        expect(answer).to.startWith('HTTP/1.1 401');
    });

    test('an error without a code is still named', () => {

        expect(bodyOf(parseErrorAnswer(undefined)).Error.message).to.contain('(parse error)');
    });
});
