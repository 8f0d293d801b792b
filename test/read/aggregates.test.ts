import * as Code from '@hapi/code';
import * as Lab from '@hapi/lab';

import { onEachDatabase } from '../helpers/experiments';
import { wilson } from '../helpers/server';


const lab = exports.lab = Lab.script();
const { test } = lab;
const { expect } = Code;

// Aggregates over a record's rows (IBM's guide, "Database Aggregation functions"): `rel._dbcount` and
// `rel.attr._dbsum|_dbavg|_dbmax|_dbmin` render nested under the relation's name, as the guide shows
// (`"openwo": {"_dbcount": 17, "actlabhrs": {"_dbsum": 2.5, …}}`); an alias puts one at the top instead.

const wos = '/maximo/oslc/os/mxapiwodetail';

onEachDatabase(lab, 'aggregates of related rows', (t) => {

    const get = (url: string) => t.inject({ url, headers: wilson });
    const number = (value: unknown) => (value === null || value === undefined ? null : Number(value));

    test('nest under the child or relation they measure, each function beside the others', async () => {

        const select = 'wonum,siteid,woactivity._dbcount,woactivity.estdur._dbsum,woactivity.estdur._dbmax,woactivity.estdur._dbmin,wplabor.regularhrs._dbavg,rel.wplabor._dbcount';
        const res = await get(`${wos}?oslc.select=${encodeURIComponent(select)}&oslc.pageSize=40&oslc.orderBy=%2Bwonum`);
        expect(res.statusCode).to.equal(200);
        const knex = t.server.app.osprey.knex;
        for (const record of res.result.member) {
            const where = { parent: record.wonum, siteid: record.siteid };
            const [tasks] = await knex('woactivity').where(where).count({ n: '*' }).sum({ s: 'estdur' }).max({ x: 'estdur' }).min({ m: 'estdur' });
            const [labor] = await knex('wplabor').where({ wonum: record.wonum, siteid: record.siteid }).count({ n: '*' }).avg({ a: 'regularhrs' });
            expect(Object.keys(record)).to.equal(['href', '_rowstamp', 'wonum', 'siteid', 'woactivity', 'wplabor']);
            expect(record.woactivity).to.equal({ _dbcount: Number(tasks!.n), estdur: { _dbsum: number(tasks!.s), _dbmax: number(tasks!.x), _dbmin: number(tasks!.m) } });
            const rounded = (value: unknown) => (value === null ? null : Math.round(Number(value) * 1e6));
            expect(rounded(record.wplabor.regularhrs._dbavg)).to.equal(rounded(number(labor!.a)));
            expect(record.wplabor._dbcount).to.equal(Number(labor!.n));
        }

        // A record without rows counts 0 and sums nothing (null).
        const none = await get(`${wos}?oslc.select=${encodeURIComponent('wonum,woactivity._dbcount,woactivity.estdur._dbsum')}&oslc.where=${encodeURIComponent('not woactivity{taskid>0}')}&oslc.pageSize=1`);
        expect(none.result.member).to.have.length(1);
        expect(none.result.member[0].woactivity).to.equal({ _dbcount: 0, estdur: { _dbsum: null } });
    });

    test('of a 1:n relation, without rel., on one record; an alias puts the value at the top', async () => {

        const asset = await get('/maximo/oslc/os/mxapiasset/assetnum:11001|siteid:NASHUA?oslc.select=assetnum,rel.openwo._dbcount,openwo.wopriority._dbmax--highest,rel.openwo{wonum,wopriority}--open');
        expect(asset.statusCode).to.equal(200);
        const open = asset.result.open ?? [];
        expect(asset.result.openwo).to.equal({ _dbcount: open.length });
        const priorities = open.map((wo: any) => wo.wopriority).filter((value: unknown) => value !== undefined);
        expect(asset.result.highest).to.equal(priorities.length ? Math.max(...priorities) : null);
    });

    test('an aggregate that would nest where the select puts the rows or a value is refused, naming the way out', async () => {

        // The work order's location is an attribute and a relation: its value would be where the count nests.
        for (const [select, term] of [['woactivity{taskid},woactivity._dbcount', 'woactivity._dbcount'], ['wplabor.regularhrs._dbsum,wplabor', 'wplabor.regularhrs._dbsum'], ['rel.openwo{wonum},openwo._dbcount', 'openwo._dbcount'], ['location,location._dbcount', 'location._dbcount']] as const) {
            const url = select.includes('openwo') ? `/maximo/oslc/os/mxapiasset?oslc.select=${encodeURIComponent(select)}` : `${wos}?oslc.select=${encodeURIComponent(select)}`;
            const res = await get(url);
            expect(res.statusCode, select).to.equal(400);
            expect(res.result.Error.reasonCode).to.equal('BMXAA8744E');
            expect(res.result.Error.message, select).to.contain(`${term}--name`).and.to.contain(select.startsWith('location') ? 'for its value' : 'for its related rows');
        }

        // Every key has one owner: no alias lands on another item's key or on a key every record carries.
        const clashes: [string, string][] = [
            ['wonum,woactivity._dbcount--asset,asset._dbcount', 'asset._dbcount would nest in "asset"'],
            ['wonum,woactivity._dbcount,_weblink--woactivity', 'woactivity._dbcount would nest in "woactivity"'],
            ['wonum,woactivity._dbcount--_rowstamp', '"_rowstamp" is a key every record carries'],
            ['wonum,description--href', '"href" is a key every record carries'],
            ['wonum,woactivity._dbcount--wonum', '"wonum" is named twice'],
            ['description--wonum,wonum', '"wonum" is named twice'],
            ['woactivity{taskid}--wplabor,wplabor{craft}', '"wplabor" is named twice']
        ];
        for (const [select, text] of clashes) {
            const res = await get(`${wos}/_QkVERk9SRC8xMDAw?oslc.select=${encodeURIComponent(select)}`);
            expect(res.statusCode, select).to.equal(400);
            expect(res.result.Error.message, select).to.contain(text);
        }

        // Sums, averages and extremes are of numbers only: text and dates are refused, on both databases alike.
        for (const select of ['woactivity.description._dbsum', 'woactivity.schedstart._dbsum', 'woactivity.schedstart._dbavg', 'woactivity.description._dbmax']) {
            const res = await get(`${wos}/_QkVERk9SRC8xMDAw?oslc.select=${encodeURIComponent(select)}`);
            expect(res.statusCode, select).to.equal(400);
            expect(res.result.Error.message, select).to.contain('needs a number');
        }

        const twice = await get(`${wos}/_QkVERk9SRC8xMDAw?oslc.select=${encodeURIComponent('wonum,wonum,*,woactivity._dbcount,woactivity.estdur._dbsum')}`);
        expect(twice.statusCode).to.equal(200);
        expect(Object.keys(twice.result.woactivity)).to.equal(['_dbcount', 'estdur']);

        const aliased = await get(`${wos}/_QkVERk9SRC8xMDAw?oslc.select=${encodeURIComponent('woactivity{taskid},woactivity._dbcount--count')}`);
        expect(aliased.statusCode).to.equal(200);
        expect(aliased.result.count).to.equal(aliased.result.woactivity.length);
    });
});
