import * as Code from '@hapi/code';
import * as Lab from '@hapi/lab';

import { onEachDatabase } from '../helpers/experiments';
import { wilson } from '../helpers/server';
import { snapshot } from '../helpers/tables';


const lab = exports.lab = Lab.script();
const { test } = lab;
const { expect } = Code;

// Attachments are not served yet: no record advertises a doclinks href (it would answer 404), and a write
// that carries doclinks is refused whole instead of being stored without them.

const wos = '/maximo/oslc/os/mxapiwodetail';

onEachDatabase(lab, 'doclinks until attachments exist', (t) => {

    test('no record, child collection or schema advertises doclinks', async () => {

        const record = await t.inject({ url: `${wos}/_QkVERk9SRC8xMDA0`, headers: wilson });
        expect(record.statusCode).to.equal(200);
        expect(record.result.doclinks).to.not.exist();
        expect(record.result.woactivity_collectionref).to.exist();
        const page = await t.inject({ url: `${wos}?oslc.select=*&oslc.pageSize=3`, headers: wilson });
        expect(page.result.member.every((member: Record<string, unknown>) => member.doclinks === undefined)).to.be.true();
        const link = await t.inject({ url: `${wos}/_QkVERk9SRC8xMDA0/doclinks`, headers: wilson });
        expect(link.statusCode).to.equal(404);
    });

    test('a create or update with inline doclinks is refused and writes nothing', async () => {

        const earlier = await snapshot(t);
        const create = await t.inject({ method: 'POST', url: wos, headers: wilson, payload: { siteid: 'BEDFORD', description: 'With a file', doclinks: [{ urltype: 'FILE', documentdata: 'aGVsbG8=', document: 'a.txt' }] } });
        expect(create.statusCode).to.equal(400);
        expect(create.result.Error.message).to.contain('doclinks');
        expect(create.result.Error.message).to.contain('not supported');
        const update = await t.inject({ method: 'PATCH', url: `${wos}/_QkVERk9SRC8xMDA0`, headers: { ...wilson, patchtype: 'MERGE' }, payload: { description: 'x', doclinks: [{ document: 'a.txt' }] } });
        expect(update.statusCode).to.equal(400);
        expect(await snapshot(t)).to.equal(earlier);
    });
});
