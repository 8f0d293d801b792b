import * as Code from '@hapi/code';
import * as Lab from '@hapi/lab';

import { Actions, ActionRegistryError, actionKey, parseActionName } from '../../src/actions/registry';
import { UndeclaredHandlerError, checkDeclaredActions, findAction } from '../../src/actions/resolve';
import type { Registry, Structure } from '../../src/structures/registry';


const { experiment, test } = exports.lab = Lab.script();
const { expect } = Code;

const structure = (name: string, actions: { name: string; handler: string; scope: 'record' | 'collection'; description?: string }[] = []) => ({ name, file: `${name.toLowerCase()}.yaml`, def: { actions } }) as unknown as Structure;
const handler = () => undefined;

experiment('the action registry', () => {

    test('names: the kind by its prefix, found in any case', () => {

        expect(parseActionName('WSMETHOD:changeStatus')).to.equal({ kind: 'wsmethod', method: 'changeStatus' });
        expect(parseActionName('approve')).to.equal({ kind: 'action', method: 'approve' });
        expect(parseActionName('other:thing')).to.equal({ kind: 'action', method: 'other:thing' });
        expect(actionKey(' wsmethod:ChangeStatus ')).to.equal(actionKey('WSMETHOD:changestatus'));
        const actions = new Actions();
        actions.register('mxjob', 'wsmethod:Dispatch', { handler });
        expect(actions.find(structure('MXJOB'), 'wsmethod:DISPATCH')?.name).to.equal('wsmethod:Dispatch');
        expect(actions.find(structure('MXJOB'), 'dispatch')).to.not.exist();
        expect(actions.find(structure('MXJOB'), '__proto__')).to.not.exist();
        expect(actions.find(structure('OTHER'), 'wsmethod:dispatch')).to.not.exist();
    });

    test('a bad name, a missing handler or a name registered twice stops the start', () => {

        const actions = new Actions();
        actions.register('*', 'system:ping', { handler });
        expect(() => actions.register('*', 'SYSTEM:PING', { handler })).to.throw(ActionRegistryError, /registered twice for every structure/);
        expect(() => actions.register('MXJOB', 'two words', { handler })).to.throw(ActionRegistryError, /is not/);
        expect(() => actions.register('MXJOB', 'x', {} as never)).to.throw(ActionRegistryError, /no handler function/);
        // The same name for one structure and for every structure: the structure's own wins.
        actions.register('MXJOB', 'system:ping', { handler, description: 'own' });
        expect(actions.find(structure('MXJOB'), 'system:ping')?.spec.description).to.equal('own');
    });

    test('a YAML action names its handler with or without the prefix; one nobody registered is refused by name', () => {

        const actions = new Actions();
        actions.register('*', 'wsmethod:changeStatus', { handler, description: 'built in' });
        const job = structure('MXJOB', [{ name: 'approve', handler: 'changeStatus', scope: 'record', description: 'Approve the job' }]);
        const found = findAction(actions, job, 'APPROVE')!;
        expect(found.name).to.equal('approve');
        expect(found.spec.description).to.equal('Approve the job');
        const broken = structure('MXBROKEN', [{ name: 'approve', handler: 'approveAll', scope: 'record' }]);
        const registry = { list: () => [job, broken] } as unknown as Registry;
        expect(() => checkDeclaredActions(actions, registry)).to.throw(UndeclaredHandlerError, 'mxbroken.yaml: the action approve of MXBROKEN names the handler approveAll, which no plugin registered (server.registerAction or registerWebMethod); the registered handlers are: wsmethod:changeStatus.');
    });
});
