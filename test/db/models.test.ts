import * as Code from '@hapi/code';
import * as Lab from '@hapi/lab';
import type { Knex } from 'knex';
import { Model } from 'objection';

import { onEachDatabase } from '../helpers/experiments';
import { wilson } from '../helpers/server';
import { snapshot } from '../helpers/tables';
import { modelsOf, relationName, type ObjectModel } from '../../src/index';
import { memberId } from '../../src/read/serialize/serialize';


const lab = exports.lab = Lab.script();
const { test } = lab;
const { expect } = Code;

type Row = Record<string, unknown>;

const wos = '/maximo/oslc/os/mxapiwodetail';

onEachDatabase(lab, 'the models are the plugin author\'s data API', (t) => {

    const model = (name: string): ObjectModel => modelsOf(t.server).get(name)!;

    test('are the models the server made, one per business object, named after it', () => {

        const models = modelsOf(t.server);
        expect(models).to.shallow.equal(t.server.app.osprey.models);
        expect([...models.keys()].sort()).to.equal(t.server.app.osprey.registry.objects().map((object) => object.name).sort());
        expect([...models.keys()]).to.include(['WORKORDER', 'WOACTIVITY', 'ASSET', 'LOCATIONS', 'PERSON']);
        const workorder = model('WORKORDER');
        expect(workorder.name).to.equal('WORKORDER');
        expect(workorder.tableName).to.equal('workorder');
        expect(workorder.idColumn).to.equal('workorderid');
        expect(workorder.businessObject).to.shallow.equal(t.server.app.osprey.registry.get('MXAPIWODETAIL')!.root);
    });

    test('have a relation per child and per YAML relation, named as the structure names them', () => {

        const relations = model('WORKORDER').getRelations();
        expect(Object.keys(relations).sort()).to.equal(['asset', 'ownerperson', 'rel_location', 'woactivity', 'wostatus', 'wplabor', 'wpmaterial']);
        expect(relations.woactivity instanceof Model.HasManyRelation).to.be.true();
        expect(relations.woactivity!.relatedModelClass === model('WOACTIVITY')).to.be.true();
        expect(relations.asset instanceof Model.BelongsToOneRelation).to.be.true();
        expect(relations.rel_location!.relatedModelClass === model('LOCATIONS')).to.be.true();
        expect(Object.keys(model('ASSET').getRelations()).sort()).to.equal(['assetmeter', 'assetstatus', 'openwo', 'parentasset', 'rel_location']);
        expect(model('ASSET').getRelations().openwo instanceof Model.HasManyRelation).to.be.true();
        expect(model('WOACTIVITY').getRelations()).to.equal({});

        const root = model('WORKORDER').businessObject;
        expect(relationName(root, 'asset')).to.equal('asset');
        expect(relationName(root, 'location')).to.equal('rel_location');
        expect(relationName(root, 'woactivity')).to.equal('rel_woactivity');
    });

    test('read a work order with its tasks as the HTTP answer has it', async () => {

        const task = await model('WOACTIVITY').query().orderBy('woactivityid').first() as unknown as Row;
        const wo = await model('WORKORDER').query().findOne({ wonum: task.parent, siteid: task.siteid }).withGraphFetched('[woactivity]') as unknown as Row & { woactivity: Row[] };
        expect(wo.woactivity.length).to.be.above(0);

        const root = t.server.app.osprey.registry.get('MXAPIWODETAIL')!.root;
        const res = await t.inject({ url: `${wos}/${memberId(root, wo)}?oslc.select=workorderid,wonum,siteid,description,status,woactivity{woactivityid,taskid,description,status}`, headers: wilson });
        expect(res.statusCode).to.equal(200);
        const answer = res.result as Row & { woactivity: Row[] };

        const fields = (row: Row, names: readonly string[]) => Object.fromEntries(names.filter((name) => row[name] !== null && row[name] !== undefined).map((name) => [name, String(row[name])]));
        const top = ['workorderid', 'wonum', 'siteid', 'description', 'status'];
        const child = ['woactivityid', 'taskid', 'description', 'status'];
        const byTask = (a: Row, b: Row) => Number(a.taskid) - Number(b.taskid);
        expect(fields(wo, top)).to.equal(fields(answer, top));
        expect(wo.woactivity.sort(byTask).map((row) => fields(row, child))).to.equal(answer.woactivity.sort(byTask).map((row) => fields(row, child)));
    });

    test('follow YAML relations: a work order\'s asset, and that asset\'s location and work orders', async () => {

        type Asset = Row & { rel_location: Row | undefined; openwo: Row[] };
        const wo = await model('WORKORDER').query().whereNotNull('assetnum').orderBy('workorderid').first().withGraphFetched('asset.[rel_location, openwo]') as unknown as Row & { asset: Asset };
        const asset = wo.asset;
        expect(asset).to.include({ assetnum: wo.assetnum, siteid: wo.siteid });
        expect(asset.location).to.exist();
        expect(asset.rel_location).to.include({ location: asset.location, siteid: asset.siteid });
        const workOrders = await model('WORKORDER').query().where({ assetnum: asset.assetnum, siteid: asset.siteid }) as unknown as Row[];
        expect(asset.openwo.map((row) => String(row.workorderid)).sort()).to.equal(workOrders.map((row) => String(row.workorderid)).sort());
        expect(asset.openwo.map((row) => row.workorderid)).to.include(wo.workorderid);

        const child = await model('ASSET').query().whereExists(model('ASSET').relatedQuery('parentasset')).orderBy('assetuid').first().withGraphFetched('parentasset') as unknown as Row & { parentasset: Row };
        expect(child.parentasset).to.include({ assetnum: child.parent, siteid: child.siteid });
    });

    test('run in a knex transaction, and a rolled-back one leaves every table as it was', async () => {

        const before = await snapshot(t);
        const knex = t.server.app.osprey.knex as Knex;
        const task = await model('WOACTIVITY').query().orderBy('woactivityid').first() as unknown as Row;
        const undo = new Error('undo');
        const work = knex.transaction(async (trx) => {

            const removed = await model('WOACTIVITY').query(trx).where({ parent: task.parent, siteid: task.siteid }).delete();
            expect(removed).to.be.above(0);
            await model('WORKORDER').query(trx).where({ wonum: task.parent, siteid: task.siteid }).patch({ description: 'changed in a transaction' } as never);
            const seen = await model('WORKORDER').query(trx).findOne({ wonum: task.parent, siteid: task.siteid }).withGraphFetched('woactivity') as unknown as Row & { woactivity: Row[] };
            expect(seen.description).to.equal('changed in a transaction');
            expect(seen.woactivity).to.equal([]);
            throw undo;
        });

        await expect(work).to.reject(Error, 'undo');
        expect(await snapshot(t)).to.equal(before);
    });
});
