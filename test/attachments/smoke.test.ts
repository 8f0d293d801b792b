import * as Code from '@hapi/code';
import * as Lab from '@hapi/lab';

import { onEachDatabase } from '../helpers/experiments';
import { wilson } from '../helpers/server';

const lab = exports.lab = Lab.script();
const { test } = lab;
const { expect } = Code;
const wo = '/maximo/oslc/os/mxapiwodetail/_QkVERk9SRC8xMDA0';

onEachDatabase(lab, 'attachments smoke', (t) => {

    test('round trip', async () => {

        const bytes = Buffer.from([0, 1, 2, 255, 254, 10, 13]);
        const up = await t.inject({ method: 'POST', url: `${wo}/doclinks`, headers: { ...wilson, slug: 'pump.bin', 'content-type': 'application/json', 'x-document-meta': 'FILE/Attachments', 'x-document-description': 'A pump' }, payload: bytes });
        console.log(up.statusCode, up.headers.location, up.payload);
        const list = await t.inject({ url: `${wo}/doclinks`, headers: wilson });
        console.log(list.statusCode, list.payload);
        const loc = String(up.headers.location).replace('http://localhost:8080', '');
        const down = await t.inject({ url: loc, headers: wilson });
        console.log(down.statusCode, down.headers, down.rawPayload);
        expect(down.rawPayload.equals(bytes)).to.be.true();
        const range = await t.inject({ url: loc, headers: { ...wilson, range: 'bytes=2-4' } });
        console.log(range.statusCode, range.headers['content-range'], range.rawPayload);
        const bad = await t.inject({ url: loc, headers: { ...wilson, range: 'bytes=20-40' } });
        console.log(bad.statusCode, bad.headers['content-range'], bad.payload);
        const meta = await t.inject({ url: loc.replace('/doclinks/', '/doclinks/meta/'), headers: wilson });
        console.log(meta.statusCode, meta.payload);
        const del = await t.inject({ method: 'POST', url: loc, headers: { ...wilson, 'x-method-override': 'DELETE' } });
        console.log(del.statusCode, del.payload);
        const again = await t.inject({ url: loc, headers: wilson });
        console.log(again.statusCode, again.payload);
    });
});
