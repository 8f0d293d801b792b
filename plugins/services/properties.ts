import type * as Hapi from '@hapi/hapi';


// The system properties Osprey declares itself: each says something true of this server, or is plainly a setting
// kept for clients to read. Plugins declare theirs with server.declareProperty.
export const declareBuiltInProperties = (server: Hapi.Server): void => {

    const { options } = server.app.osprey;
    // Maximo's switch of object structure security; the npm client's SystemService.isOsSecurityOn reads it.
    server.declareProperty('mxe.int.enableosauth', {
        type: 'boolean', fixed: () => true,
        description: 'Object structure security: always on in Osprey. Every request is held to the rights the access of each structure\'s YAML grants its user\'s groups.'
    });
    server.declareProperty('mxe.adminEmail', {
        type: 'string', default: '',
        description: 'The e-mail address of the administrator, a setting kept for clients to show. Osprey sends no mail.'
    });

    // This node's limits (its environment sets them when it starts; another node may have others).
    const limits: readonly [keyof typeof options & string, string][] = [
        ['maxPageSize', 'OSPREY_MAX_PAGE_SIZE: the largest oslc.pageSize a client may ask for'],
        ['maxAnswerRows', 'OSPREY_MAX_ANSWER_ROWS: rows one answer renders, its records and their child and related rows'],
        ['maxBody', 'OSPREY_MAX_BODY: the largest JSON body accepted, in bytes'],
        ['statementTimeoutMs', 'OSPREY_STATEMENT_TIMEOUT_MS: a read statement that runs longer is cancelled (0: never)'],
        ['sessionMinutes', 'OSPREY_SESSION_MINUTES: idle time after which a login session ends']
    ];
    for (const [name, description] of limits) {
        server.declareProperty(`osprey.${name}`, { type: 'integer', fixed: () => options[name] as number, description: `This node's setting ${description}.` });
    }
};
