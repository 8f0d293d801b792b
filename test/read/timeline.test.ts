import * as Code from '@hapi/code';
import * as Lab from '@hapi/lab';

import { parseTimelineAttribute, parseTimelineRange } from '../../src/read/parse/timeline';
import { onEachDatabase } from '../helpers/experiments';
import { maxadmin, wilson } from '../helpers/server';
import { tableCount } from '../helpers/tables';
import { expectQueryError } from './helpers';


const lab = exports.lab = Lab.script();
const { experiment, test, before } = lab;
const { expect } = Code;

const iso = (date: Date) => date.toISOString();

experiment('tlrange and tlattribute parsers', () => {

    const index = new Date('2024-03-31T10:20:30.000Z');
    const range = (text: string, at = index) => {

        const { from, to } = parseTimelineRange(text, at);
        return [iso(from), iso(to)];
    };

    test('a sign, a whole number and a unit count from the index date, both ends included', () => {

        expect(range('-3M')).to.equal(['2023-12-31T10:20:30.000Z', '2024-03-31T10:20:30.000Z']);
        expect(range('+3M')).to.equal(['2024-03-31T10:20:30.000Z', '2024-06-30T10:20:30.000Z']);
        expect(range('+-1Y')).to.equal(['2023-03-31T10:20:30.000Z', '2025-03-31T10:20:30.000Z']);
        expect(range('-2W')).to.equal(['2024-03-17T10:20:30.000Z', '2024-03-31T10:20:30.000Z']);
        expect(range('-7D')).to.equal(['2024-03-24T10:20:30.000Z', '2024-03-31T10:20:30.000Z']);
        expect(range('+0D')).to.equal(['2024-03-31T10:20:30.000Z', '2024-03-31T10:20:30.000Z']);
        // A day the target month lacks becomes its last; years move the calendar too.
        expect(range('-1M')).to.equal(['2024-02-29T10:20:30.000Z', '2024-03-31T10:20:30.000Z']);
        expect(range('+-1Y', new Date('2024-02-29T00:00:00Z'))).to.equal(['2023-02-28T00:00:00.000Z', '2025-02-28T00:00:00.000Z']);
        expect(range('-13M')).to.equal(['2023-02-28T10:20:30.000Z', '2024-03-31T10:20:30.000Z']);
        // `+` decodes to a space in a URL query.
        expect(range(' 3M')).to.equal(range('+3M'));
        expect(range(' -3M')).to.equal(range('+-3M'));
    });

    test('anything else is refused naming tlrange and the column', () => {

        const expected = (text: string) => `expected a sign (-, + or +-), a whole number and a unit (Y, M, W or D), such as -3M or +-1Y; found ${JSON.stringify(text)}`;
        for (const text of ['3M', '-M', '-1.5M', '--3M', '-+3M', '-3MM', '', '-12345D', '-3 M']) {
            expectQueryError(() => parseTimelineRange(text, index), 'tlrange', 1, expected(text));
        }

        expectQueryError(() => parseTimelineRange('-3', index), 'tlrange', 3, 'expected a unit: Y (years), M (months), W (weeks) or D (days); found ""');
        expectQueryError(() => parseTimelineRange('-3m', index), 'tlrange', 3, 'expected a unit: Y (years), M (months), W (weeks) or D (days); found "m"');
        expectQueryError(() => parseTimelineRange('+-10X', index), 'tlrange', 5, 'expected a unit: Y (years), M (months), W (weeks) or D (days); found "X"');
        expectQueryError(() => parseTimelineRange('-9999Y', index), 'tlrange', 1, '-9999Y reaches beyond the years 0001-9999');
        expectQueryError(() => parseTimelineRange('+1D', new Date('9999-12-31T12:00:00Z')), 'tlrange', 1, '+1D reaches beyond the years 0001-9999');
    });

    test('tlattribute is a name, optionally with an ISO 8601 index date', () => {

        expect(parseTimelineAttribute('ReportDate')).to.equal({ name: 'reportdate' });
        expect(parseTimelineAttribute(' reportdate ')).to.equal({ name: 'reportdate' });
        const at = (text: string) => iso(parseTimelineAttribute(`reportdate=${text}`).index!);
        expect(at('2024-06-30')).to.equal('2024-06-30T00:00:00.000Z');
        expect(at('2024-06-30T12:00')).to.equal('2024-06-30T12:00:00.000Z');
        expect(at('2024-06-30T12:00:05Z')).to.equal('2024-06-30T12:00:05.000Z');
        expect(at('2024-06-30T12:00:05.25Z')).to.equal('2024-06-30T12:00:05.250Z');
        expect(at('2024-06-30T12:00:00-05:00')).to.equal('2024-06-30T17:00:00.000Z');
        expect(at('2024-06-30T12:00:00 02:00')).to.equal('2024-06-30T10:00:00.000Z');
        expect(at('2024-06-30T01:00:00+0230')).to.equal('2024-06-29T22:30:00.000Z');
        expect(at('"2024-06-30"')).to.equal('2024-06-30T00:00:00.000Z');
        expect(at('0050-01-01')).to.equal('0050-01-01T00:00:00.000Z');
        expect(at('2023-03-01T00:30:00+01:00')).to.equal('2023-02-28T23:30:00.000Z');
    });

    test('a bad name or date is refused naming tlattribute and the column', () => {

        for (const text of ['', '1date', 'report date', 'asset.installdate', '=2024-01-01']) {
            expectQueryError(() => parseTimelineAttribute(text), 'tlattribute', 1, `expected the name of a date attribute, optionally followed by "=" and an ISO 8601 date; found ${JSON.stringify(text)}`);
        }

        for (const text of ['yesterday', '2024-02-30', '2023-02-29', '2024-13-01', '2024-00-10', '2024-01-00', '2024-01-01T24:00', '2024-01-01T10:60', '2024-01-01T10:00:60', '0000-01-01', '2024-1-1', '']) {
            expectQueryError(() => parseTimelineAttribute(`reportdate=${text}`), 'tlattribute', 12, `expected an ISO 8601 date such as 2024-06-30 or 2024-06-30T12:00:00Z after "="; found ${JSON.stringify(text)}`);
        }

        expectQueryError(() => parseTimelineAttribute('reportdate=0001-01-01T00:30:00+01:00'), 'tlattribute', 12, 'expected an ISO 8601 date such as 2024-06-30 or 2024-06-30T12:00:00Z after "="; found "0001-01-01T00:30:00+01:00"');
    });
});

