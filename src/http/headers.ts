import type * as Hapi from '@hapi/hapi';


// A request header as a string (repeated headers joined), or undefined when absent.
export const header = (request: Hapi.Request, name: string): string | undefined => {

    const value = (request.headers as Record<string, string | string[] | undefined>)[name];
    return Array.isArray(value) ? value.join(',') : value;
};
