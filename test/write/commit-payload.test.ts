import * as Code from '@hapi/code';
import * as Lab from '@hapi/lab';

import { onCommit, type Commit } from '../../src/write/after-commit';
import { onEachDatabase } from '../helpers/experiments';
import { wilson } from '../helpers/server';


const lab = exports.lab = Lab.script();
const { test, before, after } = lab;
const { expect } = Code;

// What an after-commit subscriber hears of a write (README, Writing a plugin): small enough to hand on as it is,
// and saying what changed.
onEachDatabase(lab, 'the commit a subscriber hears', (t) => {

    const heard: Commit[] = [];
    let stop: () => void;
    before(() => {

        stop = onCommit(t.server.app.osprey, (commit) => {

            heard.push(commit);
        });
    });

    after(() => stop());

    const wos = '/maximo/oslc/os/mxapiwodetail';
    const patch = (href: string, payload: object) => t.inject({ method: 'POST', url: href, headers: { ...wilson, 'x-method-override': 'PATCH', patchtype: 'MERGE' }, payload });

    const firstWorkOrder = async () => {

        const res = await t.inject({ url: `${wos}?oslc.select=wonum,siteid,description&oslc.where=wonum="1001"`, headers: wilson });
        return res.result.member[0] as { href: string; wonum: string; siteid: string; description: string };
    };

    test('an update of one attribute names it, before and after, in well under 2 KB', async () => {

        const wo = await firstWorkOrder();
        heard.length = 0;
        expect((await patch(wo.href, { description: 'Pump leaking, seal to replace', wonum: wo.wonum })).statusCode).to.equal(204);
        expect(heard).to.have.length(1);
        const [write] = heard[0]!.writes;
        expect(write!.structure.name).to.equal('MXAPIWODETAIL');
        const json = JSON.parse(JSON.stringify(heard[0]));
        expect(json.writes).to.equal([{
            os: 'MXAPIWODETAIL',
            kind: 'merge',
            operation: 'update',
            id: wo.href.split('/').pop(),
            key: { siteid: wo.siteid, wonum: wo.wonum },
            changes: { description: { before: wo.description, after: 'Pump leaking, seal to replace' } }
        }]);
        expect(json.user.userid).to.equal('WILSON');
        expect(json.actions).to.equal([]);
        // The user's profile (about 300 bytes) and the write (about 250): the structure's definition, 21 KB of the
        // demo's work orders, is out of the JSON. 2 KB leaves room for longer values and names, not for a structure.
        expect(JSON.stringify(heard[0]).length).to.be.below(2048);
    });

    test('child rows added, changed and removed are listed compactly', async () => {

        const wo = await firstWorkOrder();
        const added = await patch(`${wo.href}?lean=1`, { wplabor: [{ laborcode: 'WILSON', craft: 'MECH', regularhrs: 2 }] });
        expect(added.statusCode).to.equal(204);
        const adding = heard.at(-1)!.writes[0]!;
        expect(adding.changes).to.not.exist();
        expect(adding.children).to.equal([{ object: 'WPLABOR', operation: 'create', values: { laborcode: 'WILSON', craft: 'MECH', regularhrs: 2, quantity: 1 } }]);

        const labor = (await t.inject({ url: `${wo.href}?oslc.select=wplabor{wplaborid,laborcode,regularhrs}&lean=1`, headers: wilson })).result.wplabor.find((row: { laborcode: string }) => row.laborcode === 'WILSON');
        expect((await patch(wo.href, { wplabor: [{ wplaborid: labor.wplaborid, regularhrs: 3 }] })).statusCode).to.equal(204);
        const changing = heard.at(-1)!.writes[0]!;
        expect(changing.children).to.have.length(1);
        expect(changing.children![0]).to.include({ object: 'WPLABOR', operation: 'update', key: { wplaborid: labor.wplaborid, wonum: wo.wonum, siteid: wo.siteid } });
        expect(Number(changing.children![0]!.changes!.regularhrs!.before)).to.equal(2);
        expect(changing.children![0]!.changes!.regularhrs!.after).to.equal(3);

        expect((await patch(wo.href, { wplabor: [{ wplaborid: labor.wplaborid, _action: 'Delete' }] })).statusCode).to.equal(204);
        expect(heard.at(-1)!.writes[0]!.children).to.equal([{ object: 'WPLABOR', operation: 'delete', key: { wplaborid: labor.wplaborid, wonum: wo.wonum, siteid: wo.siteid } }]);

        // A date as it was read back (PostgreSQL: a Date) and as written compare by their instant.
        expect((await patch(wo.href, { schedstart: '2030-01-02T03:04:05+00:00' })).statusCode).to.equal(204);
        expect(Object.keys(heard.at(-1)!.writes[0]!.changes!)).to.equal(['schedstart']);
        expect((await patch(wo.href, { schedstart: '2030-01-02T03:04:05+00:00' })).statusCode).to.equal(204);
        expect(heard.at(-1)!.writes[0]!.changes).to.not.exist();

        // A body that changes nothing says so: no changes, no children.
        expect((await patch(wo.href, { description: (await firstWorkOrder()).description })).statusCode).to.equal(204);
        const same = heard.at(-1)!.writes[0]!;
        expect(same.changes).to.not.exist();
        expect(same.children).to.not.exist();
    });
});
