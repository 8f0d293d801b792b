import * as Fs from 'node:fs';
import * as Os from 'node:os';
import * as Path from 'node:path';

import * as Code from '@hapi/code';
import * as Lab from '@hapi/lab';

import { testDatabases } from '../helpers/databases';
import { clientJar, compileSteps, missingToolchain, runSteps, sharedJar, type StepResult } from '../helpers/java-client';
import { startProcess, type RunningServer } from '../helpers/process';


const { experiment, test, before, after } = exports.lab = Lab.script();
const { expect } = Code;


// IBM's Java REST client, unchanged, against one real server process per database. The steps live in test/java/
// (one class per topic); they are compiled once and run in one JVM against every server, each step printing
// whether it held. The names below are the steps that JVM must report, in its order.
const steps = [
    'connect with maxauth on /maximo/oslc',
    'connect with basic on /maximo/oslc',
    'connect with form on /maximo/oslc',
    'connect with maxauth on /maximo/api',
    'connect with basic on /maximo/api',
    'connect with form on /maximo/api',
    'a connector without lean(true) queries and creates',
    'connect with a wrong password is refused (maxauth)',
    'connect with a wrong password is refused (form)',
    'QueryWhere with in and equalTo',
    'QueryWhere with startsWith, gte and lte on a number, lt on a date',
    'QueryWhere with like, endsWith and gt on text',
    'QueryWhere on a child object (woactivity.status)',
    'select with a related record ($asset.description) and a child object (woactivity.taskid)',
    'orderBy (the client sends every term descending)',
    'saved query without parameters',
    'saved query with a parameter, with and without a where',
    'search terms with searchAttributes',
    'fetch with additional parameters',
    'fetchMember and Resource.load with properties',
    'member(i) walks a page and loads each record',
    'paging forwards and back (nextPage, previousPage, paging(true))',
    'count, totalCount and totalCount(true) agree with a plain query',
    'stable paging: an insert does not shift the next page',
    'groupBy with count and sum, having on the count and sortBy descending',
    'groupBy of a where with avg, min and max, sortBy ascending on an aggregate',
    'create without properties',
    'create with properties',
    'update without properties',
    'update with properties replaces a child collection',
    'update of the status records its history',
    'merge with and without properties keeps the children',
    'sync with properties creates, then updates',
    'sync without properties creates, then updates',
    'mergeSync keeps the children',
    'delete',
    'refused writes throw Maximo\'s error',
    'bulk create, update with properties, merge and delete',
    'bulk: a refused item does not hold back the others',
    'invokeAction wsmethod:changeStatus without properties, then the record reloads',
    'invokeAction wsmethod:changeStatus with properties answers the record',
    'invokeAction of an unknown action is refused naming it',
    'attachments: attachmentSet of a loaded record, create, then load, thisPageSize and member(i)',
    'attachments: toDoc answers every byte as uploaded (0x00 to 0xFF)',
    'attachments: toDocMeta names the title, description, urlType and identifier',
    'attachments: mc.attachment(uri) and mc.attachmentDocMeta(uri) find a document by its href',
    'attachments: a document of several chunks (600 KB) comes back whole',
    'attachments: attachmentSet(null, null) of a record read without doclinks uses .../DOCLINKS',
    'attachments: a connector without lean(true) creates and reads a document',
    'attachments: Attachment.delete and AttachmentSet.delete(i), then the list and a refused read',
    'a child collection through its collectionref',
    'relatedResource follows a related record',
    'lookup of a work order\'s assets (getlist~assetnum)',
    'lookup of a domain\'s values (getlist~status)',
    'disconnect ends the session on /maximo/oslc',
    'disconnect ends the session on /maximo/api',
    'the README\'s WorkOrders example runs and leaves nothing behind'
];

experiment('IBM\'s Java REST client, unchanged', { timeout: 10_000 }, () => {

    let classes: string | undefined;
    const servers: { running: RunningServer; drop: () => Promise<void>; data: string }[] = [];
    let reported: StepResult[] = [];
    const results = new Map<string, StepResult>();
    let stderr = '';

    before({ timeout: 180_000 }, async () => {

        const missing = await missingToolchain();
        expect(missing, `the Java client's run needs: ${missing.join(', ')} (.ci/run installs the Debian packages libjsonp-java and libcommons-codec-java)`).to.be.empty();

        const start = async (database: (typeof testDatabases)[number]) => {

            const created = await database.create();
            const data = Fs.mkdtempSync(Path.join(Os.tmpdir(), 'osprey-e2e-'));
            const running = await startProcess({ DATABASE_URL: created.url, OSPREY_DATA: data }).catch(async (err) => {

                await created.drop();
                throw err;
            });
            servers.push({ running, drop: created.drop, data });
            return [database.name, running.port] as const;
        };

        classes = Fs.mkdtempSync(Path.join(Os.tmpdir(), 'osprey-java-'));
        const [ports] = await Promise.all([Promise.all(testDatabases.map(start)), compileSteps(classes)]);
        const run = await runSteps(classes, Object.fromEntries(ports));
        stderr = run.stderr;
        reported = run.results;
        for (const result of run.results) {
            results.set(`${result.database}: ${result.step}`, result);
        }
    });

    after(async () => {

        for (const { running, drop, data } of servers) {
            await running.stop();
            await drop();
            Fs.rmSync(data, { recursive: true, force: true });
        }

        if (classes) {
            Fs.rmSync(classes, { recursive: true, force: true });
        }
    });

    test('the client is the jar handed to the team, byte for byte, where that copy is beside this checkout', () => {

        if (Fs.existsSync(sharedJar)) {
            expect(Fs.readFileSync(clientJar).equals(Fs.readFileSync(sharedJar))).to.be.true();
        }

        expect(Fs.statSync(clientJar).size).to.be.above(40_000);
    });

    for (const database of testDatabases) {
        experiment(`(${database.name})`, () => {

            test('the run reports exactly the listed steps, in order', () => {

                expect(reported.filter((result) => result.database === database.name).map((result) => result.step)).to.equal(steps);
            });

            for (const step of steps) {
                test(step, () => {

                    const result = results.get(`${database.name}: ${step}`);
                    expect(result, 'the step did not report').to.exist();
                    // What the client wrote on stderr (processGroupBy and processBulk print their exceptions there).
                    expect(result, `${result!.detail}${stderr ? `\nJVM stderr:\n${stderr.slice(-2000)}` : ''}`).to.include({ ok: true });
                });
            }
        });
    }
});
