import * as Code from '@hapi/code';
import * as Lab from '@hapi/lab';

import { onEachDatabase } from '../helpers/experiments';
import { wilson } from '../helpers/server';
import { snapshot } from '../helpers/tables';


const lab = exports.lab = Lab.script();
const { test } = lab;
const { expect } = Code;

// A record links its documents as `"doclinks": {"href"}` (IBM's Java client finds them by it alone), and a
// record sent back with that link writes as if it were not there; a write that carries inline doclinks is
// refused whole instead of being stored without them.

const wos = '/maximo/oslc/os/mxapiwodetail';

onEachDatabase(lab, 'doclinks of a record', (t) => {

    test('a whole record links its documents; a selection, a child row and ignorecollectionref=1 do not', async () => {

        const record = await t.inject({ url: `${wos}/_QkVERk9SRC8xMDA0`, headers: wilson });
        expect(record.statusCode).to.equal(200);
        expect(record.result.doclinks).to.equal({ href: `${record.result.href}/doclinks` });
        const page = await t.inject({ url: `${wos}?oslc.select=*&oslc.pageSize=3`, headers: wilson });
        expect(page.result.member.every((member: Record<string, unknown>) => (member.doclinks as { href: string }).href === `${member.href as string}/doclinks`)).to.be.true();
        const selected = await t.inject({ url: `${wos}/_QkVERk9SRC8xMDA0?oslc.select=wonum,woactivity{*}`, headers: wilson });
        expect(selected.result.doclinks).to.not.exist();
        expect(selected.result.woactivity.every((task: Record<string, unknown>) => task.doclinks === undefined)).to.be.true();
        const ignored = await t.inject({ url: `${wos}/_QkVERk9SRC8xMDA0?ignorecollectionref=1`, headers: wilson });
        expect(ignored.result.doclinks).to.not.exist();
        const link = await t.inject({ url: String(record.result.doclinks.href).replace('http://127.0.0.1:8080', ''), headers: wilson });
        expect(link.statusCode).to.equal(200);
        expect(link.result.member).to.equal([]);
    });

    test('a record read and written back with its doclinks link is written', async () => {

        const record = await t.inject({ url: `${wos}/_QkVERk9SRC8xMDA0`, headers: wilson });
        const update = await t.inject({ method: 'PATCH', url: `${wos}/_QkVERk9SRC8xMDA0`, headers: { ...wilson, patchtype: 'MERGE' }, payload: { description: 'Sent back', doclinks: record.result.doclinks } });
        expect(update.statusCode).to.equal(204);
        const read = await t.inject({ url: `${wos}/_QkVERk9SRC8xMDA0?oslc.select=description`, headers: wilson });
        expect(read.result.description).to.equal('Sent back');
        const other = await t.inject({ method: 'PATCH', url: `${wos}/_QkVERk9SRC8xMDA0`, headers: { ...wilson, patchtype: 'MERGE' }, payload: { description: 'x', doclinks: { href: 'a', title: 'b' } } });
        expect(other.statusCode).to.equal(400);
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
