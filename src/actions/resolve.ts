import { maximoError } from '../errors/maximo-error';
import type { ResourceRequest } from '../request';
import type { Registry, Structure } from '../structures/registry';
import { actionKey, type Actions, type RegisteredAction } from './registry';


// Which action a name calls on a structure: one its YAML declares (`actions: [{name, handler}]`, the handler a
// registered action), else one registered for the structure, else one registered for every structure. The YAML's
// declarations are resolved once, when the server starts: one that names a handler nobody registered stops the
// start with a sentence naming it (checkDeclaredActions).

export class UndeclaredHandlerError extends Error { }

const declared = new WeakMap<Structure, ReadonlyMap<string, RegisteredAction>>();

// The YAML-declared actions of a structure, each with the spec of its handler (and the YAML's description and
// scope over the handler's own).
const declaredOf = (actions: Actions, structure: Structure): ReadonlyMap<string, RegisteredAction> => {

    const known = declared.get(structure);
    if (known) {
        return known;
    }

    const map = new Map<string, RegisteredAction>();
    for (const entry of structure.def.actions) {
        const handler = actions.handler(structure, entry.handler);
        if (!handler) {
            throw new UndeclaredHandlerError(`${structure.file}: the action ${entry.name} of ${structure.name} names the handler ${entry.handler}, which no plugin registered (server.registerAction or registerWebMethod); the registered handlers are: ${registeredNames(actions, structure)}.`);
        }

        const { description, scope } = entry;
        map.set(actionKey(entry.name), { ...handler, name: entry.name, ...parseKind(entry.name), spec: { ...handler.spec, ...(description !== undefined ? { description } : {}), scope, listed: true } });
    }

    declared.set(structure, map);
    return map;
};

const parseKind = (name: string) => {

    const key = actionKey(name);
    const colon = key.indexOf(':');
    return { kind: key.slice(0, colon) as RegisteredAction['kind'], method: name.includes(':') ? name.slice(name.indexOf(':') + 1) : name };
};

const registeredNames = (actions: Actions, structure: Structure): string => {

    const names = [...actions.registeredFor(structure), ...actions.forEvery()].map((action) => action.name);
    return names.length ? names.join(', ') : 'none';
};

// Resolves every YAML-declared action of every structure: called when the server starts, after every plugin
// registered its actions.
export const checkDeclaredActions = (actions: Actions, registry: Registry): void => {

    for (const structure of registry.list()) {
        declaredOf(actions, structure);
    }
};

// The action a name calls on a structure, or undefined.
export const findAction = (actions: Actions, structure: Structure, name: string): RegisteredAction | undefined => {

    return declaredOf(actions, structure).get(actionKey(name)) ?? actions.find(structure, name);
};

// Every action a structure offers its records (or its collection): declared, registered for it, and those for
// every structure that its YAML declares. Names are unique (a declaration hides a registration of the same name).
export const actionsOf = (actions: Actions, structure: Structure): RegisteredAction[] => {

    const byKey = new Map<string, RegisteredAction>();
    for (const action of actions.registeredFor(structure)) {
        byKey.set(actionKey(action.name), action);
    }

    for (const [key, action] of declaredOf(actions, structure)) {
        byKey.set(key, action);
    }

    return [...byKey.values()];
};

// The action of a request's `?action=`, else a 400 naming it and what the structure offers.
export const resolveAction = (req: ResourceRequest, name: string): RegisteredAction => {

    const action = findAction(req.osprey.actions, req.structure, name);
    const report = name.toLowerCase();
    if (!action && req.id === undefined && (report === 'listreports' || report === 'genreport')) {
        // The built-in report actions are reads: they run by GET (plugins/resources/read.ts), not as an action.
        throw maximoError('badRequest', `${name} is read with GET (GET …/os/${req.structure.id}?action=${report}); sent as an action by POST it is not carried out, and nothing was done.`);
    }

    if (!action) {
        const offered = new Set([...actionsOf(req.osprey.actions, req.structure), ...req.osprey.actions.forEvery()].map((each) => each.name));
        throw maximoError('badRequest', `${req.structure.name} has no action ${name}, and nothing was done. Its actions: ${[...offered].join(', ') || 'none'}${req.id === undefined ? '; a collection also runs listreports and genreport' : ''}.`);
    }

    return action;
};
