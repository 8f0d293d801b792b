import * as Code from '@hapi/code';
import * as Lab from '@hapi/lab';

import { databaseInputError } from '../../src/db/errors';
import type { AttributeError } from '../../src/errors/maximo-error';
import { loadRegistry } from '../../src/load-registry';
import { completeNew, defaultValue, keyValues, parseItem, type ParseSettings } from '../../src/write/plan/input';
import { demoStructures } from '../helpers/server';


const { experiment, test } = exports.lab = Lab.script();
const { expect } = Code;

const registry = loadRegistry(demoStructures);
const wo = registry.get('MXAPIWODETAIL')!.root;
const now = new Date('2026-03-04T05:06:07.890Z');

const settings = (extra: Partial<ParseSettings> = {}): ParseSettings & { errors: AttributeError[] } => ({ object: wo, objectPath: wo.path, domains: registry.domains(), errors: [], now, ...extra });

experiment('reading a write body', () => {

    test('refuses bodies that are not objects', () => {

        for (const body of [null, [], 'text', 5]) {
            const s = settings();
            parseItem(body, s);
            expect(s.errors[0]!.message).to.contain('must be a JSON object');
        }
    });

    test('reads _action, _rowstamp, href and children given as one object', () => {

        const s = settings();
        const item = parseItem({ _action: 'Delete', _rowstamp: 12, href: 'http://x/1', woactivity: { taskid: 1 } }, s);
        expect(item).to.include({ action: 'delete', rowstamp: '12', href: 'http://x/1' });
        expect(item.children.get('woactivity')).to.equal([{ taskid: 1 }]);
        const plain = parseItem({ _action: 'AddChange', _rowstamp: null, href: 5 }, s);
        expect(plain.action).to.not.exist();
        expect(plain.rowstamp).to.not.exist();
        expect(plain.href).to.not.exist();
        parseItem({ _action: 'Explode' }, s);
        expect(s.errors.map((error) => error.attribute)).to.equal(['_action']);
    });

    test('ignores what the server itself writes into records, and nothing else', () => {

        const s = settings();
        const item = parseItem({ localref: 'x', _id: 1, _bulkid: '2', woactivity_collectionref: 'x', status_description: 'Waiting', 'spi:description': 'Prefixed' }, s);
        expect(s.errors).to.equal([]);
        expect(item.values).to.equal({ description: 'Prefixed' });
        parseItem({ description_description: 'x' }, s);
        expect(s.errors[0]!.reason).to.equal('unknownAttribute');
        const task = registry.get('MXAPIWODETAIL')!.root.children.get('woactivity')!.object;
        const taskSettings = settings({ object: task, objectPath: task.path });
        parseItem({ doclinks: [] }, taskSettings);
        expect(taskSettings.errors[0]!.attribute).to.equal('doclinks');
        expect(taskSettings.errors[0]!.reason).to.equal('unknownAttribute');
        // A record's inline documents are kept for the write's plan (src/write/plan/documents.ts checks them); its
        // doclinks link, read back, names none; anything else is refused by name.
        const inline = settings();
        const documents = [{ urltype: 'FILE', urlname: 'a.txt', documentdata: 'aGVsbG8=' }];
        expect(parseItem({ doclinks: documents }, inline).documents).to.equal(documents);
        expect(parseItem({ doclinks: { href: 'http://x/doclinks' } }, inline).documents).to.not.exist();
        expect(inline.errors).to.equal([]);
        parseItem({ doclinks: 'a.txt' }, inline);
        expect(inline.errors[0]).to.include({ attribute: 'doclinks', reason: 'badRequest' });
    });

    test('nulls, empty strings, parent values, read-only values and domains', () => {

        const s = settings({ fixed: { siteid: 'BEDFORD' } });
        const item = parseItem({ description: '', wopriority: null, siteid: 'bedford', workorderid: null, statusdate: null, memo: 'note' }, s);
        expect(s.errors).to.equal([]);
        expect(item.values).to.equal({ description: null, wopriority: null });
        expect(item.transient).to.equal({ memo: 'note' });
        parseItem({ siteid: 'NASHUA' }, s);
        expect(s.errors[0]!.message).to.contain('set from the parent');

        const update = settings({ current: { wonum: '1', siteid: 'BEDFORD', workorderid: 9, status: 'WAPPR' } });
        parseItem({ siteid: null, workorderid: 9, worktype: 'NOPE', wonum: null }, update);
        expect(update.errors.map((error) => [error.attribute, error.reason])).to.equal([['siteid', 'attributeInvalid'], ['worktype', 'attributeInvalid'], ['wonum', 'attributeInvalid']]);
        const required = settings({ current: { wonum: '1', siteid: 'BEDFORD' } });
        const woSite = { ...wo, primaryKey: ['wonum'] };
        parseItem({ siteid: null }, { ...required, object: woSite });
        expect(required.errors[0]!.reason).to.equal('required');
    });

    test('completes a new record with defaults and reports what is still required', () => {

        const s = settings();
        const item = parseItem({ wopriority: 'x' }, s);
        completeNew(item, s);
        expect(item.values.status).to.equal('WAPPR');
        expect(item.values.reportdate).to.equal('2026-03-04T05:06:07.000Z');
        expect(s.errors.map((error) => error.attribute)).to.equal(['wopriority', 'siteid']);
        expect(defaultValue(wo.attributes.get('status')!, now)).to.equal('WAPPR');
    });

    test('reads key values only when all are given and valid', () => {

        expect(keyValues(wo, { wonum: 'a1', siteid: 'bedford' })).to.equal({ siteid: 'BEDFORD', wonum: 'A1' });
        expect(keyValues(wo, { wonum: 'a1' })).to.be.undefined();
        expect(keyValues(wo, { wonum: 'x'.repeat(40), siteid: 'B' })).to.be.undefined();
        expect(keyValues(wo, null)).to.be.undefined();
        expect(keyValues(wo, 'text')).to.be.undefined();
    });
});

experiment('database errors', () => {

    test('constraint races become client errors; others stay server errors', () => {

        expect(databaseInputError({ code: '23505' })!.output.statusCode).to.equal(400);
        expect(databaseInputError({ code: 'SQLITE_CONSTRAINT_PRIMARYKEY' })!.data!.reasonCode).to.equal('BMXAA4129E');
        expect(databaseInputError({ message: 'UNIQUE constraint failed: x.y' })).to.exist();
        expect(databaseInputError({ code: '23502' })!.data!.reasonCode).to.equal('BMXAA4195E');
        expect(databaseInputError({ code: 'SQLITE_CONSTRAINT_NOTNULL' })).to.exist();
        expect(databaseInputError(new Error('disk full'))).to.be.undefined();
        expect(databaseInputError(undefined)).to.be.undefined();
    });
});
