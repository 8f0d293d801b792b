import * as Code from '@hapi/code';
import * as Lab from '@hapi/lab';

import { flag, flagOf } from '../src/http/flags';
import { onEachDatabase } from './helpers/experiments';
import { wilson } from './helpers/server';
import { tableCount } from './helpers/tables';


const lab = exports.lab = Lab.script();
const { experiment, test } = lab;
const { expect } = Code;

// A flag means the same to the parameter gate and to the handler that reads it: a value the gate lets through
// is never read as off when it says on, and a value that is no flag is refused by name.

const wos = '/maximo/oslc/os/mxapiwodetail';

experiment('flag values', () => {

    test('1/0/true/false in any case, a bare name on, anything else no flag', () => {

        for (const on of ['1', 'true', 'TRUE', 'True', '', 1, true, ['0', '1']]) {
            expect(flagOf(on), String(on)).to.be.true();
        }

        for (const off of ['0', 'false', 'FALSE', 0, false]) {
            expect(flagOf(off), String(off)).to.be.false();
        }

        for (const neither of ['yes', '2', 'on', undefined, null, {}]) {
            expect(flagOf(neither), String(neither)).to.be.undefined();
            expect(flag(neither)).to.be.false();
        }
    });
});

onEachDatabase(lab, 'flags through HTTP', (t) => {

    const get = (url: string, headers = {}) => t.inject({ url, headers: { ...wilson, ...headers } });

    test('upper-case values mean what lower-case ones do', async () => {

        const nulls = await get(`${wos}/_QkVERk9SRC8xMDAw?oslc.select=wonum,actfinish&_dropnulls=FALSE`);
        expect(nulls.statusCode).to.equal(200);
        expect(nulls.result).to.include({ actfinish: null });
        const relative = await get(`${wos}?oslc.pageSize=1&relativeuri=TRUE`);
        expect(relative.result.member[0].href.startsWith('http')).to.be.false();
        const counted = await get(`${wos}?oslc.pageSize=1&collectioncount=TRUE`);
        expect(counted.result.responseInfo.totalCount).to.equal(await tableCount(t, 'workorder'));
        const stable = await get(`${wos}?oslc.pageSize=1&stablepaging=TRUE`);
        expect(stable.result.responseInfo.nextPage.href).to.contain('stableId=');
        const or = await get(`${wos}?oslc.where=${encodeURIComponent('wonum="1000" and wonum="1001"')}&opmodeor=TRUE&count=1`);
        expect(or.result.totalCount as number).to.be.above(0);
    });

    test('a value that is no flag is a 400 naming the parameter or header, and nothing is written', async () => {

        for (const query of ['collectioncount=yes', 'count=2', 'opmodeor=yes', 'relativeuri=on', 'ignorecollectionref=yes', 'stablepaging=yes']) {
            const res = await get(`${wos}?${query}`);
            expect(res.statusCode, query).to.equal(400);
            expect(res.result.Error.message, query).to.contain(`${query.split('=')[0]} is 1 or 0`);
        }

        const write = await t.inject({ method: 'PATCH', url: `${wos}/_QkVERk9SRC8xMDAw`, headers: { ...wilson, batcherror: 'yes' }, payload: { description: 'never' } });
        expect(write.statusCode).to.equal(400);
        expect(write.result.Error.message).to.contain('batcherror is 1 or 0');
        const read = await get(`${wos}/_QkVERk9SRC8xMDAw?oslc.select=description`);
        expect(read.result.description).to.not.equal('never');
    });

    test('oslc.select and oslc.properties together are a 400: only one of them could be read', async () => {

        const both = await get(`${wos}/_QkVERk9SRC8xMDAw?oslc.select=wonum&oslc.properties=description`);
        expect(both.statusCode).to.equal(400);
        expect(both.result.Error.message).to.contain('oslc.properties and oslc.select');
        const one = await get(`${wos}/_QkVERk9SRC8xMDAw?oslc.properties=description`);
        expect(Object.keys(one.result)).to.include('description');
    });
});