const days = 86_400_000;

onEachDatabase(lab, 'timeline filters through HTTP', (t) => {

    const wos = '/maximo/oslc/os/mxapiwodetail';
    const offsets = [-400, -100, -40, -10, -3, 3, 10, 40, 400];
    const wonums = new Map<number, string>();
    let now: number;
    before(async () => {

        now = Date.now();
        for (const offset of offsets) {
            const reportdate = new Date(now + offset * days).toISOString();
            const res = await t.inject({ method: 'POST', url: wos, headers: { ...wilson, properties: 'wonum' }, payload: { siteid: 'BEDFORD', lead: 'TIMELINE', description: `${offset} days`, reportdate, schedstart: reportdate } });
            expect(res.statusCode, res.payload).to.equal(201);
            wonums.set(offset, res.result.wonum);
        }
    });

    const get = (url: string, headers = wilson) => t.inject({ url, headers });
    const mine = encodeURIComponent('lead="TIMELINE"');
    // The work orders created above that a query returns, as their offsets in days, in the order served.
    const offsetsOf = async (query: string) => {

        const res = await get(`${wos}?oslc.where=${mine}&oslc.select=wonum&oslc.orderBy=%2Breportdate&oslc.pageSize=100&${query}`);
        expect(res.statusCode, res.payload).to.equal(200);
        return res.result.member.map((member: any) => offsets.find((offset) => wonums.get(offset) === member.wonum));
    };

    test('tlrange with tlattribute keeps the rows whose date lies in the range around now', async () => {

        expect(await offsetsOf('tlrange=-7D&tlattribute=reportdate')).to.equal([-3]);
        expect(await offsetsOf('tlrange=-2W&tlattribute=reportdate')).to.equal([-10, -3]);
        expect(await offsetsOf('tlrange=-1M&tlattribute=reportdate')).to.equal([-10, -3]);
        expect(await offsetsOf('tlrange=-6M&tlattribute=ReportDate')).to.equal([-100, -40, -10, -3]);
        expect(await offsetsOf('tlrange=-1Y&tlattribute=reportdate')).to.equal([-100, -40, -10, -3]);
        expect(await offsetsOf('tlrange=%2B7D&tlattribute=reportdate')).to.equal([3]);
        expect(await offsetsOf('tlrange=+2W&tlattribute=reportdate')).to.equal([3, 10]);         // `+` arrives as a space
        expect(await offsetsOf('tlrange=%2B-1M&tlattribute=reportdate')).to.equal([-10, -3, 3, 10]);
        expect(await offsetsOf('tlrange=+-2Y&tlattribute=schedstart')).to.equal(offsets);
        expect(await offsetsOf('tlrange=-1Y&tlattribute=schedstart&opmode=or')).to.equal([-100, -40, -10, -3]);
    });

    test('tlattribute=attr=date indexes the range on that date; the range is AND-ed with the where', async () => {

        const at = (offset: number) => encodeURIComponent(new Date(now + offset * days).toISOString());
        expect(await offsetsOf(`tlrange=%2B-7D&tlattribute=reportdate=${at(-100)}`)).to.equal([-100]);
        expect(await offsetsOf(`tlrange=-2M&tlattribute=reportdate=${at(-40)}`)).to.equal([-100, -40]);
        expect(await offsetsOf(`tlrange=%2B1Y&tlattribute=reportdate=${at(-500)}`)).to.equal([-400]);
        const res = await get(`${wos}?oslc.where=${encodeURIComponent('lead="TIMELINE" and description="-3 days"')}&tlrange=-1M&tlattribute=reportdate&count=1`);
        expect(res.result).to.equal({ totalCount: 1 });
        // Counts, distinct and group-by read the same rows.
        const count = await get(`${wos}?oslc.where=${mine}&tlrange=-1M&tlattribute=reportdate&collectioncount=1&oslc.pageSize=1`);
        expect(count.result.responseInfo.totalCount).to.equal(2);
        expect(count.result.responseInfo.nextPage.href).to.contain('tlrange=-1M');
        const distinct = await get(`${wos}?oslc.where=${mine}&tlrange=%2B-2W&tlattribute=reportdate&distinct=description`);
        expect(distinct.result).to.equal(['-10 days', '-3 days', '10 days', '3 days']);
        const groups = await get(`${wos}?oslc.where=${mine}&tlrange=-1Y&tlattribute=reportdate&gbcols=lead,count.*`);
        expect(groups.result.map((group: any) => group.count)).to.equal([4]);
    });

    test('a date attribute compares by date; the demo assets carry installdate', async () => {

        const assets = '/maximo/oslc/os/mxapiasset';
        const res = await t.inject({ method: 'POST', url: assets, headers: { ...maxadmin, properties: 'assetnum' }, payload: { assetnum: 'TL1', siteid: 'BEDFORD', installdate: new Date(now - 5 * days).toISOString().slice(0, 10) } });
        expect(res.statusCode, res.payload).to.equal(201);
        const found = await get(`${assets}?oslc.where=${encodeURIComponent('assetnum="TL1"')}&tlrange=-5D&tlattribute=installdate&oslc.select=assetnum`);
        expect(found.result.member.map((member: any) => member.assetnum)).to.equal(['TL1']);
        const earlier = await get(`${assets}?oslc.where=${encodeURIComponent('assetnum="TL1"')}&tlrange=-4D&tlattribute=installdate&count=1`);
        expect(earlier.result).to.equal({ totalCount: 0 });
    });

    test('bad input is a 400 BMXAA8744E naming the parameter; never a 500', async () => {

        for (const [query, parameter, detail] of [
            ['tlrange=-3M', 'tlattribute', 'tlrange needs tlattribute'],
            ['tlattribute=reportdate', 'tlrange', 'tlattribute needs tlrange'],
            ['tlrange=3M&tlattribute=reportdate', 'tlrange', 'expected a sign'],
            ['tlrange=-3X&tlattribute=reportdate', 'tlrange', 'expected a unit'],
            ['tlrange=-9999Y&tlattribute=reportdate', 'tlrange', 'beyond the years'],
            ['tlrange=-3M&tlattribute=description', 'tlattribute', 'description is not a date attribute of WORKORDER'],
            ['tlrange=-3M&tlattribute=colour', 'tlattribute', 'colour is not a date attribute of WORKORDER'],
            ['tlrange=-3M&tlattribute=memo', 'tlattribute', 'memo is not a date attribute of WORKORDER'],
            ['tlrange=-3M&tlattribute=reportdate=someday', 'tlattribute', 'expected an ISO 8601 date'],
            ['tlrange=-3M&tlattribute=reportdate=2024-02-29T12:00:00%2B99:99', 'tlattribute', 'expected an ISO 8601 date'],
            ['tlrange=-3M&tlattribute=reportdate=2024-02-29T12:00:00-14:30', 'tlattribute', 'expected an ISO 8601 date'],
            ['tlrange=-3M&tlattribute=asset.installdate', 'tlattribute', 'expected the name of a date attribute']
        ]) {
            const res = await get(`${wos}?${query}`);
            expect(res.statusCode, query).to.equal(400);
            expect(res.result.Error.reasonCode, query).to.equal('BMXAA8744E');
            expect(String(res.result.Error.message), query).to.startWith(`BMXAA8744E - ${parameter}: `);
            expect(res.result.Error.message, query).to.contain(detail!);
        }

        const secret = await get('/maximo/oslc/os/mxapiapikey?tlrange=-1M&tlattribute=apikey', maxadmin);
        expect(secret.statusCode).to.equal(400);
        expect(String(secret.result.Error.message)).to.startWith('BMXAA8744E - tlattribute: APIKEYTOKEN.APIKEY is secret: ');
        const keys = await get('/maximo/oslc/os/mxapiapikey?tlrange=-1M&tlattribute=expirationdate&count=1', maxadmin);
        expect(keys.result).to.equal({ totalCount: 0 });

        // Empty values are no filter, as an empty oslc.where is none.
        expect((await get(`${wos}?tlrange=&tlattribute=&count=1`)).result).to.equal({ totalCount: await tableCount(t, 'workorder') });
    });
});
