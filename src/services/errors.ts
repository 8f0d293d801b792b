import { maximoError } from '../errors/maximo-error';


// The refusals of a service endpoint ({home}/service/{name}?action=wsmethod:{method}), each naming what the
// request named and what there is instead, so a client's typo reads as one. Names a client sent are quoted as
// sent, cut short: a message is no place for a page of text.

const shown = (name: string) => (name.length > 100 ? `${name.slice(0, 100)}…` : name);

// A service has methods (registry.ts), and the system service is always there.
const listed = (names: readonly string[]) => names.join(', ');

export const noService = (name: string, services: readonly string[]) => maximoError('notFound', `There is no service ${shown(name)}; the services are: ${listed(services)}.`);

export const noAction = (service: string, methods: readonly string[]) => maximoError('badRequest', `A method of the service ${service} is called with ?action=wsmethod:{method}, and the request names no action. The methods of ${service}: ${listed(methods)}.`);

export const notWebMethod = (action: string, service: string) => maximoError('badRequest', `The action ${shown(action)} is not a web method: a service endpoint runs ?action=wsmethod:{method}, and the service ${service} has no other actions. Nothing was done.`);

export const noMethod = (method: string, service: string, methods: readonly string[]) => {

    const lower = method.toLowerCase();
    const near = methods.find((candidate) => candidate.toLowerCase() === lower);
    const hint = near ? ` Method names are case-sensitive: did you mean ${near}?` : '';
    return maximoError('badRequest', `The service ${service} has no method ${shown(method)}; its methods are: ${listed(methods)}.${hint}`);
};

export const badArgument = (service: string, method: string, argument: string, problem: string) => maximoError('badRequest', `The argument ${shown(argument)} of ${service}.${method} is refused: ${problem}.`, { attribute: argument });

export const notAllowed = (service: string, method: string, userid: string) => maximoError('forbidden', `The method ${method} of the service ${service} is for administrators, and ${userid} is not one.`);
