import * as Code from '@hapi/code';
import * as Lab from '@hapi/lab';

import type * as Hapi from '@hapi/hapi';

import { queryRedactor } from '../../src/http/redact-query';
import { requestLogging } from '../../src/http/request-log';
import { loadRegistry } from '../../src/load-registry';
import { announce, createLogger, formatOf, logs, type Logger } from '../../src/log/logger';
import { demoStructures } from '../helpers/server';


const lab = exports.lab = Lab.script();
const { experiment, test } = lab;
const { expect } = Code;

// What a logger writes, line by line.
const captured = () => {

    const lines: string[] = [];
    return { lines, destination: { write: (text: string) => lines.push(...text.split('\n').filter(Boolean)) } };
};

const request = { msg: 'request', requestId: 'r-1', method: 'GET', path: '/maximo/oslc/os/mxapiwo?lean=1', status: 404, reasonCode: 'BMXAA8727E', ms: 3, user: 'WILSON', client: '127.0.0.1' };

experiment('the logger', () => {

    test('writes one JSON object per line: level, time, msg and the event\'s fields', () => {

        const { lines, destination } = captured();
        const log = createLogger('info', { destination });
        log('info', request);
        expect(lines).to.have.length(1);
        const line = JSON.parse(lines[0]!);
        expect(line).to.equal({ level: 'info', time: line.time, ...request });
        expect(new Date(line.time).toISOString()).to.equal(line.time);
    });

    test('writes the levels up to its own', () => {

        const written = (level: 'silent' | 'error' | 'warn' | 'info' | 'debug') => {

            const { lines, destination } = captured();
            const log = createLogger(level, { destination });
            for (const each of ['error', 'warn', 'info', 'debug'] as const) {
                log(each, { msg: each });
            }

            return lines.map((line) => JSON.parse(line).msg);
        };

        expect(written('silent')).to.equal([]);
        expect(written('error')).to.equal(['error']);
        expect(written('warn')).to.equal(['error', 'warn']);
        expect(written('info')).to.equal(['error', 'warn', 'info']);
        expect(written('debug')).to.equal(['error', 'warn', 'info', 'debug']);
    });

    test('says which levels it writes; a logger without a level is taken as info', () => {

        expect(logs(createLogger('debug', captured()), 'debug')).to.be.true();
        expect(logs(createLogger('warn', captured()), 'info')).to.be.false();
        const plain: Logger = () => undefined;
        expect(logs(plain, 'info')).to.be.true();
        expect(logs(plain, 'debug')).to.be.false();
        // Standard output when no destination is given (nothing is written at silent).
        createLogger('silent')('error', { msg: 'not written' });
    });

    test('writes a request as one line for a person when pretty is asked for, without colour off a terminal', () => {

        const { lines, destination } = captured();
        const log = createLogger('info', { format: 'pretty', destination });
        log('info', request);
        log('info', { ...request, status: 200, reasonCode: undefined, user: undefined });
        log('warn', { msg: 'login lockout', key: 'user:WILSON', retryAfter: 900 });
        log('info', { msg: 'internal error', requestId: 'r-2' });
        expect(lines).to.have.length(4);
        expect(lines[0]).to.match(/^\[\d\d:\d\d:\d\d\.\d{3}\] INFO: GET \/maximo\/oslc\/os\/mxapiwo\?lean=1 404 BMXAA8727E 3 ms WILSON 127\.0\.0\.1 \[r-1\]$/);
        expect(lines[1]).to.endWith('INFO: GET /maximo/oslc/os/mxapiwo?lean=1 200 3 ms - 127.0.0.1 [r-1]');
        expect(lines[2]).to.endWith('WARN: login lockout {"key":"user:WILSON","retryAfter":900}');
        expect(lines[3]).to.endWith('INFO: internal error [r-2]');
        expect(lines.join('')).to.not.contain('\u001b[');
    });

    test('writes to standard output when given no destination', () => {

        const written: string[] = [];
        const write = process.stdout.write;
        process.stdout.write = ((text: string) => written.push(text) > 0) as typeof process.stdout.write;
        try {
            createLogger('info', { format: 'pretty' })('info', { msg: 'to a terminal' });
            announce('pretty', 'Osprey stopped');
        }
        finally {
            process.stdout.write = write;
        }

        expect(written).to.have.length(2);
        expect(written[0]).to.contain('INFO: to a terminal');
        expect(written[1]).to.equal('Osprey stopped\n');
    });

    test('is pretty on a terminal and JSON otherwise, unless told', () => {

        const tty = process.stdout.isTTY;
        try {
            process.stdout.isTTY = true;
            expect(formatOf({})).to.equal('pretty');
            expect(formatOf({ format: 'json' })).to.equal('json');
            expect(formatOf({ destination: captured().destination })).to.equal('json');
            process.stdout.isTTY = false;
            expect(formatOf({})).to.equal('json');
            expect(formatOf({ format: 'pretty' })).to.equal('pretty');
        }
        finally {
            process.stdout.isTTY = tty;
        }
    });

    test('announces the start and the stop as text or as one JSON line, whatever the level', () => {

        const lines: string[] = [];
        announce('pretty', 'Osprey is listening on http://x/maximo\n  database: SQLite', {}, (line) => lines.push(line));
        announce('json', 'Osprey is listening on http://x/maximo\n  database: SQLite', { url: 'http://x/maximo' }, (line) => lines.push(line));
        announce('json', 'Osprey stopped', undefined, (line) => lines.push(line));
        expect(lines[0]).to.equal('Osprey is listening on http://x/maximo\n  database: SQLite\n');
        const json = JSON.parse(lines[1]!);
        expect(json).to.equal({ level: 'info', time: json.time, msg: 'Osprey is listening on http://x/maximo', url: 'http://x/maximo' });
        expect(JSON.parse(lines[2]!).msg).to.equal('Osprey stopped');
    });
});

