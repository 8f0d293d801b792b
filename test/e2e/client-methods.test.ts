import * as Code from '@hapi/code';
import * as Lab from '@hapi/lab';
import { ApiHome, setExternalLogger } from '@maximomize/maximo-api-client';

import { testDatabases } from '../helpers/databases';
import { clientBuilder, quiet, startClientServer } from '../helpers/npm-client';
import { domainProbes } from './client-methods/domain';
import { informationProbes } from './client-methods/information';
import { Context, states, type Probe } from './client-methods/ledger';
import { publicMethods, readmeList } from './client-methods/readme';
import { recordProbes } from './client-methods/records';
import { systemProbes } from './client-methods/system';
import { unservedProbes } from './client-methods/unserved';


const { experiment, test, before, after } = exports.lab = Lab.script();
const { expect } = Code;

// Every public method of every service of the npm client (@maximomize/maximo-api-client), called against the real
// server process: each probe checks what came back and records what the server did with each method; the last
// test holds the README's list ("The npm client, method by method") to what was recorded.

// The client's singletons (PermissionService, CacheService) log to its default logger, whatever a client is given.
setExternalLogger(quiet);

const probes = (database: string): Probe[] => [...recordProbes, ...domainProbes, ...informationProbes(database), ...systemProbes, ...unservedProbes];

for (const database of testDatabases) {
    experiment(`every method of the npm client against the server process (${database.name})`, { timeout: 60_000 }, () => {

        let context: Context;
        before({ timeout: 60_000 }, async () => {

            const server = await startClientServer(database);
            const admin = clientBuilder(server.running.port).withCredentials('maxadmin', 'maxadmin').apiHome(ApiHome.OSLC).build();
            context = new Context(server, server.client, admin);
        });

        after(() => context.server.stop());

        for (const probe of probes(database.name)) {
            test(probe.title, () => probe.run(context));
        }

        test('the README\'s list says of each method what it did here', () => {

            const listed = readmeList().states;
            const differences = [...listed].filter(([method, state]) => context.seen.get(method) !== state).map(([method, state]) => `${method}: the README says ${state}, the server did ${context.seen.get(method) ?? 'nothing (no probe called it)'}`);
            expect(differences).to.equal([]);
            expect([...context.seen.keys()].filter((method) => !listed.has(method))).to.equal([]);
        });
    });
}

experiment('the README\'s list of the npm client\'s methods', () => {

    test('names every public method of the client\'s services once, and no other', () => {

        const { states: listed, repeated, rows, counts } = readmeList();
        const methods = publicMethods();
        expect(methods.length).to.equal(386);
        expect(repeated).to.equal([]);
        expect(methods.filter((method) => !listed.has(method))).to.equal([]);
        expect([...listed.keys()].filter((method) => !methods.includes(method))).to.equal([]);
        expect(rows > 40).to.be.true();
        // The numbers the text gives are the list's.
        expect(counts).to.equal(Object.fromEntries(states.map((state) => [state, [...listed.values()].filter((one) => one === state).length])));
    });
});
