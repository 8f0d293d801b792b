import * as Code from '@hapi/code';
import * as Lab from '@hapi/lab';

import { onEachDatabase } from '../helpers/experiments';
import { maxadmin } from '../helpers/server';


const lab = exports.lab = Lab.script();
const { test } = lab;
const { expect } = Code;

// Issue 18, seen 12: dates outside 0001–9999 and text that is not well-formed Unicode are refused in a body;
// early years are written with four digits, so a record reads back by its own Location and sends back as read.

const wos = '/maximo/oslc/os/mxapiwodetail';
const assets = '/maximo/oslc/os/mxapiasset';

onEachDatabase(lab, 'dates and text in bodies', (t) => {

    const count = async (url: string) => (await t.inject({ url: `${url}?count=1`, headers: maxadmin })).result.totalCount as number;

    test('a datetime or date outside the years 0001 to 9999 is a 400 that names the attribute, and nothing is written', async () => {

        const before = await count(wos);
        for (const value of ['0000-06-01T00:00:00Z', '+010000-01-01T00:00:00Z', '-000001-01-01T00:00:00Z']) {
            const res = await t.inject({ method: 'POST', url: wos, headers: maxadmin, payload: { siteid: 'BEDFORD', description: 'bad year', targstartdate: value } });
            expect(res.statusCode, value).to.equal(400);
            expect(res.result.Error.message).to.contain('TARGSTARTDATE');
            expect(res.result.Error.message).to.contain('0001 to 9999');
        }

        const date = await t.inject({ method: 'POST', url: assets, headers: maxadmin, payload: { siteid: 'BEDFORD', assetnum: 'Y10K', description: 'bad year', installdate: '10000-01-01' } });
        expect(date.statusCode).to.equal(400);
        expect(await count(wos)).to.equal(before);
    });

    test('a day its month does not have is refused, not rolled into the next month', async () => {

        const bad = await t.inject({ method: 'POST', url: assets, headers: maxadmin, payload: { siteid: 'BEDFORD', assetnum: 'FEB30', description: 'no such day', installdate: '2024-02-30' } });
        expect(bad.statusCode).to.equal(400);
        expect(bad.result.Error.message).to.contain('a day its month does not have');
        const badTime = await t.inject({ method: 'POST', url: wos, headers: maxadmin, payload: { siteid: 'BEDFORD', description: 'no such day', targstartdate: '2023-02-29T10:00:00Z' } });
        expect(badTime.statusCode).to.equal(400);
        const leap = await t.inject({ method: 'POST', url: `${assets}?properties=installdate`, headers: maxadmin, payload: { siteid: 'BEDFORD', assetnum: 'FEB29', description: 'leap day', installdate: '2024-02-29' } });
        expect(leap.statusCode).to.equal(201);
        expect(leap.result.installdate).to.equal('2024-02-29T00:00:00+00:00');
    });

    test('a date keeps the day its text names, whatever time and offset follow (found by a hostile probe: 5 March was stored for 4 March 23:30 -05:00)', async () => {

        const sent = ['2025-03-04', '2025-03-04T23:30:00-05:00', '2025-03-04T00:30:00+09:00', '2025-03-04T00:00:00+00:00', '2025-03-04T10:00:00.5Z'];
        for (const [i, installdate] of sent.entries()) {
            const made = await t.inject({ method: 'POST', url: `${assets}?properties=installdate`, headers: maxadmin, payload: { siteid: 'BEDFORD', assetnum: `DAY${i}`, description: 'written day', installdate } });
            expect(made.statusCode, made.payload).to.equal(201);
            expect(made.result.installdate, installdate).to.equal('2025-03-04T00:00:00+00:00');
            const read = await t.inject({ url: `${assets}?oslc.where=assetnum="DAY${i}" and installdate="2025-03-04"&oslc.select=installdate`, headers: maxadmin });
            expect(read.result.member.map((member: { installdate: string }) => member.installdate), installdate).to.equal(['2025-03-04T00:00:00+00:00']);
        }

        // A datetime is still the instant it names.
        const instant = await t.inject({ method: 'POST', url: `${wos}?properties=targstartdate`, headers: maxadmin, payload: { siteid: 'BEDFORD', description: 'instant', targstartdate: '2025-03-04T23:30:00-05:00' } });
        expect(instant.result.targstartdate).to.equal('2025-03-05T04:30:00+00:00');
    });

    test('an early year is written with four digits and reads back by its Location, and again after a round trip', async () => {

        const created = await t.inject({ method: 'POST', url: `${wos}?properties=targstartdate`, headers: maxadmin, payload: { siteid: 'BEDFORD', description: 'early', targstartdate: '0099-05-01T10:00:00Z' } });
        expect(created.statusCode).to.equal(201);
        expect(created.result.targstartdate).to.equal('0099-05-01T10:00:00+00:00');
        const read = await t.inject({ url: String(created.headers.location).replace('http://127.0.0.1:8080', ''), headers: maxadmin });
        expect(read.statusCode).to.equal(200);
        expect(read.result.targstartdate).to.equal('0099-05-01T10:00:00+00:00');

        // What was read is accepted when sent back.
        const patched = await t.inject({ method: 'PATCH', url: String(created.headers.location).replace('http://127.0.0.1:8080', ''), headers: { ...maxadmin, properties: 'targstartdate' }, payload: { targstartdate: read.result.targstartdate } });
        expect(patched.statusCode).to.equal(200);
        expect(patched.result.targstartdate).to.equal('0099-05-01T10:00:00+00:00');

        const asset = await t.inject({ method: 'POST', url: `${assets}?properties=installdate`, headers: maxadmin, payload: { siteid: 'BEDFORD', assetnum: 'EARLY1', description: 'early', installdate: '0007-02-03' } });
        expect(asset.statusCode).to.equal(201);
        expect(asset.result.installdate).to.equal('0007-02-03T00:00:00+00:00');
        const before = await t.inject({ url: `${wos}?oslc.where=targstartdate<"0100-01-01T00:00:00Z"&oslc.select=description`, headers: maxadmin });
        expect(before.result.member.map((member: { description: string }) => member.description)).to.equal(['early']);
    });

    test('text with a lone surrogate is a 400; well-formed text beyond the basic plane is kept', async () => {

        const before = await count(wos);
        for (const description of ['broken \ud800 text', 'broken \udc00 text', 'ends with \ud83d']) {
            const res = await t.inject({ method: 'POST', url: wos, headers: { ...maxadmin, 'content-type': 'application/json' }, payload: JSON.stringify({ siteid: 'BEDFORD', description }) });
            expect(res.statusCode).to.equal(400);
            expect(res.result.Error.message).to.contain('DESCRIPTION');
            expect(res.result.Error.message).to.contain('well-formed Unicode');
        }

        expect(await count(wos)).to.equal(before);
        const kept = await t.inject({ method: 'POST', url: `${wos}?properties=description`, headers: maxadmin, payload: { siteid: 'BEDFORD', description: 'pump 🛠️ ok' } });
        expect(kept.statusCode).to.equal(201);
        expect(kept.result.description).to.equal('pump 🛠️ ok');
    });
});