experiment('the query of a request line', () => {

    const redact = queryRedactor(loadRegistry(demoStructures));

    test('keeps a query that names no secret as it came', () => {

        const query = 'oslc.select=wonum,description&oslc.where=status%3D%22WAPPR%22&lean=1';
        expect(redact(query)).to.equal(query);
        expect(redact('lean=1&%zz=1&oslc.where=description%3D%22%E6%97%A5%22')).to.equal('lean=1&%zz=1&oslc.where=description%3D%22%E6%97%A5%22');
    });

    test('redacts credentials, secret attributes and values that name them, in any case or encoding', () => {

        expect(redact('apikey=abc123&lean=1')).to.equal('apikey=[redacted]&lean=1');
        expect(redact('APIKEY=abc123')).to.equal('APIKEY=[redacted]');
        expect(redact('%61pikey=abc123')).to.equal('%61pikey=[redacted]');
        expect(redact('_lid=wilson&_lpwd=wilson&lean=1')).to.equal('_lid=[redacted]&_lpwd=[redacted]&lean=1');
        expect(redact('apikeyhash=00ff')).to.equal('apikeyhash=[redacted]');
        expect(redact('oslc.where=apikey%3D%22abc%22&lean=1')).to.equal('oslc.where=[redacted]&lean=1');
        expect(redact('oslc.where=apikey+=+"abc"')).to.equal('oslc.where=[redacted]');
        // A malformed escape beside an encoded name does not hide it.
        expect(redact('%zz=1&%5Flpwd=secret')).to.equal('%zz=1&%5Flpwd=[redacted]');
        // A name without a value holds nothing to hide.
        expect(redact('apikey&lean=1')).to.equal('apikey&lean=1');
    });
});

experiment('the request line', () => {

    // The 'response' handler, on a stand-in server that keeps it, for answers no route makes.
    const handlerOf = () => {

        const { lines, destination } = captured();
        let handler: ((request: Hapi.Request) => void) | undefined;
        const server = {
            app: { osprey: { options: { trustProxy: 0 } } },
            events: {
                on: (name: unknown, listener: (request: Hapi.Request) => void) => {

                    handler = name === 'response' ? listener : handler;
                }
            }
        };
        requestLogging(server as unknown as Hapi.Server, createLogger('info', { destination }), loadRegistry(demoStructures));
        return { lines, handle: (response: unknown) => handler!({
            app: { requestId: 'r-9' }, method: 'get', path: '/maximo/oslc/x', raw: { req: { url: '/maximo/oslc/x' } }, headers: {},
            response, info: { received: Date.now(), remoteAddress: '10.0.0.7' }, auth: {}
        } as unknown as Hapi.Request) };
    };

    test('writes what it has of an answer without a Maximo body, or without an answer (the client left)', () => {

        const { lines, handle } = handlerOf();
        handle({ statusCode: 404, source: null });
        handle({ statusCode: 409, source: { message: 'a plugin\'s own body' } });
        handle({ statusCode: 503, source: 'text' });
        handle(null);
        const written = lines.map((line) => JSON.parse(line));
        expect(written.map(({ level, status, reasonCode, path, client }) => ({ level, status, reasonCode, path, client }))).to.equal([
            { level: 'info', status: 404, reasonCode: undefined, path: '/maximo/oslc/x', client: '10.0.0.7' },
            { level: 'info', status: 409, reasonCode: undefined, path: '/maximo/oslc/x', client: '10.0.0.7' },
            { level: 'error', status: 503, reasonCode: undefined, path: '/maximo/oslc/x', client: '10.0.0.7' },
            { level: 'info', status: undefined, reasonCode: undefined, path: '/maximo/oslc/x', client: '10.0.0.7' }
        ]);
    });
});
