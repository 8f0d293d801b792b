import * as Code from '@hapi/code';
import * as Lab from '@hapi/lab';
import * as fc from 'fast-check';

import type { Where } from '../../src/read/parse/ast';
import { parseWhere } from '../../src/read/parse/where';
import { onEachDatabase } from '../helpers/experiments';
import { wilson } from '../helpers/server';
import { simpler, whereCase, WhereGenerator, type WhereCase } from './generate-where';
import { orMode, Reference } from './reference';


const lab = exports.lab = Lab.script();
const { test, before } = lab;
const { expect } = Code;

// Random oslc.where clauses go through HTTP to a real server, and the keys it returns are compared with an
// in-memory evaluation of the same clause over the same rows (test/read/reference.ts). 300 runs per database
// keep the suite fast (each run is two requests, about 10 ms); OSPREY_PROPERTY_RUNS=3000 runs thousands.
const runs = Number(process.env.OSPREY_PROPERTY_RUNS ?? 300);
const depth = 4;
// A failing run's report names its seed; OSPREY_PROPERTY_SEED runs that case again. A run that outlasts its time
// (a clause the database plans badly) fails with that report rather than at lab's timeout, which names nothing.
const reproducible = {
    ...process.env.OSPREY_PROPERTY_SEED ? { seed: Number(process.env.OSPREY_PROPERTY_SEED) } : {},
    interruptAfterTimeLimit: 40_000 + runs * 250,
    markInterruptAsFailure: true
};
const structures = ['MXAPIWODETAIL', 'MXAPIASSET'];

// Rows the demo data lacks: nulls in attributes it always fills, an empty string (stored as null), text with
// %, _, \, quotes, a tab and letters beyond ASCII, a zero and a negative number, and child rows with nulls.
const extraWorkOrders = [
    { siteid: 'BEDFORD', description: '50% off_a\\b "quoted"' },
    { siteid: 'NASHUA', description: '', worktype: 'em', wopriority: 0, estdur: 0, woactivity: [{ taskid: 10 }, { taskid: 20, description: 'lower case step', estdur: 4 }] },
    { siteid: 'BEDFORD', description: 'leaking SEAL, lower-case', wopriority: -3, estdur: 2.25, schedstart: '2026-01-05T08:00:00-05:00', location: 'BR120' },
    { siteid: 'NASHUA', description: 'Tab\tand 100%', worktype: 'PM', wplabor: [{ laborcode: 'wilson' }] },
    { siteid: 'BEDFORD', description: 'Überprüfung der Émission', lead: 'élodie' }
];

