import * as Code from '@hapi/code';
import * as Lab from '@hapi/lab';

import type { UserProfile } from '../../src/auth/users';
import { allowedActions } from '../../src/read/serialize/allowed-actions';
import type { ActionDef, StructureDef } from '../../src/structures/definition';
import type { BusinessObject, Registry, Structure } from '../../src/structures/registry';


const { experiment, test } = exports.lab = Lab.script();
const { expect } = Code;

const object = { name: 'JOB' } as BusinessObject;
const registryWith = (def: Partial<StructureDef>): Registry => {

    const structure = { name: 'MXJOB', root: object, def: { access: { read: [], insert: [], update: [], delete: [], actions: ['CREW'] }, statusAttribute: 'status', actions: [], ...def } } as unknown as Structure;
    return { byObject: () => structure } as unknown as Registry;
};

const crew = { userid: 'C', groups: ['CREW'], isAdmin: false } as unknown as UserProfile;
const actions: ActionDef[] = [
    { name: 'dispatch', handler: 'dispatch', scope: 'record' },
    { name: 'workflow:APPROVE', handler: 'approve', description: 'Route for approval', scope: 'record' },
    { name: 'wsmethod:changeStatus', handler: 'changeStatus', scope: 'record' },
    { name: 'recalculate', handler: 'recalc', scope: 'collection' }
];

experiment('allowedactions', () => {

    test('lists record actions by name and type; collection actions are not per record', () => {

        const list = allowedActions(registryWith({ actions, statuses: { OPEN: ['DONE'], DONE: [] } }), crew);
        expect(list(object, { status: 'OPEN' })).to.equal({
            dispatch: { httpmethod: 'POST', type: 'action', description: 'dispatch' },
            APPROVE: { httpmethod: 'POST', type: 'workflow', description: 'Route for approval' },
            changeStatus: { httpmethod: 'POST', type: 'wsmethod', description: 'changeStatus' }
        });
        // No status to go to from DONE, or from a status the YAML does not know.
        expect(Object.keys(list(object, { status: 'DONE' }))).to.equal(['dispatch', 'APPROVE']);
        expect(Object.keys(list(object, { status: 'LOST' }))).to.equal(['dispatch', 'APPROVE']);
    });

    test('a structure without statuses offers its status action; a user without the actions right sees none', () => {

        expect(Object.keys(allowedActions(registryWith({ actions }), crew)(object, {}))).to.equal(['dispatch', 'APPROVE', 'changeStatus']);
        expect(allowedActions(registryWith({ actions }), { ...crew, groups: ['OTHERS'] })(object, {})).to.equal({});
    });
});
