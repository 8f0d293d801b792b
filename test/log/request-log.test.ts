import * as Code from '@hapi/code';
import * as Lab from '@hapi/lab';

import { createLogger, type LogLevel } from '../../src/log/logger';
import { testDatabases } from '../helpers/databases';
import { maxadmin, maxauth, startTestServer, wilson, type TestServer } from '../helpers/server';


const lab = exports.lab = Lab.script();
const { experiment, test, before, after } = lab;
const { expect } = Code;

type Line = Record<string, any>;

// A test server whose log the test reads, as JSON lines.
const loggedServer = async (database: (typeof testDatabases)[number], level: LogLevel, settings: Record<string, unknown> = {}) => {

    const lines: Line[] = [];
    const log = createLogger(level, { format: 'json', destination: { write: (text: string) => lines.push(JSON.parse(text)) } });
    const t = await startTestServer(database, settings, log);
    return { t, lines };
};

const wos = '/maximo/oslc/os/mxapiwodetail';

for (const database of testDatabases) {
    experiment(`the server's log (${database.name})`, () => {

        let t: TestServer;
        let lines: Line[];
        let quiet: { t: TestServer; lines: Line[] };

        before(async () => {

            ({ t, lines } = await loggedServer(database, 'debug', { trustProxy: 1, loginAttempts: 3 }));
            quiet = await loggedServer(database, 'info');
        });

        after(async () => {

            await t.stop();
            await quiet.t.stop();
        });

        const ofRequest = (from: Line[], id: string) => from.filter((line) => line.requestId === id);
        const requestLine = (from: Line[], id: string) => ofRequest(from, id).find((line) => line.msg === 'request')!;

        test('tells what the start did: the migration lock, the tables created, the demo seeded, the node joined', () => {

            const named = (msg: string) => lines.filter((line) => line.msg === msg);
            expect(named('migration lock taken')).to.have.length(1);
            const [migrated] = named('schema migrated');
            expect(migrated!.level).to.equal('info');
            expect(migrated!.created).to.include(['workorder', 'wplabor', 'asset']);
            expect(migrated!.altered).to.equal([]);
            const [seeded] = named('demo data seeded');
            expect(seeded!.records.workorder as number).to.be.above(0);
            const [joined] = named('node joined');
            expect(joined).to.include({ level: 'info', node: t.server.app.osprey.members.id, pid: process.pid });
        });

        test('writes one line per request: method, path and query, status, time, user, client address and request id', async () => {

            const res = await t.inject({ url: `${wos}?oslc.select=wonum&lean=1`, headers: { ...wilson, 'x-forwarded-for': '203.0.113.9' } });
            expect(res.statusCode).to.equal(200);
            const id = res.headers['x-request-id'] as string;
            const line = requestLine(lines, id);
            expect(line).to.equal({
                level: 'info',
                time: line.time,
                msg: 'request',
                requestId: id,
                method: 'GET',
                path: `${wos}?oslc.select=wonum&lean=1`,
                status: 200,
                ms: line.ms,
                user: 'WILSON',
                client: '203.0.113.9'
            });
            expect(line.ms).to.be.a.number();

            // Without a proxy's header, the connection's address.
            const direct = await t.inject({ url: `${wos}?lean=1`, headers: wilson });
            expect(requestLine(lines, direct.headers['x-request-id'] as string)).to.include({ path: `${wos}?lean=1`, client: '127.0.0.1' });
        });

        test('names the Maximo reason code of a refused request', async () => {

            const res = await t.inject({ url: `${wos}?oslc.nonsense=1`, headers: wilson });
            expect(res.statusCode).to.equal(400);
            const line = requestLine(lines, res.headers['x-request-id'] as string);
            expect(line).to.include({ level: 'info', status: 400, reasonCode: res.result.Error.reasonCode });
            expect(line.reasonCode).to.match(/^BMXAA\d{4}E$/);

            const unknown = await t.inject({ url: '/maximo/oslc/os/nosuchthing', headers: wilson });
            expect(requestLine(lines, unknown.headers['x-request-id'] as string).reasonCode).to.equal(unknown.result.Error.reasonCode);
        });

        test('never writes a credential: query parameters redacted, headers never read', async () => {

            const key = 'k'.repeat(64);
            const sent = [
                { url: `${wos}?apikey=${key}&lean=1` },
                { url: `${wos}?_lid=wilson&_lpwd=pw-in-the-query&lean=1` },
                { url: `${wos}?oslc.where=apikey%3D%22${key}%22` },
                { url: `/maximo/j_security_check?j_username=wilson&j_password=pw-in-a-form-query`, method: 'POST' },
                { url: `/maximo/oslc/os/mxapimaxuser?passwordinput=pw-as-input&oslc.where=passwordcheck%3D%22pw-in-where%22` },
                { url: `${wos}?lean=1`, headers: { ...maxauth('wilson', 'pw-in-maxauth'), authorization: `Basic ${Buffer.from('wilson:pw-in-basic').toString('base64')}`, cookie: 'JSESSIONID=cookie-token', apikey: key } }
            ];
            const ids: string[] = [];
            for (const request of sent) {
                ids.push((await t.inject(request)).headers['x-request-id'] as string);
            }

            const paths = ids.map((id) => requestLine(lines, id).path);
            expect(paths).to.equal([`${wos}?apikey=[redacted]&lean=1`, `${wos}?_lid=[redacted]&_lpwd=[redacted]&lean=1`, `${wos}?oslc.where=[redacted]`, '/maximo/j_security_check?j_username=wilson&j_password=[redacted]', '/maximo/oslc/os/mxapimaxuser?passwordinput=[redacted]&oslc.where=[redacted]', `${wos}?lean=1`]);
            const all = JSON.stringify(lines);
            for (const secret of [key, 'pw-in-the-query', 'pw-in-a-form-query', 'pw-as-input', 'pw-in-where', 'pw-in-maxauth', 'pw-in-basic', 'cookie-token', maxauth('wilson', 'pw-in-maxauth').maxauth]) {
                expect(all).to.not.contain(secret);
            }
        });

        test('warns of a login lockout, and tells when an administrator lifts it', async () => {

            const wrong = maxauth('smith', 'not-his-password');
            for (let i = 0; i < 3; ++i) {
                expect((await t.inject({ url: '/maximo/oslc/whoami', headers: wrong })).statusCode).to.equal(401);
            }

            expect((await t.inject({ url: '/maximo/oslc/whoami', headers: wrong })).statusCode).to.equal(429);
            const locks = lines.filter((line) => line.msg === 'login lockout');
            expect(locks).to.have.length(1);
            expect(locks[0]).to.include({ level: 'warn', key: 'user:SMITH', failures: 3 });
            expect(locks[0]!.retryAfter as number).to.be.above(0);

            expect((await t.inject({ method: 'DELETE', url: '/maximo/oslc/loginlocks/users/smith', headers: maxadmin })).statusCode).to.equal(204);
            const lifted = lines.filter((line) => line.msg === 'login lock lifted');
            expect(lifted).to.have.length(1);
            expect(lifted[0]).to.include({ level: 'info', key: 'user:SMITH' });
            // Nothing left to lift: no event.
            expect((await t.inject({ method: 'DELETE', url: '/maximo/oslc/loginlocks/users/smith', headers: maxadmin })).statusCode).to.equal(404);
            expect(lines.filter((line) => line.msg === 'login lock lifted')).to.have.length(1);

            // wsmethod:unlock tells it once the lift committed: not when an all-or-nothing bulk's other item rolled
            // it back (the lock stays), and once when it is lifted.
            for (let i = 0; i < 4; ++i) {
                await t.inject({ url: '/maximo/oslc/whoami', headers: wrong });
            }

            const smith = '/maximo/oslc/os/mxapimaxuser/_U01JVEg-';
            const bulk = await t.inject({ method: 'POST', url: '/maximo/oslc/os/mxapimaxuser?action=wsmethod:unlock', headers: { ...maxadmin, 'x-method-override': 'BULK', allornothing: '1' }, payload: [{ href: `http://localhost${smith}` }, { href: 'http://localhost/maximo/oslc/os/mxapimaxuser/_Tk9CT0RZ' }] });
            expect(bulk.statusCode, bulk.payload).to.equal(200);
            expect(bulk.result.map((item: { _responsemeta: { status: string } }) => item._responsemeta.status)).to.equal(['424', '404']);
            expect((await t.inject({ url: '/maximo/oslc/whoami', headers: maxauth('smith', 'smith') })).statusCode).to.equal(429);
            expect(lines.filter((line) => line.msg === 'login lock lifted')).to.have.length(1);
            const unlocked = await t.inject({ method: 'POST', url: `${smith}?action=wsmethod:unlock`, headers: maxadmin });
            expect(unlocked.result).to.equal({ unlocked: true });
            expect(lines.filter((line) => line.msg === 'login lock lifted')).to.have.length(2);
        });

        test('debug adds each statement, the request\'s count, the parameter gate\'s decision and cache hits', async () => {

            const res = await t.inject({ url: `${wos}?oslc.select=wonum&lean=1`, headers: wilson });
            const id = res.headers['x-request-id'] as string;
            const own = ofRequest(lines, id);
            const statements = own.filter((line) => line.msg === 'statement');
            expect(statements.length).to.be.above(0);
            statements.forEach((line) => expect(line.level).to.equal('debug') && expect(line.sql).to.be.a.string() && expect(line.sqlMs).to.be.a.number());
            expect(own.find((line) => line.msg === 'request statements')).to.include({ level: 'debug', statements: statements.length });
            expect(own.find((line) => line.msg === 'parameter gate')).to.include({ level: 'debug', decision: 'passed', parameters: ['oslc.select', 'lean'] });
            // The second login of the same credentials is remembered (no password hash).
            expect(lines.some((line) => line.msg === 'login remembered' && line.user === 'WILSON')).to.be.true();

            const refused = await t.inject({ url: `${wos}?oslc.nonsense=1`, headers: wilson });
            expect(ofRequest(lines, refused.headers['x-request-id'] as string).find((line) => line.msg === 'parameter gate')).to.include({ decision: 'refused' });

            // At info, the same request is its one line.
            const plain = await quiet.t.inject({ url: `${wos}?oslc.select=wonum&lean=1`, headers: wilson });
            expect(ofRequest(quiet.lines, plain.headers['x-request-id'] as string).map((line) => line.msg)).to.equal(['request']);
            expect(quiet.lines.filter((line) => line.level === 'debug')).to.equal([]);
        });

        test('tells of other nodes joining, going silent and leaving', async () => {

            const { members, knex } = t.server.app.osprey;
            const events = () => lines.filter((line) => line.node === 'other-node').map((line) => `${line.level} ${line.msg}`);
            const now = Date.now();
            await knex('osprey_member').insert({ id: 'other-node', host: 'elsewhere', pid: 42, address: null, version: 'x', started: now, heartbeat: now + 60_000 });
            await members.beat();
            await members.beat();
            expect(events()).to.equal(['info node joined']);
            // Beats stopped a while ago (not yet long enough to be purged).
            await knex('osprey_member').where({ id: 'other-node' }).update({ heartbeat: Date.now() - 2000 });
            await members.beat();
            expect(events()).to.equal(['info node joined', 'warn node silent']);
            await knex('osprey_member').where({ id: 'other-node' }).update({ heartbeat: Date.now() + 60_000 });
            await members.beat();
            await knex('osprey_member').where({ id: 'other-node' }).delete();
            await members.beat();
            expect(events()).to.equal(['info node joined', 'warn node silent', 'info node joined', 'info node left']);
        });

        test('a second node on the same database finds the first, which hears of it joining and leaving', async () => {

            // Its own heartbeat slow: the first's beats may wait while the second migrates, and must not look stale.
            const second = await loggedServer(database, 'info', { databaseUrl: t.options.databaseUrl, heartbeatSeconds: 60 });
            const id = second.t.server.app.osprey.members.id;
            const { members } = t.server.app.osprey;
            await members.beat();
            expect(second.lines.find((line) => line.msg === 'node joined' && line.node === id)!.others as number).to.be.above(0);
            expect(lines.filter((line) => line.node === id).map((line) => line.msg)).to.equal(['node joined']);
            await second.t.stop();
            await members.beat();
            expect(lines.filter((line) => line.node === id).map((line) => line.msg)).to.equal(['node joined', 'node left']);
            // The second found the schema as it is, and seeded nothing.
            expect(second.lines.map((line) => line.msg)).to.include('schema up to date');
            expect(second.lines.map((line) => line.msg)).to.not.include('demo data seeded');
        });

        test('writes what the server\'s own work reports as an error', () => {

            t.server.log(['error', 'checkpoint'], 'the checkpoint failed');
            t.server.log(['error', 'statistics'], new Error('statistics failed'));
            t.server.log(['checkpoint'], 'not an error');
            // A client that resets its connection is not the server's error (hapi logs it so, tagged client).
            t.server.log(['connection', 'client', 'error'], Object.assign(new Error('read ECONNRESET'), { code: 'ECONNRESET' }));
            const errors = lines.filter((line) => line.msg === 'server error');
            expect(errors.map((line) => [line.tags, typeof line.error === 'string' ? line.error : line.error.message])).to.equal([[['checkpoint'], 'the checkpoint failed'], [['statistics'], 'statistics failed']]);
            expect(lines.filter((line) => line.msg === 'client connection error').map((line) => [line.level, line.error.code])).to.equal([['debug', 'ECONNRESET']]);
        });

        test('counts the statements of a request that came over a connection, and tells when the node leaves', async () => {

            const other = await loggedServer(database, 'debug', { port: 0, host: '127.0.0.1' });
            await other.t.server.start();
            const id = other.t.server.app.osprey.members.id;
            try {
                const answer = await fetch(`${other.t.server.info.uri}${wos}?lean=1`, { headers: wilson });
                expect(answer.status).to.equal(200);
                await answer.arrayBuffer();
                const counted = ofRequest(other.lines, answer.headers.get('x-request-id')!).find((line) => line.msg === 'request statements');
                expect(counted!.statements as number).to.be.above(0);
            }
            finally {
                await other.t.stop();
            }

            expect(other.lines.filter((line) => line.node === id).map((line) => line.msg)).to.equal(['node joined', 'node left']);
        });
    });
}