// One clause per form of the AST, easy to read when it fails. The reference reads these through the server's
// parser; the random clauses are built as ASTs and printed, independently of it. 'may refuse': a 400 is as
// good an answer as the reference's rows (years beyond 0000-9999), a 500 or other rows are not.
const fixed: [string, string, ('opmodeor' | 'may refuse')?][] = [
    ['MXAPIWODETAIL', 'status="APPR"'],
    ['MXAPIWODETAIL', 'status="appr"'],
    ['MXAPIWODETAIL', 'wonum=1005'],
    ['MXAPIWODETAIL', 'description>="Noisy" and description<"Overheating"'],
    ['MXAPIWODETAIL', 'lead="élodie"'],
    ['MXAPIWODETAIL', 'lead>"ZZZ"'],
    ['MXAPIWODETAIL', 'wopriority>=4'],
    ['MXAPIWODETAIL', 'wopriority!=3'],
    ['MXAPIWODETAIL', 'wopriority>2.5'],
    ['MXAPIWODETAIL', 'wopriority in [1.5, 2]'],
    ['MXAPIWODETAIL', 'estdur<2.5'],
    ['MXAPIWODETAIL', 'estdur="3"'],
    ['MXAPIWODETAIL', 'reportdate>="2025-10-01"'],
    ['MXAPIWODETAIL', 'reportdate<"2025-10-01T00:00:00-04:00"'],
    ['MXAPIWODETAIL', 'reportdate>"2025-10-01T12:00:00"'],
    ['MXAPIWODETAIL', 'reportdate<"2025-05-01T21:00:00.500Z"'],
    ['MXAPIWODETAIL', 'reportdate="2025-05-01T21:00:00.500Z"'],
    ['MXAPIWODETAIL', 'reportdate>"2025-05-01T21:00:00+0530"'],
    ['MXAPIWODETAIL', 'reportdate>"0099-01-01T00:00:00Z"'],
    ['MXAPIWODETAIL', 'reportdate<"+010000-01-01T00:00:00Z"', 'may refuse'],
    ['MXAPIWODETAIL', 'reportdate>"-000001-01-01T00:00:00Z"', 'may refuse'],
    ['MXAPIASSET', 'installdate<"+010000-01-01"', 'may refuse'],
    ['MXAPIWODETAIL', 'schedstart="*"'],
    ['MXAPIWODETAIL', 'schedstart!="*"'],
    ['MXAPIWODETAIL', 'description="*"'],
    ['MXAPIWODETAIL', 'worktype!="EM"'],
    ['MXAPIWODETAIL', 'not worktype="EM"'],
    ['MXAPIWODETAIL', 'worktype="[EM,CP]"'],
    ['MXAPIWODETAIL', 'worktype!="[EM,CP]"'],
    ['MXAPIWODETAIL', 'worktype in ["em", "cp"]'],
    ['MXAPIWODETAIL', 'worktype not in ["EM"]'],
    ['MXAPIWODETAIL', 'description="%seal%"'],
    ['MXAPIWODETAIL', 'description!="%SEAL%"'],
    ['MXAPIWODETAIL', 'description="%f_a\\\\b%"'],
    ['MXAPIWODETAIL', 'description="%o_f%"'],
    ['MXAPIWODETAIL', 'description="%\\"quoted\\""'],
    ['MXAPIWODETAIL', 'description="%"'],
    ['MXAPIWODETAIL', 'description="%émission%"'],
    ['MXAPIWODETAIL', 'description="%ÉMISSION%"'],
    ['MXAPIWODETAIL', 'status="APPR" and wopriority>3'],
    ['MXAPIWODETAIL', 'status="APPR" or not wopriority>3'],
    ['MXAPIWODETAIL', 'not (status="APPR" or worktype="PM")'],
    ['MXAPIWODETAIL', 'status="APPR" and worktype="EM"', 'opmodeor'],
    ['MXAPIWODETAIL', 'woactivity{status="COMP" and estdur>1}'],
    ['MXAPIWODETAIL', 'woactivity{status="COMP" and estdur>1}', 'opmodeor'],
    ['MXAPIWODETAIL', 'not woactivity{estdur>3}'],
    ['MXAPIWODETAIL', 'woactivity.estdur>3'],
    ['MXAPIWODETAIL', 'not woactivity.description="*"'],
    ['MXAPIWODETAIL', 'asset.status="BROKEN"'],
    ['MXAPIWODETAIL', 'not asset.status="BROKEN"'],
    ['MXAPIWODETAIL', 'location.status="DECOMMISSIONED"'],
    ['MXAPIWODETAIL', 'asset.location.status="OPERATING"'],
    ['MXAPIWODETAIL', 'asset{isrunning=true and priority<3}'],
    ['MXAPIWODETAIL', 'ownerperson.status="INACTIVE"'],
    ['MXAPIWODETAIL', 'wplabor{craft="ELECT"} and wostatus.status="CAN"'],
    ['MXAPIWODETAIL', 'asset.openwo.woactivity.taskid>=20.5'],
    ['MXAPIASSET', 'isrunning=true'],
    ['MXAPIASSET', 'isrunning!="N"'],
    ['MXAPIASSET', 'isrunning<1'],
    ['MXAPIASSET', 'installdate>="2024-01-01"'],
    ['MXAPIASSET', 'installdate<"2023-12-31T20:00:00-04:00"'],
    ['MXAPIASSET', 'parent="*"'],
    ['MXAPIASSET', 'parent!="*" and parentasset.status="BROKEN"'],
    ['MXAPIASSET', 'assetmeter{metername="TEMP-F" and lastreading>150}'],
    ['MXAPIASSET', 'openwo{worktype="EM"}'],
    ['MXAPIASSET', 'location.assets.status="BROKEN"'],
    ['MXAPIASSET', 'purchaseprice>100000 and purchaseprice<=200000.5'],
    ['MXAPIASSET', 'priority="[1,5]" or not openwo.ownerperson{personid="%-%"}', 'opmodeor']
];

