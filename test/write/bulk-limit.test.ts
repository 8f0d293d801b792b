import * as Code from '@hapi/code';
import * as Lab from '@hapi/lab';

import { onEachDatabase } from '../helpers/experiments';
import { wilson } from '../helpers/server';


const lab = exports.lab = Lab.script();
const { test } = lab;
const { expect } = Code;

const wos = '/maximo/oslc/os/mxapiwodetail';
const bulk = { ...wilson, 'x-method-override': 'BULK' };

// OSPREY_MAX_BULK_ITEMS bounds the items of one BULK, of records and of actions alike: a bulk above it is refused
// whole, before any item is read or written.
onEachDatabase(lab, 'the bulk item limit', { settings: { maxBulkItems: 2 } }, (t) => {

    const count = async () => (await t.inject({ url: `${wos}?count=1`, headers: wilson })).result.totalCount;

    test('a bulk above it is a 400 naming the setting, and nothing is written; at the limit it runs', async () => {

        const before = await count();
        const items = (n: number) => Array.from({ length: n }, (_, i) => ({ siteid: 'BEDFORD', description: `Limited ${i}` }));
        const over = await t.inject({ method: 'POST', url: wos, headers: bulk, payload: items(3) });
        expect(over.statusCode).to.equal(400);
        expect(String(over.result.Error.message)).to.endWith('The BULK request has 3 items; at most 2 are taken in one request (OSPREY_MAX_BULK_ITEMS). Send them in several bulks; nothing was written.');
        expect(await count()).to.equal(before);

        const action = await t.inject({ method: 'POST', url: `${wos}?action=wsmethod:changeStatus`, headers: bulk, payload: [{}, {}, {}] });
        expect(action.statusCode).to.equal(400);
        expect(action.result.Error.message).to.contain('(OSPREY_MAX_BULK_ITEMS)');

        const notArray = await t.inject({ method: 'POST', url: wos, headers: bulk, payload: { siteid: 'BEDFORD' } });
        expect(String(notArray.result.Error.message)).to.endWith('The body of a BULK request is a JSON array of records.');

        const at = await t.inject({ method: 'POST', url: wos, headers: bulk, payload: items(2) });
        expect(at.result.map((item: any) => item._responsemeta.status)).to.equal(['201', '201']);
        expect(await count()).to.equal(before + 2);
    });
});
