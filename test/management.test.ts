import * as Code from '@hapi/code';
import * as Lab from '@hapi/lab';

import { onEachDatabase } from './helpers/experiments';
import { maxadmin, wilson } from './helpers/server';


const lab = exports.lab = Lab.script();
const { test } = lab;
const { expect } = Code;

const home = '/maximo/oslc';

// The Maximo Management Interface of a node (plugins/info/metrics.ts): what it measures, for administrators.
onEachDatabase(lab, 'the management interface', (t, database) => {

    const get = (url: string, headers: Record<string, string> = maxadmin) => t.inject({ url, headers });

    test('mmi lists the metrics of this node, each with its href, for administrators only', async () => {

        const id = t.server.app.osprey.members.id;
        const res = await get(`${home}/mmi`);
        expect(res.statusCode).to.equal(200);
        const base = `http://${res.request.info.host}${home}`;
        expect(res.result.thisserver.href).to.equal(`${base}/members/${id}`);
        expect(res.result.member.map((metric: any) => [metric.name, metric.href])).to.equal(['pingdb', 'dbinfo', 'memory', 'threads'].map((name) => [name, `${base}/members/${id}/${name}`]));
        for (const metric of res.result.member) {
            expect((await get(new URL(metric.href).pathname)).statusCode).to.equal(200);
        }

        for (const url of [`${home}/mmi`, `${home}/members/thisserver/memory`, `${home}/members/thisserver/jvm`]) {
            const refused = await get(url, wilson);
            expect(refused.statusCode, url).to.equal(403);
            expect(refused.result.Error.message).to.contain('kept to administrators');
        }
    });

    test('pingdb, dbinfo, memory and threads of this node answer real values and nothing secret', async () => {

        const ping = await get(`${home}/members/thisserver/pingdb`);
        expect(ping.result).to.include({ status: 'OK', statement: 'select 1', runs: 10 });
        expect(ping.result.maxResponseTimeMs >= ping.result.averageResponseTimeMs).to.be.true();

        const db = (await get(`${home}/members/THISSERVER/dbinfo`)).result;
        expect(db).to.include({ member: t.server.app.osprey.members.id, databaseKind: database.name, databaseProductVersion: t.server.app.osprey.databaseVersion });
        expect(db.driverVersion).to.match(/^\d+\.\d+\.\d+/);
        expect(db.connectionPool.min <= db.connectionPool.max).to.be.true();
        const described = { ...db, href: undefined };
        expect(JSON.stringify(described)).to.not.contain(t.options.databaseUrl.split('/').pop()!);

        const memory = (await get(`${home}/members/thisserver/memory`)).result;
        expect(memory.heapMemoryUsage.used > 1).to.be.true();
        expect(memory.residentSetSize > memory.heapMemoryUsage.used).to.be.true();

        const threads = (await get(`${home}/members/thisserver/threads`)).result;
        expect(threads.javascriptThreads).to.equal(1);
        expect(threads.threadPoolSize >= 1).to.be.true();
        expect(threads.eventLoopUtilization >= 0 && threads.eventLoopUtilization <= 1).to.be.true();
    });

    test('a database that does not answer is a DOWN ping, without its cause', async () => {

        // knex.raw hands the statement to its client: the client is made to fail as a lost connection would.
        const client = t.server.app.osprey.knex.client;
        const raw = client.raw;
        client.raw = (() => Promise.reject(new Error('connect ECONNREFUSED 10.0.0.9:5432 user secret'))) as any;
        try {
            const ping = await get(`${home}/members/thisserver/pingdb`);
            expect(ping.statusCode).to.equal(200);
            expect(ping.result).to.include({ status: 'DOWN', runs: 0 });
            expect(JSON.stringify(ping.result)).to.not.contain('ECONNREFUSED');
        }
        finally {
            client.raw = raw;
        }
    });

    test('another live node is measured where it runs; a node that is not live is a 404; a metric not measured is a 501 saying why', async () => {

        const knex = t.server.app.osprey.knex;
        await knex('osprey_member').insert({ id: 'other-node', host: 'elsewhere', pid: 1, address: null, version: '0', started: Date.now(), heartbeat: Date.now() });
        try {
            const other = await get(`${home}/members/other-node/memory`);
            expect(other.statusCode).to.equal(501);
            expect(other.result.Error.message).to.contain('a node measures itself only');
            expect((await get(`${home}/members/gone/memory`)).statusCode).to.equal(404);
        }
        finally {
            await knex('osprey_member').where({ id: 'other-node' }).delete();
        }

        for (const [metric, why] of [['jvm', 'Node.js'], ['classinfo/com.ibm.X', 'Node.js'], ['dbinfo/dbmanager', 'database manager'], ['pingkafka', 'Kafka']]) {
            const res = await get(`${home}/members/thisserver/${metric}`);
            expect(res.statusCode, metric).to.equal(501);
            expect(res.result.Error.reasonCode).to.equal('BMXAA1726E');
            expect(res.result.Error.message).to.contain(`the ${metric.toLowerCase()} metric`).and.to.contain(why);
        }

        // Names an object has by inheritance (constructor, __proto__) are metrics of no table.
        for (const metric of ['memroy', 'constructor', '__proto__', 'toString']) {
            const typo = await get(`${home}/members/thisserver/${metric}`);
            expect(typo.statusCode, metric).to.equal(404);
            expect(typo.result.Error.message).to.contain('pingdb, dbinfo, memory, threads');
        }
    });
});