const keys: Record<string, string[]> = { MXAPIWODETAIL: ['siteid', 'wonum'], MXAPIASSET: ['siteid', 'assetnum'] };

onEachDatabase(lab, 'oslc.where agrees with a reference evaluator', (t) => {

    let reference: Reference;
    let generator: WhereGenerator;

    before({ timeout: 60_000 }, async () => {

        for (const payload of extraWorkOrders) {
            const res = await t.inject({ method: 'POST', url: '/maximo/oslc/os/mxapiwodetail', headers: wilson, payload });
            expect(res.statusCode, res.payload).to.equal(201);
        }

        const osprey = t.server.app.osprey;
        reference = await new Reference(osprey.registry).load(osprey.knex);
        generator = new WhereGenerator(osprey.registry, reference);
    });

    const describe = (check: WhereCase) => `${check.os} where ${check.text}${check.opmodeor ? ' (opmodeor=1)' : ''}`;

    const request = async (check: WhereCase, extra: string) => {

        const pk = keys[check.os]!;
        const url = `/maximo/oslc/os/${check.os.toLowerCase()}?oslc.where=${encodeURIComponent(check.text)}&oslc.select=${pk.join(',')}&oslc.pageSize=1000${check.opmodeor ? '&opmodeor=1' : ''}${extra}`;
        return await t.inject({ url, headers: wilson });
    };

    const ok = (check: WhereCase, res: Awaited<ReturnType<typeof request>>) => {

        if (res.statusCode !== 200) {
            throw new Error(`${describe(check)}: ${res.statusCode} ${res.payload}`);
        }

        return res.result;
    };

    // Throws, with both sides' differences, when the server and the reference disagree.
    const agree = async (check: WhereCase, mayRefuse = false) => {

        const pk = keys[check.os]!;
        const where: Where = check.opmodeor ? orMode(check.where) : check.where;
        const expected = new Set(reference.select(check.os, where).map((row) => reference.key(check.os, row)));
        const res = await request(check, '');
        if (mayRefuse && res.statusCode === 400) {
            return;
        }

        const page = ok(check, res);
        const actual = new Set((page.member as Record<string, unknown>[]).map((member) => pk.map((name) => member[name]).join('/')));
        const missing = [...expected].filter((key) => !actual.has(key));
        const extra = [...actual].filter((key) => !expected.has(key));
        if (missing.length || extra.length || page.responseInfo.nextPage) {
            throw new Error(`${describe(check)}: the server returned ${actual.size} rows, the reference ${expected.size}; ` +
                `only the reference has ${missing.length} (${missing.slice(0, 5).join(' ')}), only the server ${extra.length} (${extra.slice(0, 5).join(' ')})`);
        }

        const counted = ok(check, await request(check, '&count=1'));
        if (counted.totalCount !== expected.size) {
            throw new Error(`${describe(check)}: count=1 gives ${counted.totalCount}, the reference ${expected.size}`);
        }
    };

    for (const [os, text, flag] of fixed) {
        test(`${os} ${text}${flag ? ` (${flag})` : ''}`, async () => {

            await agree(whereCase(os, parseWhere(text), flag === 'opmodeor'), flag === 'may refuse');
        });
    }

    // Greedily simpler clauses that still fail, from fast-check's counterexample: the report's minimal where.
    const minimize = async (found: WhereCase) => {

        const failure = async (check: WhereCase) => {

            try {
                await agree(check);
                return undefined;
            }
            catch (error) {
                return error as Error;
            }
        };

        let current = found;
        let error = await failure(current);
        let progress = true;
        while (progress) {
            progress = false;
            const candidates = [...(current.opmodeor ? [whereCase(current.os, current.where, false)] : []), ...simpler(current.where).map((where) => whereCase(current.os, where, current.opmodeor))];
            for (const candidate of candidates) {
                const again = await failure(candidate);
                if (again) {
                    [current, error, progress] = [candidate, again, true];
                    break;
                }
            }
        }

        return error?.message;
    };

    // Checks `runs` cases against the reference; more than `share` of them must select some rows but not all, or the
    // comparison proves little. A failure reports fast-check's counterexample and its greedily minimal where.
    const agreeOver = async (cases: fc.Arbitrary<WhereCase>, share: number) => {

        const sizes = { empty: 0, all: 0, some: 0 };
        const details = await fc.check(fc.asyncProperty(cases, async (check) => {

            const total = reference.rows(reference.registry.get(check.os)!.root).length;
            const selected = reference.select(check.os, check.opmodeor ? orMode(check.where) : check.where).length;
            ++sizes[selected === 0 ? 'empty' : selected === total ? 'all' : 'some'];
            await agree(check);
        }), { numRuns: runs, includeErrorInReport: true, ...reproducible });

        if (details.failed && details.counterexample) {
            throw new Error(`${fc.defaultReportMessage(details)}\n\nMinimal: ${await minimize(details.counterexample[0])}`);
        }

        expect(details.failed, fc.defaultReportMessage(details)).to.be.false();
        expect(sizes.some, JSON.stringify(sizes)).to.be.above(runs * share);
    };

    test(`${runs} random where clauses (depth ≤ ${depth}) return the rows the reference selects`, { timeout: 60_000 + runs * 300 }, async () => {

        await agreeOver(generator.cases(structures, depth), 1 / 3);
    });

    // OR-ed terms on one attribute or through one relation or child are compiled as one test: LIKE ANY on PostgreSQL,
    // osprey_like_any on SQLite (src/db/like-any.ts), one EXISTS for the hop. The same rows as the reference's.
    test(`${runs} random ORs of terms that test the same thing return the rows the reference selects`, { timeout: 60_000 + runs * 300 }, async () => {

        await agreeOver(fc.oneof(...structures.map((os) => fc.tuple(generator.alternatives(os), fc.nat(4)).map(([where, mode]) => whereCase(os, where, mode === 4)))), 1 / 4);
    });

    // Random orderings (with a random where) come back in the reference's order, nulls and ties included.
    test(`${Math.ceil(runs / 3)} random orderings return rows in the reference's order`, { timeout: 60_000 + runs * 300 }, async () => {

        const orderings = structures.map((os) => {

            const names = reference.registry.get(os)!.root.columns.filter((attr) => !attr.secret && attr.type !== 'clob').map((attr) => attr.name);
            const term = fc.record({ name: fc.constantFrom(...names), direction: fc.constantFrom('asc' as const, 'desc' as const) });
            return fc.tuple(generator.where(os, 2), fc.uniqueArray(term, { minLength: 1, maxLength: 3, selector: (one) => one.name })).map(([where, terms]) => ({ os, where, terms }));
        });

        const details = await fc.check(fc.asyncProperty(fc.oneof(...orderings), async ({ os, where, terms }) => {

            const check = whereCase(os, where, false);
            const orderBy = terms.map(({ name, direction }) => `${direction === 'asc' ? '%2B' : '-'}${name}`).join(',');
            const page = ok(check, await request(check, `&oslc.orderBy=${orderBy}`));
            const expected = reference.order(os, reference.select(os, where), terms).map((row) => reference.key(os, row));
            const actual = (page.member as Record<string, unknown>[]).map((member) => keys[os]!.map((name) => member[name]).join('/'));
            expect(actual, `${describe(check)} ordered by ${decodeURIComponent(orderBy)}`).to.equal(expected);
        }), { numRuns: Math.ceil(runs / 3), includeErrorInReport: true, ...reproducible });

        expect(details.failed, fc.defaultReportMessage(details)).to.be.false();
    });
});
