import Joi from 'joi';

import { maximoError, propertyText, type DeclaredProperty, type Properties, type ServiceSpec } from '../../src';


// Maximo's system service (service/system), as the npm client's SystemService and IBM's guide ("Setting and getting
// system properties") call it: the server's date, whether it is Manage, and the system properties
// (src/services/properties.ts). Values are answered as Maximo answers them, as strings (a boolean as 1 or 0).

const declared = (properties: Properties, name: string): DeclaredProperty => {

    const property = properties.get(name);
    if (!property) {
        throw maximoError('notFound', `No system property ${name.length > 100 ? `${name.slice(0, 100)}…` : name} is declared; wsmethod:getPropertyNames lists them.`);
    }

    return property;
};

const readable = (properties: Properties, name: string): DeclaredProperty => {

    const property = declared(properties, name);
    if (property.secret) {
        throw maximoError('forbidden', `The system property ${property.name} is secret: the server reads it, and no client does.`);
    }

    return property;
};

const settable = (properties: Properties, name: string): DeclaredProperty => {

    const property = declared(properties, name);
    if (property.fixed) {
        throw maximoError('badRequest', `The system property ${property.name} is fixed: it says what this server is (${property.description}), and cannot be set.`, { attribute: 'propName' });
    }

    return property;
};

const propName = Joi.string().min(1).max(200).required();

export const systemService: ServiceSpec = {
    description: 'The server\'s date and the system properties.',
    methods: {
        getDate: {
            description: 'The server\'s date and time, ISO 8601 with its offset, as {"return": …}.',
            handler: () => new Date()
        },
        isManage: {
            description: 'Whether the server is Maximo Manage: false, Osprey serves its REST API without being it.',
            handler: () => false
        },
        getPropertyNames: {
            description: 'The names of the declared system properties, secret ones too (their values are never answered).',
            handler: ({ osprey }) => osprey.properties.list().map((property) => property.name)
        },
        getProperty: {
            description: 'A system property\'s value, as {"return": …} (null while it has none); a secret one is refused.',
            schema: Joi.object({ propName }),
            handler: async ({ osprey, args }) => {

                const property = readable(osprey.properties, String(args.propName));
                return (await osprey.properties.texts([property])).get(property.name) ?? null;
            }
        },
        getProperties: {
            description: 'The values of the properties propNames names (a comma-separated list), by name; without propNames, of every property but the secret ones.',
            schema: Joi.object({ propNames: Joi.alternatives(Joi.string().max(10_000), Joi.array().items(Joi.string()).max(1000)) }),
            handler: async ({ osprey, args }) => {

                const names = args.propNames === undefined ? undefined : (Array.isArray(args.propNames) ? args.propNames as string[] : String(args.propNames).split(',')).map((name) => name.trim()).filter((name) => name);
                const list = names === undefined ? osprey.properties.list().filter((property) => !property.secret) : names.map((name) => readable(osprey.properties, name));
                const values = await osprey.properties.texts(list);
                const answer = Object.create(null) as Record<string, string | null>;
                for (const property of list) {
                    answer[property.name] = values.get(property.name) ?? null;
                }

                return answer;
            }
        },
        setProperty: {
            description: 'Sets a system property for every node (serverName COMMON, the only one), which reads it at once where it is live.',
            right: 'admin',
            schema: Joi.object({
                propName,
                propValue: Joi.alternatives(Joi.string().max(4000).allow(''), Joi.number(), Joi.boolean()).required(),
                serverName: Joi.string().uppercase().valid('COMMON').messages({ 'any.only': 'Osprey keeps one value of a property for every node: serverName is COMMON' }),
                serverHost: Joi.string().valid('').messages({ 'any.only': 'Osprey keeps one value of a property for every node: serverHost is empty' })
            }),
            handler: async ({ osprey, args, user }) => {

                const property = settable(osprey.properties, String(args.propName));
                const checked = propertyText(property.type, args.propValue);
                if ('problem' in checked) {
                    throw maximoError('badRequest', `The argument propValue of system.setProperty is refused: ${property.name} is ${property.type === 'integer' ? 'an' : 'a'} ${property.type} property, and ${checked.problem}.`, { attribute: 'propValue' });
                }

                await osprey.properties.store(property, checked.text, user.userid);
            }
        },
        liveRefreshProperty: {
            description: 'Checks that a property is live: every node reads a live property from the database where it uses it, so its value is already the one set.',
            right: 'admin',
            schema: Joi.object({ propName }),
            handler: ({ osprey, args }) => {

                const property = settable(osprey.properties, String(args.propName));
                if (!property.live) {
                    throw maximoError('badRequest', `The system property ${property.name} is not live: it is read when a node starts, so a value set takes effect on each node's next start.`, { attribute: 'propName' });
                }
            }
        }
    }
};
